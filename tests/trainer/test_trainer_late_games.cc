// Late games (docs/trainer.md "Late games"): game files that arrive after
// their iteration closed join the replay window of the next training step as
// games of the iteration they were played for, tagged with their generation;
// the window's rule ages out the old ones; each is used once, and none is
// lost or used twice across kill -9 and restart.
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "common/base/errors.h"
#include "common/game/encoder.h"
#include "tests/support/stop_and_join.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/game_collector.h"
#include "trainer/generation_log.h"
#include "trainer/late_games.h"
#include "trainer/replay_buffer.h"
#include "trainer/trainer_paths.h"
#include "trainer/trainer_state.h"

#include <catch2/catch.hpp>

using namespace gz;
using namespace gz::testing;

namespace {

constexpr int kSize = 7;

CollectSettings Settings(int target) {
  CollectSettings s;
  s.target_games = target;
  s.min_games = 1;
  s.stall_timeout_s = 60;
  s.progress_log_s = 0.1;
  s.poll_interval_s = 0.02;
  s.board_size = kSize;
  s.rule = Rule::kFreestyle;
  return s;
}

// Searched moves of a game file (what it adds to a replay window).
int64_t Positions(const std::string& path) { return LoadGameRecord(path).num_moves(); }

std::set<std::string> Names(const CollectionResult& r) {
  std::set<std::string> s;
  for (const auto& g : r.games) s.insert(g.file);
  return s;
}

// A late game file `name` for `iteration`, played by `generation`.
std::string WriteLate(const RunLayout& run, int64_t iteration, int worker, int index, int64_t generation) {
  MakeDirs(run.games_for(iteration));
  // Lengths vary, so that sample counts tell which games a window holds.
  GameRecord g = RandomGame(kSize, iteration, 777ULL * iteration + 31ULL * worker + index, generation,
                            5 + (worker + index) % 9);
  const std::string path = run.game_file(iteration, worker, index);
  SaveGameRecord(g, path);
  return path.substr(path.rfind('/') + 1);
}

// Every manifest of the run, by iteration.
std::map<int64_t, GameManifest> Manifests(const RunLayout& run, int64_t last) {
  TrainerPaths paths(run);
  std::map<int64_t, GameManifest> out;
  for (int64_t it = 1; it <= last; ++it)
    if (auto m = ReadGameManifest(paths.manifest(it))) out[it] = *m;
  return out;
}

// What the manifests say step n's replay window held: every game counted by
// the iteration it was played for, on-time games of the manifests n-W+1..n
// and late games that a step <= n took for an iteration in n's window.
int64_t ExpectedWindowSamples(const RunLayout& run, const std::map<int64_t, GameManifest>& ms, int64_t n, int w) {
  int64_t total = 0;
  for (const auto& [k, m] : ms) {
    if (k > n) break;
    if (ReplayBuffer::InWindow(k, n, w))
      for (const auto& f : m.used) total += Positions(run.games_for(k) + "/" + f);
    for (const LateEntry& e : m.late)
      if (ReplayBuffer::InWindow(e.iteration, n, w)) total += Positions(run.games_for(e.iteration) + "/" + e.file);
  }
  return total;
}

// Each (iteration, file) named by the manifests, with how many lists name it.
std::map<std::pair<int64_t, std::string>, int> Mentions(const std::map<int64_t, GameManifest>& ms) {
  std::map<std::pair<int64_t, std::string>, int> seen;
  for (const auto& [k, m] : ms) {
    for (const auto& f : m.used) ++seen[{k, f}];
    for (const auto& f : m.ignored) ++seen[{k, f}];
    for (const auto* list : {&m.late, &m.late_aged_out, &m.late_ignored})
      for (const LateEntry& e : *list) ++seen[{e.iteration, e.file}];
  }
  return seen;
}

}  // namespace

