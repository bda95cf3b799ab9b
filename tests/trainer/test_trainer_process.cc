// build/bin/trainer as a child process: cold start, a full iteration with
// overproduction and a corrupt file, the stall timeout, publishing order with
// a server that delays its ack / refuses, resume after kill -9, timetable.
#include <sys/stat.h>

#include <cstdio>
#include <mutex>
#include <random>

#include "common/net/checkpoint.h"
#include "common/net/net_api.h"
#include "tests/trainer/fake_infer_server.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/generation_log.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

using namespace gz;
using namespace gz::testing;

namespace {

ino_t Inode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

std::string RunCapture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

}  // namespace

TEST_CASE("cold start, one full iteration, overproduction, corrupt file, timetable") {
  auto [dir, run, c] = TinyTrainerRun("proc_cold");
  c.run.max_iterations = 2;
  c.server.socket = dir + "/sock/none.sock";  // no server: workers load weights themselves
  c.Set("mcts.fpu_reduction", "0.35", "test");  // a play setting the checkpoints must carry
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_cold");

  TrainerProcess p({"--config", cfg, "--set", "run.progress_log_s=0.1"}, log);
  // Cold start publishes generation 0 and iteration 1 before any game exists.
  REQUIRE(WaitUntil([&] { return MetadataIteration(run) == 1; }));
  auto meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  CHECK(meta->model_generation == 0);
  CHECK(meta->weights == run.checkpoint(0));
  CHECK(meta->config["run"]["target_games"] == 4);
  CHECK(meta->config["run"]["worker_games_per_worker"] == 4);
  CHECK(meta->config["board"]["size"] == 7);
  CHECK(meta->config["mcts"]["simulations"] == c.mcts.simulations);
  CHECK(meta->config == Config::FromJson(meta->config, "metadata").ToJson());  // a full, valid config
  CHECK(FileExists(run.config()));
  CHECK(Config::FromJson(nlohmann::json::parse(Slurp(run.config())), "config.json").run.target_games == 4);
  REQUIRE(WaitUntil([&] { return Slurp(log).find("waiting for workers: 0/4 games") != std::string::npos; }));

  // Workers: 6 games (target 4) and a truncated file appear at once: the
  // staged directory replaces the (empty) games/it1 with one rename(2).
  const RunLayout stage(FreshTestDir("proc_cold_stage"));
  WriteGames(stage, 1, 0, 0, 6, 7);
  std::string good = Slurp(stage.game_file(1, 0, 0));
  WriteFileAtomic(stage.game_file(1, 9, 0), good.substr(0, good.size() - 7));
  REQUIRE(std::filesystem::is_empty(run.games_for(1)));
  std::filesystem::rename(stage.games_for(1), run.games_for(1));
  REQUIRE(WaitUntil([&] { return MetadataIteration(run) == 2; }));
  WriteGames(run, 2, 0, 0, 4, 7);
  REQUIRE(p.Wait() == 0);

  const std::string text = Slurp(log);
  CHECK(text.find("effective config") != std::string::npos);
  CHECK(text.find("cold start: created generation-0 weights") != std::string::npos);
  CHECK(text.find("self-play started: iteration 1") != std::string::npos);
  CHECK(text.find("games collected: 6 games for iteration 1") != std::string::npos);
  CHECK(text.find("skipping corrupt game file") != std::string::npos);
  CHECK(text.find("training done: iteration 1") != std::string::npos);
  CHECK(text.find("inference server not running") != std::string::npos);
  CHECK(text.find("reached run.max_iterations = 2") != std::string::npos);
  // Publishing order in the log: checkpoint, then metadata.
  size_t saved = text.find("checkpoint saved: iteration 1"), published = text.find("metadata published: iteration 2");
  REQUIRE(saved != std::string::npos);
  REQUIRE(published != std::string::npos);
  CHECK(saved < published);

  meta = ReadMetadata(run.metadata());
  CHECK(meta->iteration == 3);
  CHECK(meta->weights == run.checkpoint(2));
  CHECK(meta->model_generation == 2);
  CheckpointInfo info;
  LoadCheckpoint(run.checkpoint(2), {7, 8, 1}, &info);
  CHECK(info.iteration == 2);
  CHECK(info.model_generation == 2);
  // The trained checkpoint carries the run's play settings, and the engine
  // plays with them without a flag (docs/engine.md "Search settings"); an
  // explicit --set still wins.
  CHECK(info.play == c.PlaySettings());
  REQUIRE(std::stod(info.play.at("mcts.fpu_reduction")) == Approx(0.35));
  const std::string engine_log = dir + "/../proc_cold_engine.log";
  const std::string engine = std::string(GZ_BIN_DIR) + "/pbrain-gomoku-zero --weights " + run.checkpoint(2);
  std::remove(engine_log.c_str());
  CHECK(ShellStatus("echo END | " + engine + " --log-file " + engine_log + " >/dev/null 2>&1") == 0);
  const std::string settings = Slurp(engine_log);
  CHECK_THAT(settings, Catch::Contains("mcts.fpu_reduction=0.35 (checkpoint " + run.checkpoint(2) + ")"));
  CHECK_THAT(settings, Catch::Contains("mcts.solver=false (checkpoint "));  // the run's, not the engine's default
  std::remove(engine_log.c_str());
  CHECK(ShellStatus("echo END | " + engine + " --set mcts.fpu_reduction=0.5 --log-file " + engine_log +
                    " >/dev/null 2>&1") == 0);
  CHECK_THAT(Slurp(engine_log), Catch::Contains("mcts.fpu_reduction=0.5 (--set)"));

  GenerationLog gl = ReadGenerationLog(run.generations());
  CHECK(gl.bad_lines == 0);
  REQUIRE(gl.records.size() == 2);
  const auto& r1 = gl.records[0];
  CHECK(r1["iteration"] == 1);
  CHECK(r1["games_used"] == 6);
  CHECK(r1["corrupt_games"] == 1);
  CHECK(r1["games_by_stall_timeout"] == false);
  for (const char* key : {"start", "end", "selfplay_s", "training_s", "total_s", "samples", "entropy",
                          "value_accuracy", "avg_game_length", "games_per_min", "late_games", "stale_games"})
    CHECK(r1.contains(key));
  CHECK(r1["losses"].contains("policy"));
  CHECK(r1["losses"].contains("value"));
  CHECK(r1["losses"].contains("total"));
  CHECK(r1["samples"].get<int64_t>() > 0);
  CHECK(r1["reload"]["acknowledged"] == false);
  CHECK(gl.records[1]["window_iterations"] == nlohmann::json::array({1, 2}));

  std::string table = RunCapture(std::string(GZ_BIN_DIR) + "/trainer timetable --run-dir " + dir + " --last 5");
  CHECK(table.find("self-play") != std::string::npos);
  CHECK(table.find("\n        1 ") != std::string::npos);
  CHECK(table.find("\n        2 ") != std::string::npos);
}

