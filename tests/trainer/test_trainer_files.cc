// Trainer pieces without a network: game collection (waiting, stall timeout,
// overproduction, corrupt/stale/late files), checkpoint ordering and
// retention, generations.jsonl and the time table, resume files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/data/record_format.h"
#include "tests/support/text_checks.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/game_collector.h"
#include "trainer/game_files.h"
#include "trainer/generation_log.h"
#include "trainer/retention.h"
#include "trainer/trainer_state.h"

using namespace gz;
using namespace gz::testing;

namespace {

// Captures log lines for the lifetime of the object.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(out_)) {
    auto logger = std::make_shared<spdlog::logger>("test", sink_);
    logger->set_pattern("[%l] %v");
    logger->set_level(spdlog::level::debug);
    previous_ = spdlog::default_logger();
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() {
    sink_->flush();
    return out_.str();
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

CollectSettings Settings(int target, int min_games, double stall_s) {
  CollectSettings s;
  s.target_games = target;
  s.min_games = min_games;
  s.stall_timeout_s = stall_s;
  s.progress_log_s = 0.1;
  s.poll_interval_s = 0.02;
  s.board_size = 7;
  s.rule = Rule::kFreestyle;
  return s;
}

void Touch(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("collector proceeds at the target and keeps overproduced games") {
  RunLayout run(FreshTestDir("collect_over"));
  WriteGames(run, 1, 0, 0, 7, 7);  // 7 games, target 4
  GameCollector c(run, Settings(4, 2, 60));
  CollectionResult r = c.Collect(1, nullptr);
  CHECK(r.games.size() == 7);
  CHECK_FALSE(r.by_stall_timeout);
  CHECK(r.corrupt + r.stale + r.late == 0);
  for (const auto& g : r.games) CHECK(g.record.iteration == 1);
}

TEST_CASE("collector waits, logs progress, and proceeds when games arrive") {
  LogCapture log;
  RunLayout run(FreshTestDir("collect_wait"));
  GameCollector c(run, Settings(3, 3, 60));
  std::thread writer([&] {
    // The first game arrives only after the collector has said it waits (on a
    // loaded machine its first scan could otherwise come after the games).
    WaitUntil([&] { return log.text().find("waiting for workers: 0/3 games") != std::string::npos; });
    for (int k = 0; k < 3; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      WriteGames(run, 1, 2, k, 1, 7);
    }
  });
  CollectionResult r = c.Collect(1, nullptr);
  writer.join();
  CHECK(r.games.size() == 3);
  CHECK_FALSE(r.by_stall_timeout);
  CHECK(log.text().find("waiting for workers: 0/3 games") != std::string::npos);
}

TEST_CASE("stall timeout: trains on fewer than the target with a WARNING") {
  LogCapture log;
  RunLayout run(FreshTestDir("collect_stall"));
  WriteGames(run, 1, 0, 0, 2, 7);
  GameCollector c(run, Settings(5, 2, 0.5));
  CollectionResult r = c.Collect(1, nullptr);
  CHECK(r.games.size() == 2);
  CHECK(r.by_stall_timeout);
  CHECK(r.stall_warnings == 1);
  std::string text = log.text();
  CHECK(text.find("[warning] stall timeout: no new game for") != std::string::npos);
  CHECK(text.find("2/5 games") != std::string::npos);
}

TEST_CASE("stall timeout below min_games keeps waiting and keeps warning") {
  LogCapture log;
  RunLayout run(FreshTestDir("collect_stall_min"));
  WriteGames(run, 1, 0, 0, 1, 7);
  GameCollector c(run, Settings(5, 3, 0.3));
  std::atomic<bool> added{false};
  std::thread writer([&] {
    // Wait until the collector has warned twice, then bring it to min_games.
    WaitUntil([&] {
      std::string t = log.text();
      size_t first = t.find("fewer than run.min_games");
      return first != std::string::npos && t.find("fewer than run.min_games", first + 1) != std::string::npos;
    });
    WriteGames(run, 1, 1, 0, 2, 7);
    added = true;
  });
  CollectionResult r = c.Collect(1, nullptr);
  writer.join();
  CHECK(added);
  CHECK(r.games.size() == 3);
  CHECK(r.by_stall_timeout);  // 3 < 5 target, proceeded on the timeout after reaching min_games
  CHECK(r.stall_warnings >= 3);
  CHECK(log.text().find("1/5 games for iteration 1 (fewer than run.min_games = 3); still waiting") !=
        std::string::npos);
}

TEST_CASE("corrupt, truncated, stale and temp files are skipped and counted") {
  LogCapture log;
  RunLayout run(FreshTestDir("collect_bad"));
  WriteGames(run, 1, 0, 0, 3, 7);
  std::string good = Slurp(run.game_file(1, 0, 0));
  MakeDirs(run.games_for(1));
  Touch(run.games_for(1) + "/w9_g0.npz", good.substr(0, good.size() / 2));       // truncated
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x5a;
  Touch(run.games_for(1) + "/w9_g1.npz", flipped);                               // bit flip
  Touch(run.games_for(1) + "/w9_g2.npz", "");                                    // empty
  Touch(run.games_for(1) + "/w9_g3.npz.tmp.123.0", good.substr(0, 10));          // in-flight temp file
  Touch(run.games_for(1) + "/notes.txt", "not a game");                          // not a game name
  SaveGameRecord(RandomGame(7, 5, 99), run.games_for(1) + "/w9_g4.npz");         // stale: tagged iteration 5
  SaveGameRecord(RandomGame(9, 1, 98), run.games_for(1) + "/w9_g5.npz");         // incompatible: 9x9
  GameCollector c(run, Settings(3, 1, 60));
  CollectionResult r = c.Collect(1, nullptr);
  CHECK(r.games.size() == 3);
  CHECK(r.corrupt == 3);
  CHECK(r.stale == 1);
  CHECK(r.incompatible == 1);
  CHECK(r.ignored.size() == 5);
  std::string text = log.text();
  CHECK(text.find("skipping corrupt game file") != std::string::npos);
  CHECK(text.find("skipping stale game file") != std::string::npos);
  CHECK(text.find("w9_g3") == std::string::npos);  // temp names are never even looked at
}

TEST_CASE("mixed board sizes: a run of sizes {7, 9} takes 7x7 and 9x9 games and refuses 11x11 naming why") {
  LogCapture log;
  RunLayout run(FreshTestDir("collect_sizes"));
  WriteGames(run, 1, 0, 0, 2, 7);  // w0_g0, w0_g1: 7x7
  WriteGames(run, 1, 1, 0, 2, 9);  // w1_g0, w1_g1: 9x9
  SaveGameRecord(RandomGame(11, 1, 97), run.games_for(1) + "/w2_g0.npz");  // 11x11: not a size of the run
  CollectSettings s = Settings(4, 1, 60);
  s.board_size = 9;
  s.board_sizes = {7, 9};
  CHECK(s.accepted_sizes() == std::set<int>{7, 9});
  GameCollector c(run, s);
  CollectionResult r = c.Collect(1, nullptr);
  REQUIRE(r.games.size() == 4);
  std::map<int, int> sizes;
  for (const auto& g : r.games) ++sizes[g.record.board_size];
  CHECK(sizes == std::map<int, int>{{7, 2}, {9, 2}});
  CHECK(r.incompatible == 1);
  CHECK(r.ignored == std::vector<std::string>{"w2_g0.npz"});
  CHECK(log.text().find("skipping incompatible game file " + run.games_for(1) +
                        "/w2_g0.npz: game is 11x11 freestyle, the run is 7x7 or 9x9 freestyle") != std::string::npos);

  SECTION("late files of a closed iteration are vetted against the same sizes") {
    c.RememberClosed(1, {"w0_g0.npz", "w0_g1.npz", "w1_g0.npz", "w1_g1.npz", "w2_g0.npz"}, 2);
    SaveGameRecord(RandomGame(7, 1, 96), run.games_for(1) + "/w3_g0.npz");
    SaveGameRecord(RandomGame(13, 1, 95), run.games_for(1) + "/w3_g1.npz");
    WriteGames(run, 2, 0, 0, 4, 9);  // the target: no wait for the stall timeout
    CollectionResult r2 = c.Collect(2, nullptr);
    CHECK(r2.games.size() == 4);
    REQUIRE(r2.late_games.size() == 1);
    CHECK(r2.late_games[0].game.record.board_size == 7);
    CHECK(r2.incompatible == 1);
  }
  SECTION("one size: the message is today's") {
    GameRecord rec;
    std::string reason;
    CHECK(LoadAndCheckGame(run.games_for(1) + "/w2_g0.npz", {1, {9}, Rule::kFreestyle}, &rec, &reason) ==
          GameVerdict::kIncompatible);
    CHECK(reason == "game is 11x11 freestyle, the run is 9x9 freestyle");
    CHECK(LoadAndCheckGame(run.games_for(1) + "/w2_g0.npz", {1, {5, 7, 9}, Rule::kFreestyle}, &rec, &reason) ==
          GameVerdict::kIncompatible);
    CHECK(reason == "game is 11x11 freestyle, the run is 5x5, 7x7 or 9x9 freestyle");
    CHECK(LoadAndCheckGame(run.games_for(1) + "/w2_g0.npz", {1, {9, 11}, Rule::kFreestyle}, &rec, &reason) ==
          GameVerdict::kUsable);
  }
  SECTION("FromConfig takes every size of selfplay.board_sizes") {
    Config cfg = TinyConfig(run.dir);
    cfg.board.size = 9;
    cfg.net.heads = "conv";
    cfg.selfplay.board_sizes = {"9:4", "7:1"};
    CHECK(CollectSettings::FromConfig(cfg).accepted_sizes() == std::set<int>{7, 9});
    cfg.selfplay.board_sizes.clear();
    CHECK(CollectSettings::FromConfig(cfg).accepted_sizes() == std::set<int>{9});
  }
}

TEST_CASE("files arriving for a closed iteration are late: counted once, never the iteration's own games") {
  LogCapture log;
  RunLayout run(FreshTestDir("collect_late"));
  WriteGames(run, 1, 0, 0, 2, 7);
  GameCollector c(run, Settings(2, 1, 60));
  CollectionResult r1 = c.Collect(1, nullptr);
  REQUIRE(r1.games.size() == 2);
  std::set<std::string> names;
  for (const auto& g : r1.games) names.insert(g.file);
  c.RememberClosed(1, names, 2);
  WriteGames(run, 1, 5, 0, 3, 7);  // late for iteration 1
  WriteGames(run, 2, 0, 0, 2, 7);
  CollectionResult r2 = c.Collect(2, nullptr);
  CHECK(r2.games.size() == 2);
  CHECK(r2.late == 3);
  CHECK(r2.late_games.size() == 3);  // returned once, for the next step's window (test_trainer_late_games)
  for (const auto& g : r2.games) CHECK(g.record.iteration == 2);
  CHECK(log.text().find("late game file") != std::string::npos);
  // Seen once: a third collection does not count them again.
  c.RememberClosed(2, {}, 2);
  WriteGames(run, 3, 0, 0, 2, 7);
  CHECK(c.Collect(3, nullptr).late == 2);  // iteration 2's own files were not declared: now late (once)
  WriteGames(run, 4, 0, 0, 2, 7);
  CHECK(c.Collect(4, nullptr).late == 0);
}

TEST_CASE("the stop flag ends the wait") {
  RunLayout run(FreshTestDir("collect_stop"));
  GameCollector c(run, Settings(3, 3, 60));
  std::atomic<bool> stop{true};
  CollectionResult r = c.Collect(1, &stop);
  CHECK(r.stopped);
}

TEST_CASE("checkpoints are ordered numerically: 1..12 and 99..101 -> latest 101") {
  RunLayout run(FreshTestDir("ckpt_order"));
  MakeDirs(run.checkpoints());
  std::vector<int64_t> want;
  for (int64_t i : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99, 100, 101}) {
    Touch(run.checkpoint(i), "x");
    want.push_back(i);
  }
  Touch(run.checkpoints() + "/weights_it102.pt.tmp.5.0", "x");
  Touch(run.checkpoints() + "/weights_itx.pt", "x");
  auto its = ListCheckpointIterations(run.checkpoints());
  CHECK(its == want);
  CHECK(its.back() == 101);

  SECTION("retention keeps the newest keep_last and every keep_every-th, numerically") {
    auto del = CheckpointsToDelete(its, 3, 5, {101});
    std::vector<int64_t> expect = {1, 2, 3, 4, 6, 7, 8, 9, 11, 12};
    CHECK(del == expect);  // kept: 99, 100, 101 (newest 3) and 5, 10, 100 (multiples of 5)
    auto deleted = ApplyCheckpointRetention(run.checkpoints(), 3, 5, {101});
    CHECK(deleted == expect);
    CHECK(ListCheckpointIterations(run.checkpoints()) == std::vector<int64_t>{5, 10, 99, 100, 101});
  }
  SECTION("the protected iteration survives; keep_every 0 keeps only the newest") {
    CHECK(CheckpointsToDelete({1, 2, 3, 4}, 1, 0, {2}) == std::vector<int64_t>{1, 3});
    CHECK(CheckpointsToDelete({0, 10, 20, 25}, 1, 10, {25}) == std::vector<int64_t>{});
  }
  SECTION("the evaluator's pins survive retention; a bad status file pins none") {
    const std::string status = run.evaluator_status();
    CHECK(EvaluatorPinnedCheckpoints(status).empty());  // no evaluator
    MakeDirs(run.status_dir());
    WriteFileAtomic(status, R"({"state":"waiting","pinned_checkpoints":[0,7,9]})");
    const std::vector<int64_t> pins = EvaluatorPinnedCheckpoints(status);
    CHECK(pins == std::vector<int64_t>{0, 7, 9});
    std::vector<int64_t> protect = pins;
    protect.push_back(101);
    const auto del = CheckpointsToDelete(its, 3, 0, protect);
    for (int64_t kept : {7, 9, 99, 100, 101}) CHECK(std::find(del.begin(), del.end(), kept) == del.end());
    CHECK(std::find(del.begin(), del.end(), 8) != del.end());
    CHECK(del.size() == its.size() - 5);
    for (const char* bad : {R"({"pinned_checkpoints":"7"})", R"({"pinned_checkpoints":[7,"x"]})", "{not json",
                            R"({"state":"waiting"})", R"({"format_version":2,"pinned_checkpoints":[7]})"}) {
      INFO(bad);
      WriteFileAtomic(status, bad);
      CHECK(EvaluatorPinnedCheckpoints(status).empty());
    }
  }
}

TEST_CASE("generations.jsonl tolerates a torn last line and the time table is numeric") {
  RunLayout run(FreshTestDir("genlog"));
  for (int64_t it : {9, 10, 100, 2}) {
    nlohmann::json r = {{"iteration", it}, {"selfplay_s", 60.0 * it}, {"training_s", 1.5},
                        {"total_s", 60.0 * it + 1.5}, {"games_used", 4}, {"games_by_stall_timeout", it == 10}};
    AppendGenerationRecord(run.generations(), r);
  }
  // A kill mid-append leaves a torn line ...
  {
    std::ofstream out(run.generations(), std::ios::app);
    out << "{\"iteration\": 101, \"selfplay";
  }
  GenerationLog log = ReadGenerationLog(run.generations());
  CHECK(log.bad_lines == 1);
  REQUIRE(log.records.size() == 4);
  CHECK(log.records[0]["iteration"] == 2);
  CHECK(log.records[3]["iteration"] == 100);
  // ... and the next append starts on a fresh line.
  AppendGenerationRecord(run.generations(), {{"iteration", 101}, {"selfplay_s", 1.0}});
  log = ReadGenerationLog(run.generations());
  CHECK(log.bad_lines == 1);
  REQUIRE(log.records.size() == 5);
  CHECK(log.records.back()["iteration"] == 101);

  std::ostringstream table;
  PrintTimeTable(log.records, 3, table);
  std::string t = table.str();
  size_t p10 = t.find("\n       10 "), p100 = t.find("\n      100 "), p101 = t.find("\n      101 ");
  CHECK(p10 != std::string::npos);
  CHECK(p100 != std::string::npos);
  CHECK(p101 != std::string::npos);
  CHECK(p10 < p100);
  CHECK(p100 < p101);
  CHECK(t.find("\n        9 ") == std::string::npos);  // only the last 3
  CHECK(t.find("600.0") != std::string::npos);          // iteration 10 self-play seconds
}

TEST_CASE("trainer state and game manifests round-trip; broken ones read as absent") {
  std::string dir = FreshTestDir("state_files");
  TrainerState s;
  s.trained_iteration = 12;
  s.optimizer_file = "optimizer_it12.pt";
  s.record = {{"iteration", 12}, {"selfplay_s", 3.5}};
  WriteTrainerState(dir + "/state.json", s);
  auto back = ReadTrainerState(dir + "/state.json");
  REQUIRE(back);
  CHECK(back->trained_iteration == 12);
  CHECK(back->optimizer_file == "optimizer_it12.pt");
  CHECK(back->record["selfplay_s"] == 3.5);
  CHECK_FALSE(ReadTrainerState(dir + "/missing.json"));
  Touch(dir + "/torn.json", "{\"trained_iteration\": 1");
  CHECK_FALSE(ReadTrainerState(dir + "/torn.json"));

  GameManifest m;
  m.iteration = 3;
  m.used = {"w0_g0.npz", "w1_g0.npz"};
  m.ignored = {"w2_g0.npz"};
  m.late = {{2, "w3_g1.npz", 1, 17}};
  m.late_aged_out = {{1, "w4_g0.npz", 0, 9}};
  m.late_ignored = {{2, "w5_g2.npz", 1, 0}};
  m.run_positions = 123;
  m.run_never_trained = 9;
  WriteGameManifest(dir + "/games_it3.json", m);
  auto mb = ReadGameManifest(dir + "/games_it3.json");
  REQUIRE(mb);
  CHECK(mb->iteration == 3);
  CHECK(mb->used == m.used);
  CHECK(mb->ignored == m.ignored);
  CHECK(mb->late == m.late);
  CHECK(mb->late_aged_out == m.late_aged_out);
  CHECK(mb->late_ignored == m.late_ignored);
  CHECK(mb->run_positions == 123);
  CHECK(mb->run_never_trained == 9);
  // A manifest written before late games were kept reads with empty lists.
  WriteFileAtomic(dir + "/games_it1.json", R"({"iteration":1,"used":["x.npz"],"ignored":[]})");
  auto old = ReadGameManifest(dir + "/games_it1.json");
  REQUIRE(old);
  CHECK(old->used == std::vector<std::string>{"x.npz"});
  CHECK(old->late.empty());
  CHECK(old->run_positions == 0);
}

TEST_CASE("the trainer's records carry format_version; a newer one is refused, naming the file and version") {
  RunLayout run(FreshTestDir("record_versions"));
  AppendGenerationRecord(run.generations(), {{"iteration", 1}});
  CHECK(ReadGenerationLog(run.generations()).records.at(0)["format_version"] == kGenerationRecord.version);
  AppendLine(run.generations(), R"({"format_version": 2, "iteration": 2})");
  try {
    ReadGenerationLog(run.generations());
    FAIL("a newer generations.jsonl record was read");
  } catch (const IoError& e) {
    RequireContainsAll(e.what(), {run.generations(), "(record 2)", "generations.jsonl record has format_version 2",
                                  "this build reads version 1"});
  }

  const std::string dir = FreshTestDir("record_versions_trainer");
  WriteTrainerState(dir + "/state.json", TrainerState{});
  WriteGameManifest(dir + "/games_it1.json", GameManifest{});
  for (const auto& [file, name] : {std::pair<std::string, std::string>{"state.json", "trainer state"},
                                   {"games_it1.json", "game manifest"}}) {
    const std::string path = dir + "/" + file;
    nlohmann::json j = nlohmann::json::parse(ReadFileOrThrow(path));
    CHECK(j["format_version"] == 1);
    j["format_version"] = 2;
    WriteFileAtomic(path, j.dump());
    try {
      if (file == "state.json") ReadTrainerState(path);
      else ReadGameManifest(path);
      FAIL("a newer " << name << " was read");
    } catch (const IoError& e) {
      RequireContainsAll(e.what(), {path, name + " has format_version 2"});
    }
  }
}

TEST_CASE("abandoned temp files are removed once old enough; game files and fresh temp files stay") {
  // What a worker killed mid-write leaves: "<name>.npz.tmp.<pid>.<n>" (AtomicWrite).
  namespace fs = std::filesystem;
  RunLayout run(FreshTestDir("temp_cleanup"));
  WriteGames(run, 1, 0, 0, 2, 9);
  const std::string dir = run.games_for(1);
  const std::string old_tmp = dir + "/g_w0_000099.npz.tmp.4242.0", fresh_tmp = dir + "/g_w0_000098.npz.tmp.4243.1";
  for (const auto& p : {old_tmp, fresh_tmp}) {
    std::ofstream(p) << "half a game";
  }
  fs::last_write_time(old_tmp, fs::file_time_type::clock::now() - std::chrono::seconds(120));
  const std::vector<std::string> games_before = ListGameFiles(dir);
  REQUIRE(games_before.size() == 2);
  CHECK(RemoveAbandonedTempFiles(dir, 60.0) == 1);
  CHECK_FALSE(fs::exists(old_tmp));
  CHECK(fs::exists(fresh_tmp));
  CHECK(ListGameFiles(dir) == games_before);
  CHECK(RemoveAbandonedTempFiles(dir, 60.0) == 0);       // the fresh one is not abandoned yet
  CHECK(RemoveAbandonedTempFiles(dir + "/missing", 60.0) == 0);  // no directory: nothing to do
}
