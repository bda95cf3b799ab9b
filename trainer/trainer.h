// The trainer's generation loop (docs/trainer.md).  One Trainer per run
// directory; metadata.json is the single source of truth it publishes.
//
// State machine, per iteration N:
//   COLLECT  "self-play started: iteration N" -> wait for games/it{N}/ (GameCollector)
//            -> "games collected: K games for iteration N" -> manifest trainer/games_itN.json
//            (N's games, and the late games of closed iterations this step took)
//   TRAIN    replay window (last train.replay_iterations iterations by the
//            iteration each game was played for, late ones included), train_batches x batch_size
//            -> "training done: iteration N ..."
//   SAVE     checkpoints/weights_it{N}.pt (model_generation N) -> "checkpoint saved: iteration N"
//            -> trainer/optimizer_it{N}.pt -> trainer/state.json
//   PUBLISH  reload.json (the announcement self-play hosts follow), RELOAD to
//            this machine's server and wait for its ack (or warn: no server),
//            wait for every live host's acknowledgement (HostMonitor)
//            -> metadata.json {iteration N+1, weights it{N}, generation} -> generations.jsonl line
//            -> checkpoint retention
// Start: cold start (no metadata: weights_it0.pt + metadata iteration 1, via
// the same PUBLISH step) or resume (metadata iteration M: continue
// collecting M; if weights_it{M}.pt is already complete, publish it first).
//
// Thread-safety: Run() is called once, from one thread; `stop` may be set
// from a signal handler.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/config/config.h"
#include "common/data/run_layout.h"
#include "trainer/data_parallel.h"
#include "trainer/game_collector.h"
#include "trainer/host_acks.h"
#include "trainer/late_games.h"
#include "trainer/net_trainer.h"
#include "trainer/replay_buffer.h"
#include "trainer/replay_by_size.h"
#include "trainer/trainer_paths.h"

namespace gz {

class Trainer {
 public:
  explicit Trainer(Config config);
  ~Trainer();

  // Runs iterations until run.max_iterations iterations are published (0 =
  // forever) or *stop is raised.  Returns the process exit code (0).
  // Throws GomokuError on fatal errors (server refused the weights, a
  // checkpoint metadata.json names is unloadable, ...).
  int Run(const std::atomic<bool>& stop);

 private:
  // trainer_start.cc
  void Prepare();
  // Removes the temp files of an earlier trainer killed mid-write (its own files only).
  void RemoveOwnTempFiles();
  void ColdStart();
  void Resume();
  // Cold start with train.init_weights: that checkpoint, checked against the
  // run's net and rule, becomes the run's generation-0 weights at `path0`.
  // ConfigError naming the key when it does not load or does not fit.
  void WriteInitialWeights(const std::string& path0);
  void LoadNet(const std::string& path, int64_t expect_iteration);
  void RestoreOptimizer(int64_t iteration);
  void RebuildReplayWindow(int64_t last_closed);
  // trainer.cc
  bool RunIteration(int64_t n, const std::atomic<bool>& stop);  // false = stopped
  // RunIteration's phases; a Step (trainer.cc) carries one iteration's state through them.
  struct GameTally;  // one iteration's games, counted (trainer.cc)
  struct Step;
  bool CollectGames(int64_t n, const std::atomic<bool>& stop, Step& step);  // COLLECT; false = stopped
  void CloseCollection(int64_t n, Step& step);  // manifest, sample ledger, games into the window
  bool TrainWindow(int64_t n, const std::atomic<bool>& stop, Step& step);   // TRAIN; false = stopped
  void LogTrainingPlan(int64_t n, const Step& step, int64_t new_samples) const;
  nlohmann::json IterationRecord(int64_t n, const Step& step) const;  // the generations.jsonl record
  void AppendLateToWindow(const std::vector<const LateGame*>& late);  // grouped by iteration, in order
  // trainer_publish.cc
  void SaveTrained(int64_t n, const nlohmann::json& record);                      // SAVE
  bool Publish(int64_t n, nlohmann::json record, const std::atomic<bool>* stop);  // PUBLISH; false = stopped
  // Publish's steps; a Publication carries what they learn to the record.
  struct Publication;
  bool ReloadServers(int64_t n, Publication& pub, const std::atomic<bool>* stop);  // false = stopped
  bool AwaitHosts(int64_t n, Publication& pub, const std::atomic<bool>* stop);     // false = stopped
  void WriteRunMetadata(int64_t n, int64_t generation);
  void RecordPublished(int64_t n, nlohmann::json record, const Publication& pub);  // generations.jsonl, retention
  nlohmann::json ConfigJson() const;

  Config config_;
  RunLayout run_;
  TrainerPaths paths_;
  std::string socket_;
  torch::Device device_{torch::kCPU};
  std::unique_ptr<DataParallel> dp_;      // train.world_size > 1: this is rank 0 (docs/trainer.md)
  std::unique_ptr<NetTrainer> trainer_;
  ReplayBySize buffer_;  // one ReplayBuffer per board size (Config::board_sizes())
  GameCollector collector_;
  std::unique_ptr<HostMonitor> hosts_;    // self-play hosts of a multi-host run (status/*/reload_ack.json)
  std::set<std::string> excluded_hosts_;  // hosts the last publication excluded
  PositionLedger ledger_;                 // samples received / never trained, through the last closed step
  int64_t iteration_ = 0;                 // iteration whose games are collected next
  std::optional<nlohmann::json> pending_publish_;  // record of iteration_-1 when it still needs publishing
};

// Seed of the sampling RNG of iteration n (reproducible across restarts).
uint64_t TrainingSeed(uint64_t run_seed, int64_t iteration);

}  // namespace gz