TEST_CASE("stall timeout: fewer games than the target are trained on after a WARNING") {
  auto [dir, run, c] = TinyTrainerRun("proc_stall");
  c.run.max_iterations = 1;
  c.run.target_games = 5;
  c.run.min_games = 2;
  c.run.stall_timeout_s = 1.0;
  c.server.socket = dir + "/sock/none.sock";
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_stall");
  WriteGames(run, 1, 3, 0, 2, 7);  // games may exist before the trainer starts
  TrainerProcess p({"--config", cfg}, log);
  REQUIRE(p.Wait() == 0);
  const std::string text = Slurp(log);
  CHECK(text.find("[warning] stall timeout: no new game for") != std::string::npos);
  CHECK(text.find("2/5 games for iteration 1; training on the 2 games at hand") != std::string::npos);
  CHECK(text.find("games collected: 2 games for iteration 1") != std::string::npos);
  GenerationLog gl = ReadGenerationLog(run.generations());
  REQUIRE(gl.records.size() == 1);
  CHECK(gl.records[0]["games_by_stall_timeout"] == true);
  CHECK(gl.records[0]["games_used"] == 2);
}

TEST_CASE("metadata for N+1 appears only after the server acknowledged the reload") {
  auto [dir, run, c] = TinyTrainerRun("proc_reload");
  c.run.max_iterations = 2;
  c.train.reload_timeout_s = 30;
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_reload");

  struct Seen {
    std::string weights;
    int64_t iteration_at_request = 0;
    int64_t max_iteration_during_delay = 0;
  };
  std::mutex mu;
  std::vector<Seen> seen;
  FakeInferServer server(c.server.socket, [&](const std::string& weights) -> int64_t {
    Seen s;
    s.weights = weights;
    s.iteration_at_request = MetadataIteration(run);
    // Hold the ack for 1.5 s and watch metadata.json all the while.
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    while (std::chrono::steady_clock::now() < end) {
      s.max_iteration_during_delay = std::max(s.max_iteration_during_delay, MetadataIteration(run));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(s);
    return 1000 + static_cast<int64_t>(seen.size()) - 1;  // 1000 for it0, 1001 for it1, ...
  });
  FakeWorkers workers(run, 7, 4);
  TrainerProcess p({"--config", cfg}, log);
  REQUIRE(p.Wait() == 0);

  CHECK(workers.read_failures() == 0);
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(seen.size() == 3);  // it0 (cold start), it1, it2
  for (size_t i = 0; i < seen.size(); ++i) {
    INFO("reload of " << seen[i].weights);
    CHECK(seen[i].weights == run.checkpoint(static_cast<int64_t>(i)));
    // Before the ack metadata still announces iteration i (0 = no metadata yet at cold start) ...
    CHECK(seen[i].iteration_at_request == static_cast<int64_t>(i));
    CHECK(seen[i].max_iteration_during_delay == static_cast<int64_t>(i));
  }
  // ... and after it, iteration i+1 with the server's generation.
  auto meta = ReadMetadata(run.metadata());
  CHECK(meta->iteration == 3);
  CHECK(meta->model_generation == 1002);
  GenerationLog gl = ReadGenerationLog(run.generations());
  REQUIRE(gl.records.size() == 2);
  CHECK(gl.records[0]["model_generation"] == 1001);
  CHECK(gl.records[0]["reload"]["acknowledged"] == true);
  CHECK(gl.records[0]["server"]["avg_batch"] == 3.5);
  CHECK(gl.records[1]["server"]["requests_per_s"] == 123.0);
  const std::string text = Slurp(log);
  CHECK(text.find("inference server acknowledged the reload") != std::string::npos);
  CHECK(text.find("inference server not running") == std::string::npos);
}

TEST_CASE("a server that refuses the new weights stops publishing") {
  auto [dir, run, c] = TinyTrainerRun("proc_refuse");
  c.run.max_iterations = 3;
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_refuse");
  FakeInferServer server(c.server.socket, [&](const std::string& weights) -> int64_t {
    return weights == run.checkpoint(1) ? -1 : 7;
  });
  FakeWorkers workers(run, 7, 4);
  TrainerProcess p({"--config", cfg}, log);
  CHECK(p.Wait() == 1);
  auto meta = ReadMetadata(run.metadata());
  CHECK(meta->iteration == 1);  // never advanced to the refused weights
  CHECK(meta->weights == run.checkpoint(0));
  CHECK(meta->model_generation == 7);
  CHECK(FileExists(run.checkpoint(1)));
  CHECK(Slurp(log).find("refused to load") != std::string::npos);
}

namespace {

// What a run of `iterations` iterations that was killed and resumed must
// look like at its end (FakeInferServer acknowledging generation 500 + N for
// weights_itN): one cold start, generation 0 never recreated (same inode),
// metadata for the next iteration, every checkpoint loadable and tagged, and
// each iteration logged once, in order, with its acknowledged generation.
void CheckResumedRun(const RunLayout& run, const std::string& log_text, int64_t iterations, ino_t it0) {
  CHECK(Count(log_text, "cold start: created generation-0 weights") == 1);
  CHECK(Inode(run.checkpoint(0)) == it0);
  auto meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  CHECK(meta->iteration == iterations + 1);
  CHECK(meta->weights == run.checkpoint(iterations));
  CHECK(meta->model_generation == 500 + iterations);
  for (int64_t i = 0; i <= iterations; ++i) {
    CheckpointInfo info;
    CHECK_NOTHROW(LoadCheckpoint(run.checkpoint(i), {7, 8, 1}, &info));
    CHECK(info.iteration == i);
  }
  GenerationLog gl = ReadGenerationLog(run.generations());
  std::vector<int64_t> its, want;
  for (const auto& r : gl.records) its.push_back(r["iteration"].get<int64_t>());
  for (int64_t i = 1; i <= iterations; ++i) want.push_back(i);
  CHECK(its == want);
  for (const auto& r : gl.records) CHECK(r["model_generation"] == 500 + r["iteration"].get<int64_t>());
}

}  // namespace

TEST_CASE("kill -9 at random points: the trainer resumes, never starts over") {
  auto [dir, run, c] = TinyTrainerRun("proc_resume");
  c.run.max_iterations = 5;
  c.train.keep_last = 10;
  c.train.train_batches = 20;
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_resume");
  // The server acknowledges after 300 ms, which opens a window between
  // "checkpoint saved" and "metadata published" to kill the trainer in.
  FakeInferServer server(c.server.socket, AckAsIterationPlus500After(300));
  FakeWorkers workers(run, 7, 4);
  std::mt19937_64 rng(12345);
  struct KillPoint {
    std::string after;  // kill once this log line appears (in this process's output) ...
    int max_delay_ms;   // ... plus a random delay up to this
  };
  const std::vector<KillPoint> points = {{"training started: iteration 2", 40},
                                         {"checkpoint saved: iteration 3", 100},
                                         {"metadata published: iteration 4", 3},
                                         {"self-play started: iteration 5", 30}};
  ino_t it0 = 0;
  int kills = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const size_t offset = Slurp(log).size();
    TrainerProcess p({"--config", cfg}, log);
    REQUIRE(WaitUntil(
        [&] { return Slurp(log).find(points[i].after, offset) != std::string::npos || p.Poll().has_value(); }));
    if (it0 == 0) it0 = Inode(run.checkpoint(0));
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (points[i].max_delay_ms + 1)));
    if (p.Poll().has_value()) continue;  // finished on its own
    p.Kill();
    ++kills;
    if (i == 2) std::ofstream(run.generations(), std::ios::app) << "{\"iteration\": 9";  // a torn last line
  }
  CHECK(kills == static_cast<int>(points.size()));
  CHECK(workers.read_failures() == 0);  // metadata.json was always complete, even across kill -9
  TrainerProcess last({"--config", cfg}, log);
  REQUIRE(last.Wait() == 0);

  const std::string text = Slurp(log);
  CHECK(Count(text, "resuming run at iteration") == static_cast<size_t>(kills));
  CHECK(text.find("had finished training before the restart") != std::string::npos);  // killed awaiting the ack
  CheckResumedRun(run, text, 5, it0);
  CHECK(ReadGenerationLog(run.generations()).bad_lines == 1);
}