TEST_CASE("the replay window counts a late game by the iteration it was played for") {
  // The rule: step - W < iteration <= step; never a newer iteration.
  CHECK(ReplayBuffer::InWindow(5, 5, 2));
  CHECK(ReplayBuffer::InWindow(4, 5, 2));
  CHECK_FALSE(ReplayBuffer::InWindow(3, 5, 2));
  CHECK_FALSE(ReplayBuffer::InWindow(6, 5, 2));
  CHECK_FALSE(ReplayBuffer::InWindow(4, 5, 1));

  const GameRecord a = RandomGame(kSize, 1, 1, 0, 10), b = RandomGame(kSize, 2, 2, 1, 10);
  const GameRecord late1 = RandomGame(kSize, 1, 3, 0, 8), late2 = RandomGame(kSize, 1, 4, 0, 6);
  ReplayBuffer buf(kSize, 2);
  buf.AddIteration(1, {&a});
  buf.AddIteration(2, {&b});
  buf.AppendGames(1, {&late1});  // step 2 took a late game of iteration 1
  CHECK(buf.samples_in(1) == a.num_moves() + late1.num_moves());
  CHECK(buf.samples_in(2) == b.num_moves());
  CHECK(buf.num_samples() == a.num_moves() + late1.num_moves() + b.num_moves());
  // The late samples follow iteration 1's on-time ones, in the order appended.
  std::vector<float> planes(PlaneFloats(kSize)), pol(kSize * kSize);
  float v = 0;
  buf.EncodeSample(a.num_moves(), 0, planes.data(), pol.data(), &v);
  CHECK(std::equal(pol.begin(), pol.end(), late1.policy.begin()));
  CHECK(v == ValueTarget(late1.winner, late1.to_move[0]));
  // Appending never replaces, and an iteration missing from the window is created.
  ReplayBuffer gap(kSize, 3);
  gap.AddIteration(3, {&b});
  gap.AppendGames(2, {&late2});
  CHECK(gap.iterations() == std::vector<int64_t>{2, 3});
  CHECK(gap.samples_in(2) == late2.num_moves());
  // It ages out with iteration 1: step 3's window (W = 2) is 2..3.
  buf.AddIteration(3, {&a});
  CHECK(buf.iterations() == std::vector<int64_t>{2, 3});
  CHECK(buf.num_samples() == b.num_moves() + a.num_moves());
  // A game already older than the window, or newer than its newest iteration, is refused.
  CHECK_THROWS_AS(buf.AppendGames(1, {&late2}), GomokuError);
  CHECK_THROWS_AS(buf.AppendGames(4, {&late2}), GomokuError);
  CHECK(buf.num_samples() == b.num_moves() + a.num_moves());
}

TEST_CASE("late files are vetted against their own iteration and returned once, with their generation") {
  RunLayout run(FreshTestDir("late_collect"));
  WriteGames(run, 1, 0, 0, 2, kSize);
  GameCollector c(run, Settings(2));
  CollectionResult r1 = c.Collect(1, nullptr);
  REQUIRE(r1.games.size() == 2);
  c.RememberClosed(1, Names(r1), 2);
  const std::string l1 = WriteLate(run, 1, 5, 0, 0), l2 = WriteLate(run, 1, 6, 0, 0);
  std::string good = Slurp(run.game_file(1, 0, 0));
  WriteFileAtomic(run.games_for(1) + "/g_w8_000000.npz", good.substr(0, good.size() / 2));  // a corrupt late file
  SaveGameRecord(RandomGame(kSize, 2, 9, 1, 8), run.games_for(1) + "/g_w8_000001.npz");    // tagged 2, in it1: stale
  WriteGames(run, 2, 0, 0, 2, kSize, 1);
  CollectionResult r2 = c.Collect(2, nullptr);
  CHECK(r2.games.size() == 2);  // late games are not iteration 2's games: they do not count for its target
  for (const auto& g : r2.games) CHECK(g.record.iteration == 2);
  CHECK(r2.late == 4);
  REQUIRE(r2.late_games.size() == 2);
  CHECK(r2.late_games[0].iteration == 1);
  CHECK(r2.late_games[0].game.file == l1);
  CHECK(r2.late_games[1].game.file == l2);
  for (const auto& g : r2.late_games) {
    CHECK(g.game.record.iteration == 1);
    CHECK(g.game.record.model_generation == 0);
  }
  CHECK(r2.corrupt == 1);
  CHECK(r2.stale == 1);
  CHECK(r2.late_ignored.size() == 2);
  // Seen once: the next wait does not return them again, but a new one it does.
  c.RememberClosed(2, Names(r2), 2);
  const std::string l3 = WriteLate(run, 2, 5, 0, 1);
  WriteGames(run, 3, 0, 0, 2, kSize, 2);
  CollectionResult r3 = c.Collect(3, nullptr);
  CHECK(r3.late == 1);
  REQUIRE(r3.late_games.size() == 1);
  CHECK(r3.late_games[0].iteration == 2);
  CHECK(r3.late_games[0].game.file == l3);
  CHECK(r3.late_games[0].game.record.model_generation == 1);
  // The split for step 3 with W = 2: iteration 2 is in the window, iteration 1 is not.
  std::vector<LateGame> mix = r2.late_games;
  mix.push_back(r3.late_games[0]);
  LateSplit s = SplitLateGames(mix, 3, 2);
  REQUIRE(s.used.size() == 1);
  CHECK(s.used[0]->iteration == 2);
  CHECK(s.aged_out.size() == 2);
  CHECK(s.used_samples == mix[2].game.record.num_moves());
  CHECK(s.aged_out_samples == mix[0].game.record.num_moves() + mix[1].game.record.num_moves());
  const nlohmann::json origins = LateOrigins({ToLateEntry(mix[0]), ToLateEntry(mix[1]), ToLateEntry(mix[2])});
  CHECK(origins == nlohmann::json::parse(R"([{"iteration":1,"model_generation":0,"games":2},
                                             {"iteration":2,"model_generation":1,"games":1}])"));
}

