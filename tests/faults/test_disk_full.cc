// A full or failing disk under every writer, with the real binaries: worker
// (game files), trainer (checkpoints, metadata.json, generations.jsonl) and
// evaluator (eval/results.jsonl, ratings.jsonl) run under libgz_faultfs.so
// (tests/support/fault_fs.cc), which fails their writes with ENOSPC or EIO
// once the test "fills the disk" (creates the switch file).  Each must stop
// with exit code 1 and a message naming the file and the errno text, leave the
// last good file in place and loadable, leave no temp file and no torn file,
// and, restarted once the space is back, carry on without losing anything.
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "common/base/jsonl.h"
#include "common/net/net_api.h"
#include "tests/faults/fault_test_util.h"
#include "tests/trainer/fake_infer_server.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/generation_log.h"

#include <catch2/catch.hpp>

using namespace gz;
using namespace gz::testing;
using nlohmann::json;

namespace {

std::string ReadOrEmpty(const std::string& path) { return FileExists(path) ? ReadFileOrThrow(path) : ""; }

// The message every writer's failure must carry: the file and the errno text,
// and the shim's own line proving the fault was injected there.
void CheckFailureMessage(const std::string& log, const std::string& file, int err) {
  INFO(log);
  CHECK(Has(log, "gz_faultfs: injected"));
  CHECK(Has(log, "'" + file + "'"));
  CHECK(Has(log, std::strerror(err)));
  CHECK_FALSE(Has(log, "terminate called"));  // an exception escaping a thread would abort
}

}  // namespace

TEST_CASE("disk full under the worker's game files: exit 1 naming the file, games kept, no temp; resumes") {
  const std::string dir = FreshTestDir("df_worker");
  RunLayout layout(dir);
  // A quota the worker cannot reach before the disk fills, however fast it
  // plays: the fill always meets a game file still to be written.
  constexpr int kQuota = 100000;
  PublishUniformRun(dir, 1, kQuota);
  DiskSwitch disk(dir + "/../df_worker.full");
  // 2000 bytes into the next game file once the disk is "full": a game file
  // is larger, so the write fails part-way through it.
  const auto env = FaultFsEnv({layout.games(), "write", "ENOSPC", 2000, disk.path(), 0});
  const std::vector<std::string> args = {"--id", "1", "--set", "run.dir=" + dir, "--set", "worker.poll_interval_s=0.1"};
  std::map<std::string, ino_t> published;
  std::string log_a;
  {
    TestProcess w(BinPath("worker"), args, dir + "/worker_a.out", env, {"GOMOKU_INFER_SOCK"});
    REQUIRE(WaitUntil([&] { return FileExists(layout.game_file(1, 1, 1)) || w.Poll(); }, 120));
    REQUIRE_FALSE(w.Poll());
    disk.Fill();
    REQUIRE(WaitUntil([&] { return w.Poll().has_value(); }, 120));
    CHECK(*w.Poll() == 1);  // stopped cleanly: not a signal, not an abort
    log_a = w.Log();
  }
  for (int k = 0; k < kQuota && FileExists(layout.game_file(1, 1, k)); ++k) {
    const std::string g = layout.game_file(1, 1, k);
    CHECK_NOTHROW(LoadGameRecord(g));  // no torn final file
    published[g] = Inode(g);
  }
  CHECK(published.size() >= 2);
  CHECK_FALSE(FileExists(layout.game_file(1, 1, static_cast<int64_t>(published.size()) + 1)));  // no gap
  // One game at a time (worker.parallel_games 1): the failed one is the next index.
  CheckFailureMessage(log_a, layout.game_file(1, 1, static_cast<int64_t>(published.size())), ENOSPC);
  CHECK(TempFilesUnder(dir).empty());

  // Space is back: the restarted worker goes on where it stopped (two more
  // games past the failed one); nothing published is rewritten.
  disk.Free();
  const int64_t resume_to = static_cast<int64_t>(published.size()) + 1;
  TestProcess w(BinPath("worker"), args, dir + "/worker_b.out", env, {"GOMOKU_INFER_SOCK"});
  REQUIRE(WaitUntil([&] { return FileExists(layout.game_file(1, 1, resume_to)) || w.Poll(); }, 120));
  const std::optional<int> code = w.Terminate(std::chrono::seconds(15));
  CHECK(code == 0);
  for (int64_t k = 0; k <= resume_to; ++k) CHECK(LoadGameRecord(layout.game_file(1, 1, k)).iteration == 1);
  for (const auto& [g, ino] : published) CHECK(Inode(g) == ino);
  CHECK(TempFilesUnder(dir).empty());
}