namespace {

// A fresh run `name` of one iteration whose server socket does not exist:
// its directory, config file and (emptied) log path.
struct NoServerRun {
  std::string dir, cfg, log;
};
NoServerRun MakeNoServerRun(const std::string& name) {
  NoServerRun r;
  r.dir = FreshTestDir(name);
  Config c = TinyConfig(r.dir);
  c.run.max_iterations = 1;
  c.server.socket = r.dir + "/sock/none.sock";
  r.cfg = WriteConfigFile(c, FreshTestDir(name + "_cfg") + "/c.json");
  r.log = r.dir + "/../" + name + ".log";
  std::remove(r.log.c_str());
  return r;
}

}  // namespace

TEST_CASE("SIGTERM while waiting stops cleanly; a restart resumes the same iteration") {
  const auto [dir, cfg, log] = MakeNoServerRun("proc_sigterm");
  RunLayout run(dir);
  {
    TrainerProcess p({"--config", cfg}, log);
    REQUIRE(WaitUntil([&] { return Slurp(log).find("waiting for workers: 0/4 games") != std::string::npos; }));
    p.Signal(SIGTERM);
    CHECK(p.Wait() == 0);
  }
  CHECK(Slurp(log).find("stop requested; leaving iteration 1 unfinished") != std::string::npos);
  CHECK(MetadataIteration(run) == 1);
  WriteGames(run, 1, 0, 0, 4, 7);
  TrainerProcess again({"--config", cfg}, log);
  CHECK(again.Wait() == 0);
  CHECK(Slurp(log).find("resuming run at iteration 1") != std::string::npos);
  CHECK(MetadataIteration(run) == 2);
}

