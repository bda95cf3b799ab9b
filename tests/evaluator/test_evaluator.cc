// build/bin/evaluator on a tiny run directory (7x7, 8-channel nets): it
// writes results and ratings, resolves checkpoint: and previous: opponents,
// and after kill -9 + restart neither replays nor double-counts games.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <set>

#include "common/base/fileio.h"
#include "common/base/jsonl.h"
#include "common/config/config.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "common/net/net_api.h"
#include "tests/trainer/trainer_test_util.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"
#include "common/harness/wait_until.h"

using namespace gz;
using gz::testing::PublishRandomCheckpoint;
using nlohmann::json;

namespace {

Config TinyEvalConfig(const std::string& dir, const std::vector<std::string>& ladder) {
  Config c = gz::testing::TinyEvalRunConfig(dir);
  c.eval.games = 6;
  c.eval.simulations = 24;
  c.eval.ladder = ladder;
  c.eval.engine_turn_ms = 500;
  c.eval.engine_grace_ms = 1000;
  return c;
}

std::string WriteConfig(const Config& c, const std::string& dir) {
  const std::string path = dir + "/eval_config.json";
  WriteFileAtomic(path, c.ToJsonString());
  return path;
}

std::vector<json> Lines(const std::string& path, const std::string& type) {
  std::vector<json> out;
  for (json& j : ReadJsonLines(path).records)
    if (j.value("type", "") == type) out.push_back(j);
  return out;
}

int GamesOf(const std::string& results, int64_t it) {
  int n = 0;
  for (const json& g : Lines(results, "game")) n += g["iteration"] == it ? 1 : 0;
  return n;
}

// The ratings.jsonl line of iteration `it`, or null.
json RatingsLine(const std::string& path, int64_t it) {
  for (json& j : ReadJsonLines(path).records)
    if (j.value("iteration", int64_t{-1}) == it) return j;
  return nullptr;
}

bool Complete(const std::string& ratings, int64_t it) {
  json j = RatingsLine(ratings, it);
  return !j.is_null() && j["complete"] == true;
}

// REQUIREs that `ratings` gets a complete line for iteration `it` while the
// evaluator `p` is still running.
void WaitRated(testing::TestProcess& p, const std::string& ratings, int64_t it) {
  REQUIRE(testing::WaitUntil([&] { return Complete(ratings, it) || p.Poll(); }, 240));
  REQUIRE(!p.Poll());
}

// Stops the evaluator `p` with SIGTERM; it must exit, with status 0.
void StopWithSigterm(testing::TestProcess& p) {
  p.Signal(SIGTERM);
  REQUIRE(testing::WaitUntil([&] { return p.Poll().has_value(); }, 60));
  CHECK(*p.Poll() == 0);
}

json ReadStatus(const std::string& path) {
  try {
    return json::parse(ReadFileOrThrow(path));
  } catch (const std::exception&) {
    return json::object();  // not written yet
  }
}

// Runs the evaluator until it exits (a config error); its exit code and log.
std::pair<int, std::string> RunToExit(const std::string& dir, const Config& c) {
  testing::TestProcess p(testing::BinPath("evaluator"), {"--run-dir", dir, "--config", WriteConfig(c, dir)},
                         dir + "/evaluator.out");
  REQUIRE(testing::WaitUntil([&] { return p.Poll().has_value(); }, 120));
  return {*p.Poll(), p.Log()};
}

}  // namespace