TEST_CASE("the trainer trains on late games in the next step, records them, and ages out the old ones") {
  auto [dir, run, c] = TinyTrainerRun("late_proc");
  c.run.max_iterations = 4;
  c.train.replay_iterations = 2;
  c.server.socket = dir + "/sock/none.sock";  // no server
  const auto [cfg, log] = WriteTrainerFiles(c, "late_proc");
  TrainerProcess p({"--config", cfg}, log);
  auto late_lines = [&] { return Count(Slurp(log), "] late game file "); };

  WriteGames(run, 1, 0, 0, 4, kSize, 0);
  REQUIRE(WaitUntil([&] { return MetadataIteration(run) == 2; }));
  // Step 2 waits for iteration 2; two games of iteration 1 (generation 0) come in late.
  const std::string a = WriteLate(run, 1, 7, 0, 0), b = WriteLate(run, 1, 7, 1, 0);
  REQUIRE(WaitUntil([&] { return late_lines() == 2; }));
  WriteGames(run, 2, 0, 0, 4, kSize, 1);
  REQUIRE(WaitUntil([&] { return MetadataIteration(run) == 3; }));
  // During step 3 (window 2..3): one more of iteration 1 (aged out), one of
  // iteration 2 played by generation 1 (used), and a corrupt late file.
  const std::string aged = WriteLate(run, 1, 7, 2, 0), c2 = WriteLate(run, 2, 7, 0, 1);
  std::string good = Slurp(run.games_for(2) + "/" + c2);
  WriteFileAtomic(run.games_for(2) + "/g_w8_000000.npz", good.substr(0, good.size() - 9));
  REQUIRE(WaitUntil([&] { return late_lines() == 4; }));
  WriteGames(run, 3, 0, 0, 4, kSize, 2);
  REQUIRE(WaitUntil([&] { return MetadataIteration(run) == 4; }));
  WriteGames(run, 4, 0, 0, 4, kSize, 3);
  REQUIRE(p.Wait() == 0);

  const auto ms = Manifests(run, 4);
  REQUIRE(ms.size() == 4);
  REQUIRE(ms.at(2).late.size() == 2);
  CHECK(ms.at(2).late[0] == LateEntry{1, a, 0, Positions(run.games_for(1) + "/" + a)});
  CHECK(ms.at(2).late[1].file == b);
  REQUIRE(ms.at(3).late.size() == 1);
  CHECK(ms.at(3).late[0] == LateEntry{2, c2, 1, Positions(run.games_for(2) + "/" + c2)});
  REQUIRE(ms.at(3).late_aged_out.size() == 1);
  CHECK(ms.at(3).late_aged_out[0].iteration == 1);
  CHECK(ms.at(3).late_aged_out[0].file == aged);
  REQUIRE(ms.at(3).late_ignored.size() == 1);
  CHECK(ms.at(3).late_ignored[0].file == "g_w8_000000.npz");
  for (const auto& [pair, n] : Mentions(ms)) {
    INFO("it" << pair.first << "/" << pair.second);
    CHECK(n == 1);  // each file in exactly one list of one manifest
  }

  GenerationLog gl = ReadGenerationLog(run.generations());
  REQUIRE(gl.records.size() == 4);
  const auto& r2 = gl.records[1];
  const auto& r3 = gl.records[2];
  const auto& r4 = gl.records[3];
  CHECK(r2["late_games"] == 2);
  CHECK(r2["late_games_used"] == 2);
  CHECK(r2["late_games_aged_out"] == 0);
  CHECK(r2["late_samples"] == ms.at(2).late[0].positions + ms.at(2).late[1].positions);
  CHECK(r2["late_from"] == nlohmann::json::parse(R"([{"iteration":1,"model_generation":0,"games":2}])"));
  CHECK(r2["games_used"] == 4);  // iteration 2's own games; the late ones are not counted there
  CHECK(r3["late_games"] == 3);
  CHECK(r3["late_games_used"] == 1);
  CHECK(r3["late_games_aged_out"] == 1);
  CHECK(r3["corrupt_games"] == 1);
  CHECK(r3["late_from"] == nlohmann::json::parse(R"([{"iteration":2,"model_generation":1,"games":1}])"));
  CHECK(r3["aged_out_samples"] == ms.at(3).late_aged_out[0].positions);
  CHECK(r4["late_games"] == 0);
  for (const auto& r : gl.records) {
    const int64_t n = r["iteration"].get<int64_t>();
    INFO("iteration " << n);
    CHECK(r["window_samples"] == ExpectedWindowSamples(run, ms, n, 2));
  }
  // The late game of iteration 2 left the window with iteration 2.
  CHECK(r4["window_iterations"] == nlohmann::json::array({3, 4}));
  // Every usable position received, and exactly the aged-out one never trained on.
  int64_t received = 0;
  for (const auto& [k, m] : ms) {
    for (const auto& f : m.used) received += Positions(run.games_for(k) + "/" + f);
    for (const auto* list : {&m.late, &m.late_aged_out})
      for (const LateEntry& e : *list) received += Positions(run.games_for(e.iteration) + "/" + e.file);
  }
  CHECK(r4["run_samples"] == received);
  CHECK(r4["run_samples_never_trained"] == ms.at(3).late_aged_out[0].positions);
  CHECK(r4["never_trained_share"].get<double>() ==
        Approx(static_cast<double>(ms.at(3).late_aged_out[0].positions) / received));
  CHECK(r2["never_trained_share"] == 0.0);
  const std::string text = Slurp(log);
  CHECK(text.find("iteration 3: 3 late game files of closed iterations: 1 joined the replay window") !=
        std::string::npos);
  CHECK(text.find("self-play samples never trained on: " + std::to_string(ms.at(3).late_aged_out[0].positions) +
                  " of ") != std::string::npos);
}