TEST_CASE("resume never starts over: missing weights named by metadata are a fatal error") {
  const auto [dir, cfg, log] = MakeNoServerRun("proc_missing");
  RunLayout run(dir);
  WriteGames(run, 1, 0, 0, 4, 7);
  {
    TrainerProcess p({"--config", cfg}, log);
    REQUIRE(p.Wait() == 0);
  }
  REQUIRE(MetadataIteration(run) == 2);
  std::filesystem::remove(run.checkpoint(1));  // the weights metadata.json names
  const ino_t it0 = Inode(run.checkpoint(0));
  TrainerProcess again({"--config", cfg, "--set", "run.max_iterations=2"}, log);
  CHECK(again.Wait() == 1);
  CHECK(Slurp(log).find("refusing to start the run from scratch") != std::string::npos);
  CHECK(Inode(run.checkpoint(0)) == it0);
  CHECK(MetadataIteration(run) == 2);
}

TEST_CASE("a kill between metadata.json and its generations.jsonl line: the restart restores the line whole") {
  auto [dir, run, c] = TinyTrainerRun("proc_lost_line");
  c.run.max_iterations = 2;
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_lost_line");
  FakeInferServer server(c.server.socket, AckAsIterationPlus500);
  FakeWorkers workers(run, 7, 4);
  {
    TrainerProcess p({"--config", cfg}, log);
    REQUIRE(p.Wait() == 0);
  }
  REQUIRE(MetadataIteration(run) == 3);
  // The state a kill right after WriteMetadata leaves: iteration 2 published,
  // its generations.jsonl line never appended.
  const std::string lines = Slurp(run.generations());
  const size_t last = lines.rfind('\n', lines.size() - 2);
  REQUIRE(last != std::string::npos);
  WriteFileAtomic(run.generations(), lines.substr(0, last + 1));
  REQUIRE(ReadGenerationLog(run.generations()).records.size() == 1);

  TrainerProcess again({"--config", cfg, "--set", "run.max_iterations=3"}, log);
  REQUIRE(again.Wait() == 0);
  CHECK(Slurp(log).find("restored the missing record of iteration 2") != std::string::npos);
  GenerationLog gl = ReadGenerationLog(run.generations());
  REQUIRE(gl.records.size() == 3);
  CHECK(gl.records[1]["iteration"] == 2);
  CHECK(gl.records[1]["recovered_after_restart"] == true);
  CHECK(gl.records[1]["model_generation"] == 502);  // the generation metadata.json announced
  CHECK(gl.records[1]["games_used"] == 4);
  for (const auto& r : gl.records) CHECK(r["model_generation"] == 500 + r["iteration"].get<int64_t>());
}