TEST_CASE("evaluator: bad ladder entries are config errors naming the entry, at start") {
  const std::string dir = testing::FreshTestDir("evaluator_bad_ladder");
  RunLayout run(dir);
  Config base = TinyEvalConfig(dir, {});
  PublishRandomCheckpoint(run, base, 0);
  {
    auto [code, log] = RunToExit(dir, TinyEvalConfig(dir, {"rollout:20", "checkpoint:99"}));
    CHECK(code == 2);
    CHECK(log.find("checkpoint:99") != std::string::npos);
  }
  {
    // An fc checkpoint of another size is refused naming its heads (a conv one would play).
    CreateRandomCheckpoint(run.checkpoint(98), 9, Rule::kFreestyle, 8, 1, /*seed=*/98, 98, 98);
    auto [code, log] = RunToExit(dir, TinyEvalConfig(dir, {"checkpoint:98"}));
    CHECK(code == 2);
    CHECK(log.find("trained for 9x9 (fc heads), the run plays 7x7") != std::string::npos);
  }
  {
    auto [code, log] = RunToExit(dir, TinyEvalConfig(dir, {"engine:/no/such/brain"}));
    CHECK(code == 2);
    CHECK(log.find("engine:/no/such/brain") != std::string::npos);
  }
  {
    const std::string script = dir + "/refuses.sh";
    WriteFileAtomic(script, "#!/bin/sh\nread -r line\necho ERROR no\n");
    ::chmod(script.c_str(), 0755);
    auto [code, log] = RunToExit(dir, TinyEvalConfig(dir, {"engine:" + script}));
    CHECK(code == 2);
    CHECK(log.find("engine:" + script) != std::string::npos);
    CHECK(log.find("cannot start") != std::string::npos);
  }
  // Nothing was played.
  CHECK(Lines(RunLayout(dir).eval_results(), "game").empty());
}

TEST_CASE("evaluator: results and ratings; kill -9 and restart neither replays nor double-counts") {
  const std::string dir = testing::FreshTestDir("evaluator_run");
  RunLayout run(dir);
  const Config c = TinyEvalConfig(dir, {"rollout:20", "checkpoint:0", "previous:1"});
  PublishRandomCheckpoint(run, c, 0);
  PublishRandomCheckpoint(run, c, 1);
  const std::string results = run.eval_results(), ratings = run.ratings();
  const std::string status = run.evaluator_status();
  const std::string config_path = WriteConfig(c, dir);
  const std::vector<std::string> args{"--run-dir", dir, "--config", config_path};

  std::string before_kill;
  {
    testing::TestProcess p(testing::BinPath("evaluator"), args, dir + "/evaluator1.out");
    INFO(p.Log());
    // The newest checkpoint (1) first: rollout:20 and checkpoint:0; previous:1
    // has no earlier evaluation yet.
    WaitRated(p, ratings, 1);
    auto evals = Lines(results, "evaluation");
    REQUIRE(evals.size() == 1);
    CHECK(evals[0]["iteration"] == 1);
    CHECK(evals[0]["opponents"] == json::parse(R"([{"entry":"rollout:20","name":"rollout:20"},
                                                    {"entry":"checkpoint:0","name":"checkpoint:0"}])"));
    CHECK(GamesOf(results, 1) == 12);
    json r1 = RatingsLine(ratings, 1);
    CHECK(r1["generation"] == 1);
    CHECK(r1["player"] == "checkpoint:1");
    CHECK(r1["games"] == 12);
    CHECK(r1["anchor"] == "rollout:20");
    REQUIRE(r1["opponents"].size() == 2);
    for (const json& o : r1["opponents"]) {
      CHECK(o["wins"].get<int>() + o["draws"].get<int>() + o["losses"].get<int>() == 6);
      CHECK(o["games"] == 6);
    }
    CHECK(r1["opponents"][0]["elo"] == 0.0);  // the anchor
    CHECK(r1["elo_low"].get<double>() < r1["elo"].get<double>());
    CHECK(r1["elo"].get<double>() < r1["elo_high"].get<double>());
    REQUIRE(testing::WaitUntil([&] { return ReadStatus(status)["state"] == "waiting"; }, 30));
    // Pinned for the trainer's retention: checkpoint:0 of the ladder, and the
    // last evaluated one (previous:1 of the next evaluation).
    CHECK(ReadStatus(status)["pinned_checkpoints"] == json::array({0, 1}));

    // A new checkpoint: evaluated against all three; kill -9 part-way.
    PublishRandomCheckpoint(run, c, 2);
    REQUIRE(testing::WaitUntil([&] { return GamesOf(results, 2) >= 2 || p.Poll(); }, 240));
    p.Kill();
    before_kill = ReadFileOrThrow(results);
  }
  const int played_before = GamesOf(results, 2);
  INFO("games of iteration 2 before the kill: " << played_before);
  REQUIRE(played_before < 18);  // killed part-way through
  // A torn last line, as a kill during the append would leave.
  {
    std::ofstream out(results, std::ios::app);
    out << R"({"type":"game","iteration":2,"entry":"rollout:20","ga)";
  }
  {
    testing::TestProcess p(testing::BinPath("evaluator"), args, dir + "/evaluator2.out");
    INFO(p.Log());
    WaitRated(p, ratings, 2);
    StopWithSigterm(p);
    CHECK(ReadStatus(status)["state"] == "stopped");
    CHECK(ReadStatus(status)["pid"] == p.pid());
    CHECK(ReadStatus(status)["pinned_checkpoints"] == json::array({0, 2}));
  }
  // The games before the kill are untouched and not played again.
  const std::string after = ReadFileOrThrow(results);
  CHECK(after.compare(0, before_kill.size(), before_kill) == 0);
  CHECK(ReadJsonLines(results).bad_lines == 1);  // the torn line, skipped
  std::map<std::tuple<int64_t, std::string, int>, int> keys;
  for (const json& g : Lines(results, "game"))
    ++keys[{g["iteration"].get<int64_t>(), g["entry"].get<std::string>(), g["game"].get<int>()}];
  CHECK(keys.size() == 12 + 18);
  for (auto& [key, n] : keys) CHECK(n == 1);
  CHECK(GamesOf(results, 2) == 18);
  CHECK(Lines(results, "evaluation").size() == 2);
  for (const json& e : Lines(results, "evaluation")) CHECK(e["forward"] == "native");
  // previous:1 of the second evaluation is checkpoint 1; colours alternate.
  for (const json& g : Lines(results, "game")) {
    if (g["iteration"] == 2 && g["entry"] == "previous:1") CHECK(g["opponent"] == "checkpoint:1");
    CHECK(g["colour"] == (g["game"].get<int>() % 2 == 0 ? "black" : "white"));
    // The forward that played: the net under test's, and a net opponent's (not rollout:20's).
    CHECK(g["forward"] == "native");
    if (g["entry"] == "rollout:20")
      CHECK_FALSE(g.contains("opponent_forward"));
    else
      CHECK(g["opponent_forward"] == "native");
    // The recorded moves replay to the recorded result.
    Board b(7, Rule::kFreestyle);
    for (int m : g["moves"]) b.Play(m);
    REQUIRE(b.terminal());
    const int8_t mine = g["colour"] == "black" ? kBlack : kWhite;
    const double score = b.outcome() == Outcome::kDraw ? 0.5
                         : (b.outcome() == Outcome::kBlackWins) == (mine == kBlack) ? 1.0 : 0.0;
    CHECK(g["score"] == score);
  }
  json r2 = RatingsLine(ratings, 2);
  REQUIRE(r2["opponents"].size() == 3);
  CHECK(r2["opponents"][2]["name"] == "checkpoint:1");
  CHECK(r2["games"] == 18);
  // One fit for the whole file: checkpoint 1 has the same rating in both lines.
  CHECK(r2["opponents"][2]["elo"] == RatingsLine(ratings, 1)["elo"]);
}