TEST_CASE("kill -9 at random moments: each late game is used once, none is lost, the window is rebuilt with them") {
  auto [dir, run, c] = TinyTrainerRun("late_kills");
  c.run.max_iterations = 100000;  // the killed starts never reach the end
  c.train.keep_last = 1000;
  c.train.train_batches = 200;
  // W = 3: late games of M-1 and M-2 taken by step M are still in the window
  // of step M+1, so a restart after M must rebuild them into it.
  constexpr int kW = 3;
  c.train.replay_iterations = kW;
  c.server.socket = dir + "/sock/none.sock";
  const auto [cfg, log] = WriteTrainerFiles(c, "late_kills");

  // The workers: whenever iteration M is announced, stragglers first deliver
  // a game of M-1 and one of M-2 (in the window of step M) and one of M-3
  // (aged out at step M), then 4 games of M arrive (so step M always sees the
  // stragglers).
  // Nothing is written for an iteration past `max_m`.
  std::mutex mu;
  std::set<std::pair<int64_t, std::string>> late_written;
  std::atomic<bool> stop_workers{false};
  std::atomic<int64_t> max_m{INT64_MAX};
  std::thread workers([&] {
    int64_t last = 0;
    while (!stop_workers) {
      int64_t m = 0, gen = 0;
      try {
        if (auto md = ReadMetadata(run.metadata())) {
          m = md->iteration;
          gen = md->model_generation;
        }
      } catch (const std::exception&) {
      }
      if (m > last && m <= max_m) {
        for (int64_t it : {m - 1, m - 2, m - 3}) {
          if (it < 1) continue;
          const std::string f = WriteLate(run, it, 9, static_cast<int>(m), std::max<int64_t>(it - 1, 0));
          std::lock_guard<std::mutex> lock(mu);
          late_written.insert({it, f});
        }
        WriteGames(run, m, 0, 0, 4, kSize, gen);
        last = m;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  StopAndJoin join_at_exit{stop_workers, workers};  // also when a REQUIRE throws
  std::mt19937_64 rng(20261201);
  // Ten kills at random moments.  The odd starts die anywhere, restore and
  // start-up included; each even start is killed only after it has published
  // one iteration of its own (then at a random moment of the next one), so
  // the run moves on by at least five iterations however fast the machine is
  // and the invariants below always have restarts after late games to judge.
  constexpr int kKills = 10;
  for (int i = 0; i < kKills; ++i) {
    const int64_t before = MetadataIteration(run);
    TrainerProcess p({"--config", cfg}, log);
    if (i == 0) REQUIRE(WaitUntil([&] { return FileExists(run.checkpoint(0)) || p.Poll().has_value(); }));
    if (i % 2 == 0) {
      INFO("start " << i << " from iteration " << before);
      REQUIRE(WaitUntil([&] { return MetadataIteration(run) > before || p.Poll().has_value(); }, 120.0));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 1501));
    REQUIRE_FALSE(p.Poll().has_value());
    p.Kill();
  }
  const int64_t reached = MetadataIteration(run);
  REQUIRE(reached >= kKills / 2);
  // The last start ends two steps on; nothing is written past its last
  // iteration, so every late file written is due in one of its manifests.
  const int64_t final_it = reached + 2;
  max_m = final_it;
  TrainerProcess last({"--config", cfg, "--set", "run.max_iterations=" + std::to_string(final_it)}, log);
  const int rc = last.Wait();
  stop_workers = true;
  workers.join();
  REQUIRE(rc == 0);

  const auto ms = Manifests(run, final_it);
  REQUIRE(static_cast<int64_t>(ms.size()) == final_it);
  const auto mentions = Mentions(ms);
  int used_late = 0, aged_late = 0;
  for (const auto& [k, m] : ms) {
    used_late += static_cast<int>(m.late.size());
    aged_late += static_cast<int>(m.late_aged_out.size());
    for (const LateEntry& e : m.late) {
      INFO("step " << k << " took " << e.file << " of iteration " << e.iteration);
      CHECK(ReplayBuffer::InWindow(e.iteration, k, kW));  // never a newer iteration's game, never an aged one
      CHECK(e.iteration < k);
      const GameRecord g = LoadGameRecord(run.games_for(e.iteration) + "/" + e.file);
      CHECK(g.iteration == e.iteration);
      CHECK(g.model_generation == e.model_generation);  // tagged with the generation that played it
    }
    for (const LateEntry& e : m.late_aged_out) CHECK_FALSE(ReplayBuffer::InWindow(e.iteration, k, kW));
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    // At least the stragglers announced by iterations 2..final_it (1 + 2 + 3 + 3 ...).
    REQUIRE(static_cast<int64_t>(late_written.size()) >= 3 * final_it - 6);
    for (const auto& key : late_written) {
      INFO("late file it" << key.first << "/" << key.second);
      auto it = mentions.find(key);
      CHECK(it != mentions.end());              // never lost
      if (it != mentions.end()) CHECK(it->second == 1);  // never used twice
    }
  }
  for (const auto& [key, n] : mentions) {
    INFO("it" << key.first << "/" << key.second);
    CHECK(n == 1);
  }
  CHECK(used_late > 0);
  CHECK(aged_late > 0);

  // Every step's window, however many restarts lay before it, is what the
  // manifests say; the ledger counted every received sample exactly once.
  GenerationLog gl = ReadGenerationLog(run.generations());
  int checked = 0;
  for (const auto& r : gl.records) {
    if (!r.contains("window_samples")) continue;  // a record restored without its training details
    const int64_t n = r["iteration"].get<int64_t>();
    INFO("iteration " << n);
    CHECK(r["window_samples"] == ExpectedWindowSamples(run, ms, n, kW));
    ++checked;
  }
  CHECK(checked >= 2);
  int64_t received = 0, never = 0;
  for (const auto& [k, m] : ms) {
    for (const auto& f : m.used) received += Positions(run.games_for(k) + "/" + f);
    for (const LateEntry& e : m.late) received += Positions(run.games_for(e.iteration) + "/" + e.file);
    for (const LateEntry& e : m.late_aged_out) {
      received += Positions(run.games_for(e.iteration) + "/" + e.file);
      never += e.positions;
    }
  }
  CHECK(ms.rbegin()->second.run_positions == received);
  CHECK(ms.rbegin()->second.run_never_trained == never);
  const auto& final_record = gl.records.back();
  REQUIRE(final_record["iteration"] == final_it);
  CHECK(final_record["run_samples"] == received);
  CHECK(final_record["run_samples_never_trained"] == never);
}