TEST_CASE("kill -9 at 20 random moments: the run resumes with every invariant intact") {
  // Unlike the test above, the kills are not aimed at log lines: each start
  // is killed after a uniformly random 0-1.5 s, so they land anywhere (loading,
  // collecting, training, saving a checkpoint, waiting for the ack, writing
  // metadata or the generation log).
  auto [dir, run, c] = TinyTrainerRun("proc_random_kills");
  // The killed starts can never reach the end of the run (at most 20 x 1.5 s
  // of running), so every one of the 20 starts is killed however fast the
  // machine is; the last start then finishes two iterations past where the
  // kills left the run.
  c.run.max_iterations = 100000;
  c.train.keep_last = 1000;
  c.train.train_batches = 300;  // about 0.5 s of training per iteration
  const auto [cfg, log] = WriteTrainerFiles(c, "proc_random_kills");
  FakeInferServer server(c.server.socket, AckAsIterationPlus500After(100));
  FakeWorkers workers(run, 7, 4);
  std::mt19937_64 rng(20261130);
  ino_t it0 = 0;
  int kills = 0;
  for (int i = 0; i < 20; ++i) {
    TrainerProcess p({"--config", cfg}, log);
    if (i == 0) {  // the cold start itself is the test above's business
      REQUIRE(WaitUntil([&] { return FileExists(run.checkpoint(0)) || p.Poll().has_value(); }));
      it0 = Inode(run.checkpoint(0));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 1501));
    REQUIRE_FALSE(p.Poll().has_value());  // a trainer that exits on its own here has failed
    p.Kill();
    ++kills;
    CHECK(Inode(run.checkpoint(0)) == it0);
  }
  CHECK(kills == 20);
  CHECK(workers.read_failures() == 0);  // metadata.json was always complete
  const int64_t last_iteration = std::max<int64_t>(MetadataIteration(run), 0) + 2;
  TrainerProcess last({"--config", cfg, "--set", "run.max_iterations=" + std::to_string(last_iteration)}, log);
  REQUIRE(last.Wait() == 0);
  CheckResumedRun(run, Slurp(log), static_cast<int>(last_iteration), it0);  // each iteration once, in order: nothing lost, nothing repeated
  CHECK(ReadGenerationLog(run.generations()).bad_lines <= kills);
  // No temp file is left under a final name, and none is mistaken for a checkpoint.
  for (const auto& e : std::filesystem::directory_iterator(run.checkpoints()))
    if (!IsTempName(e.path().filename().string())) CHECK_NOTHROW(ReadCheckpointInfo(e.path().string()));
}

