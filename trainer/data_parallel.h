// Data-parallel training over LibTorch's c10d (docs/trainer.md, "Data-parallel
// training"): train.world_size trainer processes, rank 0 (the Trainer, which
// alone reads games and writes the run) and followers (rank_follower.h).
//
// One DataParallel per process owns
//   * the rendezvous store: a c10d::TCPStore served by rank 0
//     (train.dist_store = tcp://HOST:PORT) or a c10d::FileStore
//     (file://PATH); rank 0 publishes a fingerprint of the config (board, net,
//     the math of train.*) and every follower checks it before the group forms;
//   * the process group: c10d::ProcessGroupNCCL when the model is on CUDA (and
//     the build has NCCL), c10d::ProcessGroupGloo otherwise, with
//     train.dist_timeout_s as the timeout of every collective, so a dead or
//     stuck peer is an error (DistError), never a hang;
//   * the control channel: rank 0 posts numbered JSON commands into the store
//     ({"op": "train" | "stop" | "abort", ...}); followers poll it between
//     iterations (rank 0 may collect games for minutes: no collective waits
//     that long) and watch rank 0's heartbeat counter in the store.
//
// The collectives are called in the same order on every rank (c10d's rule):
// NetTrainer::Train (rank 0) and NetTrainer::Follow (followers) are the only
// callers.
//
// Thread-safety: one thread uses the object; rank 0 runs an internal
// heartbeat thread (the stores are thread-safe).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/base/errors.h"
#include "common/config/config.h"

namespace gz {

// A collective, the store or the rendezvous failed: a peer died, stalled past
// train.dist_timeout_s, or never came.  The message is one line.
class DistError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};

// Rows [first, second) of a global batch of `batch` rows that `rank` of
// `world` trains on: [rank*batch/world, (rank+1)*batch/world).
std::pair<int, int> RankSlice(int batch, int rank, int world);

// The device rank `rank` trains on when the config says `device`: CUDA ranks
// are spread over the visible devices (cuda:(rank % count)); CPU stays CPU.
torch::Device RankDevice(torch::Device device, int rank);

// What the collectives cost (for the training log line and bench_ddp).
struct DistStats {
  double broadcast_s = 0;   // state and batch broadcasts
  double allreduce_s = 0;   // gradient + BatchNorm buffer + metric allreduces
  int64_t allreduce_bytes = 0;
  int64_t buckets = 0;
  int64_t state_bytes = 0;  // the last state broadcast
};

class DataParallel {
 public:
  // Rendezvous: blocks until all train.world_size ranks have joined the store,
  // agreed on the config and formed the process group, at most
  // train.dist_timeout_s (DistError naming the missing ranks otherwise).
  // `fingerprint`: what must be equal on every rank (ConfigError on rank 0
  // and on the differing follower, naming the key).  Precondition:
  // 0 <= rank < world_size, world_size >= 1 (ConfigError).
  DataParallel(const TrainConfig& train, const nlohmann::json& fingerprint, int rank, torch::Device device);
  // Rank 0: tells the followers to stop ("abort" while an exception unwinds)
  // and waits briefly for them to leave before closing the store.
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int rank() const;
  int world_size() const;
  bool leader() const { return rank() == 0; }
  const std::string& backend() const;  // "gloo" | "nccl"

  // Rank 0: posts the next command to every follower.
  void Post(const nlohmann::json& command);
  // Followers: the next command of rank 0, or nullopt once *stop is raised
  // while waiting.  Throws DistError when the store fails (rank 0 gone, with a
  // TCPStore) or rank 0's heartbeat stops for train.dist_timeout_s.
  std::optional<nlohmann::json> Next(const std::atomic<bool>* stop);

  // Collectives (every rank, same order).  Broadcast: rank 0's contents of
  // `t` into every rank's `t` (same shape and dtype everywhere).
  void Broadcast(torch::Tensor t);
  // Rank 0's bytes to every rank (the size travels first).
  void BroadcastBytes(std::string* bytes);
  // Sums every tensor over the ranks, in place: flattened into buckets of at
  // most train.allreduce_bucket_mb (one bucket per dtype run), allreduced
  // asynchronously, then copied back.
  void AllreduceSum(const std::vector<torch::Tensor>& tensors);

  DistStats& stats();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gz