namespace {

// One trainer run whose writes to `target` (a path substring) fail with `err`
// on `ops` from iteration 2 on; then restarted with the space back.
void TrainerDiskFull(const std::string& name, const std::string& target_rel, const std::string& ops, int err,
                     long long after_bytes) {
  auto [dir, run, c] = TinyTrainerRun(name);
  c.run.max_iterations = 3;
  c.train.keep_last = 10;
  const auto [cfg, log] = WriteTrainerFiles(c, name);
  FakeInferServer server(c.server.socket, AckAsIterationPlus500);
  FakeWorkers workers(run, 7, 4);
  // No games for iteration 2 until the disk is full, so every write of
  // iteration 2 meets the fault however fast the trainer is.
  workers.HoldAfter(1);
  DiskSwitch disk(dir + "/../" + name + ".full");
  const std::string target = dir + "/" + target_rel;
  const auto env = FaultFsEnv({target, ops, err == EIO ? "EIO" : "ENOSPC", after_bytes, disk.path(), 0});

  std::string metadata_before, generations_before;
  std::vector<std::string> checkpoints_before;
  {
    TestProcess p(BinPath("trainer"), {"--config", cfg}, log, env);
    // Iteration 1 done (its generations.jsonl line is written before this line).
    REQUIRE(WaitUntil([&] { return Has(Slurp(log), "iteration 1 finished") || p.Poll(); }, 120));
    REQUIRE_FALSE(p.Poll());
    metadata_before = ReadOrEmpty(run.metadata());
    generations_before = ReadOrEmpty(run.generations());
    disk.Fill();
    workers.Release();
    REQUIRE(WaitUntil([&] { return p.Poll().has_value(); }, 120));
    CHECK(*p.Poll() == 1);
  }
  const std::string text = Slurp(log);
  CheckFailureMessage(text, target_rel == "checkpoints/" ? run.checkpoint(2) : target, err);
  // The last good files: complete and loadable; the failed one unchanged.
  auto meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  CHECK(FileExists(meta->weights));
  CHECK_NOTHROW(ReadCheckpointInfo(meta->weights));
  if (target_rel != RunLayout::kGenerationsFile) CHECK(ReadOrEmpty(run.metadata()) == metadata_before);
  if (target_rel != "checkpoints/") CHECK(ReadOrEmpty(run.generations()) == generations_before);
  if (target_rel == "checkpoints/") CHECK_FALSE(FileExists(run.checkpoint(2)));
  CHECK(ReadGenerationLog(run.generations()).bad_lines == 0);  // no torn line
  for (const auto& e : std::filesystem::directory_iterator(run.checkpoints()))
    CHECK_NOTHROW(ReadCheckpointInfo(e.path().string()));
  CHECK(TempFilesUnder(dir).empty());

  // Space is back: the restart resumes (never from scratch) and finishes the run.
  disk.Free();
  TestProcess p(BinPath("trainer"), {"--config", cfg}, log, env);
  REQUIRE(WaitUntil([&] { return p.Poll().has_value(); }, 180));
  CHECK(*p.Poll() == 0);
  const std::string all = Slurp(log);
  CHECK(Count(all, "cold start: created generation-0 weights") == 1);
  CHECK(Count(all, "resuming run at iteration") == 1);
  meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  CHECK(meta->iteration == 4);
  GenerationLog gl = ReadGenerationLog(run.generations());
  CHECK(gl.bad_lines == 0);
  std::vector<int64_t> its;
  for (const auto& r : gl.records) its.push_back(r["iteration"].get<int64_t>());
  CHECK(its == std::vector<int64_t>{1, 2, 3});
  for (int64_t i = 0; i <= 3; ++i) CHECK(ReadCheckpointInfo(run.checkpoint(i)).iteration == i);
  CHECK(TempFilesUnder(dir).empty());
  CHECK(workers.read_failures() == 0);  // metadata.json was never torn
}

}  // namespace

TEST_CASE("disk full while the trainer saves a checkpoint (ENOSPC part-way): exit 1, last good kept; resumes") {
  TrainerDiskFull("df_trainer_ckpt", "checkpoints/", "write", ENOSPC, 4096);
}

TEST_CASE("EIO at fsync of the trainer's metadata.json: exit 1, old metadata kept; resumes") {
  TrainerDiskFull("df_trainer_meta", RunLayout::kMetadataFile, "fsync", EIO, 0);
}

TEST_CASE("disk full while the trainer appends generations.jsonl: no torn line, exit 1; the restart restores it") {
  TrainerDiskFull("df_trainer_genlog", RunLayout::kGenerationsFile, "write", ENOSPC, 10);
}

