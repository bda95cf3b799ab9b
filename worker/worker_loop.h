// The self-play worker: plays games and writes one .npz file per game.
//
// Run mode (FollowRun): follows <run>/metadata.json.  Every shared setting
// (board, rules, simulations, games per worker, ...) comes from
// metadata.config, never from a constant here.  For iteration N it writes
// games/it{N}/w{id}_g{k}.npz until it has run.worker_games_per_worker of them
// (counting files already there, so a restarted worker continues), then waits
// for the next iteration.  Status goes to <run>/status/worker_{id}.json.
//
// Standalone mode (PlayStandalone): a fixed number of games into a directory
// (tests, equivalence checks, benchmarks).
//
// Games are played worker.parallel_games at a time with their leaf
// evaluations batched into one Evaluate call; a finished game is written at
// once and its slot starts the next game (PlayGamesStreaming, selfplay.h).
// Thread-safety: one thread.  `stop` is polled; on stop, unfinished games are
// discarded (never written).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/config/config.h"
#include "common/search/evaluator.h"
#include "worker/local_model.h"

namespace gz {

// The worker's evaluators (worker/evaluator_setup.h builds them), one per
// board size of the run behind a SizeRouter.
struct WorkerEvaluators {
  std::map<int, std::unique_ptr<ReloadingLocalEvaluator>> local;  // per board size (fallback / local mode)
  std::unique_ptr<Evaluator> local_router;         // SizeRouter over `local`
  std::unique_ptr<Evaluator> remote;               // SizeRouter over FallbackEvaluators when GOMOKU_INFER_SOCK is set
  std::function<bool()> remote_active;             // true while answers come from the server
  std::function<int64_t()> fallbacks;              // remote -> local switches so far (incl. at start)
  std::function<int64_t()> reconnects;             // local -> remote switches so far
  std::function<void(int64_t)> set_min_generation; // refuse server answers older than this (FallbackEvaluator)
  Evaluator& active() { return remote ? *remote : *local_router; }
  void SetWeights(const std::string& path) {
    for (auto& [size, l] : local) l->SetWeights(path);
  }
  std::string mode() const { return remote && remote_active && remote_active() ? "remote" : "local"; }
};

class SelfPlayWorker {
 public:
  SelfPlayWorker(int id, Config config, WorkerEvaluators* evals, const std::atomic<bool>* stop)
      : id_(id), config_(std::move(config)), evals_(evals), stop_(stop) {}

  // Returns the process exit code.
  int FollowRun(const std::string& run_dir);
  // Plays `games` games (indices 0..games-1, seeds from run.seed) into out_dir.
  // If summary_path is not empty, writes {games, moves, evaluations, calls,
  // seconds, mode} there at the end (benchmarks).
  int PlayStandalone(int games, const std::string& out_dir, const std::string& weights, int64_t iteration,
                     const std::string& summary_path = "");

 private:
  // Plays games [first, end) of `iteration`, worker.parallel_games at a time
  // (PlayGamesStreaming); after the first, a game starts only if may_start()
  // says so.  Each finished game is written at once with `path_for(k)`, then
  // after_each(games written so far) runs (may be empty).  Returns the number
  // written.
  int PlayGames(const Config& cfg, int64_t iteration, int64_t generation, int64_t first, int64_t end,
                const std::function<bool()>& may_start, const std::function<std::string(int64_t)>& path_for,
                const std::function<void(int)>& after_each);
  void WriteStatus(const std::string& run_dir, int64_t iteration, int games_this_iteration);

  int id_;
  Config config_;
  WorkerEvaluators* evals_;
  const std::atomic<bool>* stop_;
  double last_game_at_ = 0;
  int64_t games_total_ = 0;
  int64_t moves_total_ = 0;
  CountingEvaluator* counting_ = nullptr;
  double started_at_ = 0;
};

}  // namespace gz
