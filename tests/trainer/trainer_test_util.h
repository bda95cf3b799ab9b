// Helpers shared by the trainer tests: tiny configs, synthetic game files (a
// stand-in for workers), published random checkpoints (a stand-in for the
// trainer, for the evaluator's tests), a child trainer.  Temp folders, waiting and child
// processes come from common/harness (included here for every trainer test).
#pragma once

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/game/board.h"
#include "common/config/config.h"
#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "common/net/net_api.h"
#include "common/harness/random_game.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"
#include "common/harness/wait_until.h"

namespace gz::testing {

// Pointers to the games of a vector (ReplayBuffer::AddIteration takes pointers).
inline std::vector<const GameRecord*> Ptrs(const std::vector<GameRecord>& v) {
  std::vector<const GameRecord*> out;
  for (const auto& g : v) out.push_back(&g);
  return out;
}

// Writes `count` games for `iteration` as worker `worker`, indices first..first+count-1.
inline void WriteGames(const RunLayout& run, int64_t iteration, int worker, int first, int count, int size,
                       int64_t generation = 0) {
  MakeDirs(run.games_for(iteration));
  for (int k = first; k < first + count; ++k) {
    GameRecord g = RandomGame(size, iteration, 1000003ULL * iteration + 7919ULL * worker + k, generation, 12);
    SaveGameRecord(g, run.game_file(iteration, worker, k));
  }
}

// A tiny, fast config for a run in `dir`.
inline Config TinyConfig(const std::string& dir) {
  Config c;
  c.run.dir = dir;
  c.board.size = 7;
  c.net.channels = 8;
  c.net.blocks = 1;
  c.run.worker_count = 1;
  c.run.worker_games_per_worker = 4;
  c.run.target_games = 4;
  c.run.min_games = 2;
  c.run.stall_timeout_s = 1.0;
  c.run.progress_log_s = 0.2;
  c.run.max_iterations = 2;
  c.train.train_batches = 2;
  c.train.batch_size = 16;
  c.train.replay_iterations = 2;
  c.train.threads = 1;
  c.train.reload_timeout_s = 5.0;
  c.train.keep_last = 2;
  c.train.keep_every = 0;
  c.server.socket = dir + "/sock/infer.sock";
  c.inference.device = "cpu";
  return c;
}

inline std::string WriteConfigFile(const Config& c, const std::string& path) {
  WriteFileAtomic(path, c.ToJsonString());
  return path;
}

// A child trainer's run `name`: the fresh folder GZ_TEST_TMP/name, its layout
// and TinyConfig for it, for the test to change before WriteTrainerFiles.
// Used as `auto [dir, run, c] = TinyTrainerRun("name");`.
struct TinyRunParts {
  std::string dir;
  RunLayout run;
  Config c;
};
inline TinyRunParts TinyTrainerRun(const std::string& name) {
  const std::string dir = FreshTestDir(name);
  return {dir, RunLayout(dir), TinyConfig(dir)};
}

// The files a child trainer of run `name` (config `c`, its run.dir the run's
// folder) is started with: the config file, in a folder of its own (name_cfg:
// not part of the run), and the log path name.log beside the run, emptied.
// Used as `const auto [cfg, log] = WriteTrainerFiles(c, "name");`.
struct TrainerFiles {
  std::string cfg, log;
};
inline TrainerFiles WriteTrainerFiles(const Config& c, const std::string& name) {
  TrainerFiles f{WriteConfigFile(c, FreshTestDir(name + "_cfg") + "/c.json"), c.run.dir + "/../" + name + ".log"};
  std::remove(f.log.c_str());
  return f;
}

// TinyConfig for the evaluator's tests: every checkpoint evaluated (nice 1)
// against the anchor rollout:20, one symmetry.  The caller sets the games,
// simulations and ladder.
inline Config TinyEvalRunConfig(const std::string& dir) {
  Config c = TinyConfig(dir);
  c.inference.symmetry = "none";
  c.eval.every = 1;
  c.eval.nice = 1;
  c.eval.anchor = "rollout:20";
  return c;
}

// The trainer's part for the programs that follow a run (evaluator): checkpoint
// `it` (generation `it`: a random 7x7 freestyle net, 8 channels, 1 block,
// seeded by `it`) and metadata.json publishing it for iteration it + 1 with
// config `c`.  Users link gomoku_net (CreateRandomCheckpoint, net_api.h).
inline void PublishRandomCheckpoint(const RunLayout& run, const Config& c, int64_t it) {
  MakeDirs(run.checkpoints());
  CreateRandomCheckpoint(run.checkpoint(it), 7, Rule::kFreestyle, 8, 1, /*seed=*/100 + it, it, it);
  Metadata m;
  m.iteration = it + 1;
  m.weights = run.checkpoint(it);
  m.model_generation = it;
  m.updated_at = NowSeconds();
  m.config = c.ToJson();
  WriteMetadata(run.metadata(), m);
}

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

inline int64_t MetadataIteration(const RunLayout& run) {
  try {
    auto m = ReadMetadata(run.metadata());
    return m ? m->iteration : 0;
  } catch (const std::exception&) {
    return -1;  // a torn metadata file: never expected
  }
}

// build/bin/trainer as a child process, output appended to `log`.
class TrainerProcess : public TestProcess {
 public:
  TrainerProcess(const std::vector<std::string>& args, const std::string& log)
      : TestProcess(BinPath("trainer"), args, log) {}
};

// Plays the workers' part: whenever metadata.json announces an iteration that
// has no games yet, writes `per_iteration` games for it.
class FakeWorkers {
 public:
  FakeWorkers(RunLayout run, int size, int per_iteration)
      : run_(std::move(run)), size_(size), per_iteration_(per_iteration), thread_([this] { Loop(); }) {}
  ~FakeWorkers() {
    stop_ = true;
    thread_.join();
  }
  int64_t last_iteration() const { return last_.load(); }
  int read_failures() const { return read_failures_.load(); }
  // Writes no games for iterations after `it` until Release(): a test holds
  // the trainer at an iteration's start while it changes the world.
  void HoldAfter(int64_t it) { hold_after_ = it; }
  void Release() { hold_after_ = INT64_MAX; }

 private:
  void Loop() {
    while (!stop_) {
      int64_t it = 0;
      int64_t gen = 0;
      try {
        if (auto m = ReadMetadata(run_.metadata())) {
          it = m->iteration;
          gen = m->model_generation;
        }
      } catch (const std::exception&) {
        ++read_failures_;  // a torn or invalid metadata.json: must never happen
      }
      if (it > last_ && it <= hold_after_) {
        WriteGames(run_, it, 0, 0, per_iteration_, size_, gen);
        last_ = it;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  RunLayout run_;
  int size_;
  int per_iteration_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> last_{0};
  std::atomic<int64_t> hold_after_{INT64_MAX};
  std::atomic<int> read_failures_{0};
  std::thread thread_;
};

}  // namespace gz::testing