TEST_CASE("evaluator: an engine: opponent (our own pbrain-gomoku-zero) is played and rated") {
  const std::string dir = testing::FreshTestDir("evaluator_engine");
  RunLayout run(dir);
  WriteFileAtomic(dir + "/brain.json", "{}");
  const std::string entry = "engine:" + testing::BinPath("pbrain-gomoku-zero") + " --settings " + dir +
                            "/brain.json --max-simulations 20";
  Config c = TinyEvalConfig(dir, {entry});
  c.eval.games = 2;
  c.eval.engine_grace_ms = 5000;  // a loaded test machine: a late move would be a (recorded) forfeit
  PublishRandomCheckpoint(run, c, 3);
  const std::string results = run.eval_results(), ratings = run.ratings();
  testing::TestProcess p(testing::BinPath("evaluator"), {"--run-dir", dir, "--config", WriteConfig(c, dir)},
                         dir + "/evaluator.out");
  INFO(p.Log());
  WaitRated(p, ratings, 3);
  StopWithSigterm(p);
  auto games = Lines(results, "game");
  REQUIRE(games.size() == 2);
  for (const json& g : games) {
    INFO(g.dump());
    CHECK(g["opponent"] == entry);
    CHECK((g["end"] == "five" || g["end"] == "full"));
  }
  json r = RatingsLine(ratings, 3);
  CHECK(r["opponents"][0]["name"] == entry);
  CHECK(r["opponents"][0]["games"] == 2);
  // The anchor (rollout:20) never played: the fit falls back to the first name.
  CHECK(r["anchor"] == "checkpoint:3");
}