TEST_CASE("train.init_weights: the run starts from that net; one of another shape is refused by key") {
  const auto [dir, cfg, log] = MakeNoServerRun("proc_init");
  RunLayout run(dir);
  const std::string init = FreshTestDir("proc_init_net") + "/start.pt";
  CreateRandomCheckpoint(init, 7, Rule::kFreestyle, 8, 1, /*seed=*/4242, /*iteration=*/51, /*generation=*/51);
  {
    TrainerProcess p({"--config", cfg, "--set", "train.init_weights=" + init}, log);
    REQUIRE(WaitUntil([&] { return Slurp(log).find("waiting for workers: 0/4 games") != std::string::npos; }));
    p.Signal(SIGTERM);
    CHECK(p.Wait() == 0);
  }
  CHECK_THAT(Slurp(log), Catch::Contains("cold start: generation-0 weights " + run.checkpoint(0) + " are " + init));
  CheckpointInfo info0;
  PolicyValueNet gen0 = LoadCheckpoint(run.checkpoint(0), {}, &info0);
  PolicyValueNet start = LoadCheckpoint(init);
  CHECK(info0.iteration == 0);
  CHECK(info0.model_generation == 0);
  auto a = gen0->named_parameters(), b = start->named_parameters();
  REQUIRE(a.size() == b.size());
  for (const auto& item : a) CHECK(torch::equal(item.value(), b[item.key()]));

  // Another shape: a clear error naming the key, and no run is started.
  const auto [dir2, cfg2, log2] = MakeNoServerRun("proc_init_bad");
  const std::string wide = FreshTestDir("proc_init_bad_net") + "/wide.pt";
  CreateRandomCheckpoint(wide, 7, Rule::kFreestyle, 16, 1, 1, 0, 0);
  TrainerProcess bad({"--config", cfg2, "--set", "train.init_weights=" + wide}, log2);
  CHECK(bad.Wait() != 0);
  CHECK_THAT(Slurp(log2), Catch::Contains("train.init_weights: checkpoint '" + wide +
                                          "' has channels 16 but net.channels is 8"));
  CHECK_FALSE(FileExists(RunLayout(dir2).metadata()));
}