namespace {

Config TinyEvalConfig(const std::string& dir) {
  Config c = TinyEvalRunConfig(dir);
  c.eval.games = 2;
  c.eval.simulations = 16;
  c.eval.ladder = {"rollout:20"};
  return c;
}

bool Rated(const std::string& ratings, int64_t it) {
  for (const json& j : ReadJsonLines(ratings).records)
    if (j.value("iteration", int64_t{-1}) == it && j.value("complete", false)) return true;
  return false;
}

json Status(const std::string& path) {
  try {
    return json::parse(ReadFileOrThrow(path));
  } catch (const std::exception&) {
    return json::object();
  }
}

void EvaluatorDiskFull(const std::string& name, bool ratings_file, const std::string& ops, int err) {
  const std::string dir = FreshTestDir(name);
  RunLayout run(dir);
  const Config c = TinyEvalConfig(dir);
  PublishRandomCheckpoint(run, c, 0);
  const std::string results = run.eval_results(), ratings = run.ratings();
  const std::string status = run.evaluator_status();
  const std::string cfg_path = dir + "/eval_config.json";
  WriteFileAtomic(cfg_path, c.ToJsonString());
  const std::vector<std::string> args{"--run-dir", dir, "--config", cfg_path};
  const std::string target = ratings_file ? ratings : results;
  DiskSwitch disk(dir + "/../" + name + ".full");
  const auto env = FaultFsEnv({target, ops, err == EIO ? "EIO" : "ENOSPC", 0, disk.path(), 0});

  std::string results_before, ratings_before;
  {
    TestProcess p(BinPath("evaluator"), args, dir + "/evaluator_a.out", env);
    REQUIRE(WaitUntil([&] { return (Rated(ratings, 0) && Status(status)["state"] == "waiting") || p.Poll(); }, 240));
    REQUIRE_FALSE(p.Poll());
    results_before = ReadFileOrThrow(results);
    ratings_before = ReadFileOrThrow(ratings);
    disk.Fill();
    PublishRandomCheckpoint(run, c, 1);
    REQUIRE(WaitUntil([&] { return p.Poll().has_value(); }, 240));
    CHECK(*p.Poll() == 1);
    CheckFailureMessage(p.Log(), target, err);
  }
  CHECK(Has(Status(status).value("message", ""), target));  // the status view names it too
  CHECK(Status(status)["state"] == "error");
  CHECK(ReadJsonLines(results).bad_lines == 0);
  CHECK(ReadJsonLines(ratings).bad_lines == 0);
  if (ratings_file) {
    CHECK(ReadFileOrThrow(ratings) == ratings_before);
    CHECK(ReadFileOrThrow(results).compare(0, results_before.size(), results_before) == 0);
    // Still full: a new start fails at its first ratings write, cleanly (exit 1).
    TestProcess p(BinPath("evaluator"), args, dir + "/evaluator_full.out", env);
    REQUIRE(WaitUntil([&] { return p.Poll().has_value(); }, 120));
    CHECK(*p.Poll() == 1);
    CheckFailureMessage(p.Log(), target, err);
    CHECK(ReadFileOrThrow(ratings) == ratings_before);
  } else {
    CHECK(ReadFileOrThrow(results) == results_before);
  }
  CHECK(TempFilesUnder(dir).empty());

  // Space is back: the restart evaluates checkpoint 1; nothing before is lost or repeated.
  disk.Free();
  {
    TestProcess p(BinPath("evaluator"), args, dir + "/evaluator_b.out", env);
    REQUIRE(WaitUntil([&] { return Rated(ratings, 1) || p.Poll(); }, 240));
    REQUIRE_FALSE(p.Poll());
    p.Signal(SIGTERM);
    REQUIRE(WaitUntil([&] { return p.Poll().has_value(); }, 60));
    CHECK(*p.Poll() == 0);
  }
  CHECK(ReadFileOrThrow(results).compare(0, results_before.size(), results_before) == 0);
  CHECK(Rated(ratings, 0));
  std::map<std::tuple<int64_t, std::string, int>, int> keys;
  for (const json& g : ReadJsonLines(results).records)
    if (g.value("type", "") == "game")
      ++keys[{g["iteration"].get<int64_t>(), g["entry"].get<std::string>(), g["game"].get<int>()}];
  CHECK(keys.size() == 4);  // 2 games for each checkpoint, each once
  for (const auto& [key, n] : keys) CHECK(n == 1);
  CHECK(ReadJsonLines(results).bad_lines == 0);
  CHECK(TempFilesUnder(dir).empty());
}

}  // namespace

TEST_CASE("disk full when the evaluator appends results.jsonl: exit 1, results unchanged; resumes") {
  EvaluatorDiskFull("df_eval_results", /*ratings_file=*/false, "write", ENOSPC);
}

TEST_CASE("EIO when the evaluator rewrites ratings.jsonl: exit 1 (also at start), ratings kept; resumes") {
  EvaluatorDiskFull("df_eval_ratings", /*ratings_file=*/true, "write", EIO);
}
