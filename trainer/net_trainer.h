// The gradient steps of one iteration (LibTorch).
//
// loss = policy cross-entropy against the MCTS visit distribution
//      + value MSE against the game result (mover's view)
//      + train.weight_decay * sum of squared weights (conv/linear weight
//        tensors; biases and BatchNorm parameters are not decayed)
// Optimizer: adam or sgd with momentum (train.optimizer); the learning rate
// follows train.lr_schedule (constant, or step: multiplied by
// lr_step_gamma every lr_step_iterations iterations, never below lr_min).
//
// Data-parallel (train.world_size > 1, docs/trainer.md): with a DataParallel
// attached, Train (rank 0) first sends the net and optimizer state to the
// followers, then broadcasts each step's global batch; every rank trains on
// its slice (RankSlice), the gradients (weighted by slice / batch), the
// BatchNorm running buffers (averaged: per-rank batch statistics, "ghost
// batches") and the step's metrics are summed in one bucketed allreduce, and
// every rank takes the same optimizer step.  Follow is the followers' side.
// Without one (or world_size 1 in production: none is made) Train is the
// one-process path.
//
// Thread-safety: a NetTrainer belongs to one thread.  The net is left in eval
// mode after every call.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/config/config.h"
#include "common/net/model.h"
#include "trainer/replay_buffer.h"
#include "trainer/replay_by_size.h"

namespace gz {

struct TrainMetrics {
  int64_t steps = 0;
  int64_t samples = 0;        // samples seen (steps * batch size)
  double learning_rate = 0;
  double policy_loss = 0;     // mean cross-entropy, nats
  double value_loss = 0;      // mean squared error
  double l2_loss = 0;         // weight_decay * sum w^2
  double total_loss = 0;
  double entropy = 0;         // mean entropy of the predicted policy, nats
  double value_accuracy = 0;  // sign agreement on decisive samples (z != 0)
  int64_t decisive = 0;       // samples with z != 0 behind value_accuracy
  std::map<int, int64_t> steps_by_size;  // board size -> steps whose batch had that size
};

// Learning rate for `iteration` (1-based) under the config's schedule.
double ScheduledLearningRate(const TrainConfig& c, int64_t iteration);

class DataParallel;

class NetTrainer {
 public:
  NetTrainer(PolicyValueNet net, const TrainConfig& config, torch::Device device);

  PolicyValueNet& net() { return net_; }
  torch::Device device() const { return device_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }

  // Data-parallel hooks (not owned; nullptr = one process).
  void SetDataParallel(DataParallel* dp) { dp_ = dp; }
  DataParallel* data_parallel() const { return dp_; }

  // Runs `steps` steps of `batch_size` samples drawn from `buffer` (random
  // sample, random symmetry; the RNG is seeded with `seed`) at the learning
  // rate of `iteration`.  Returns the metrics averaged over the steps run; if
  // *stop becomes true it returns early with steps < requested.
  // The buffer's size must be the net's, or the net has conv heads (any size).
  TrainMetrics Train(const ReplayBuffer& buffer, int64_t iteration, int steps, int batch_size, uint64_t seed,
                     const std::atomic<bool>* stop = nullptr);
  // The same over a replay window of several board sizes: each step's batch
  // is of one size (ReplayBySize::SampleBatch draws it) and the conv net runs
  // at that size.  With one size this is exactly Train(replay.buffer(size)):
  // the same RNG draws, batches and steps.  Several sizes need conv heads and
  // one process (data-parallel training takes one size; GomokuError).
  TrainMetrics Train(const ReplayBySize& replay, int64_t iteration, int steps, int batch_size, uint64_t seed,
                     const std::atomic<bool>* stop = nullptr);

  // Loss and metrics of the current net on fixed data, without training (eval
  // mode).  planes: n*PlaneFloats, policy: n*size^2, value: n; size 0 = the
  // net's board size (another size needs conv heads).
  TrainMetrics Evaluate(const float* planes, const float* policy, const float* value, int n, int size = 0);

  // Followers (rank > 0): the rest of one Train of rank 0 whose "train"
  // command is `command`: receive the state, then the steps until rank 0's end
  // marker.  Returns the global metrics (as rank 0's).  Throws DistError when
  // a peer fails, ModelError when the loss diverges (as rank 0 does).
  TrainMetrics Follow(const nlohmann::json& command);

  // The net's parameters and buffers and the optimizer state as bytes (torch
  // archives), and back (ModelError when they do not fit).
  std::string SerializeState();
  void LoadState(const std::string& bytes);

  // Optimizer state (moments, step counts), written atomically / read back.
  // LoadOptimizerState throws IoError or ModelError when the file does not fit.
  void SaveOptimizerState(const std::string& path);
  void LoadOptimizerState(const std::string& path);

 private:
  struct Batch {
    torch::Tensor planes, policy, value;
  };
  // n samples of board size `size` (0 = the net's) as tensors on the device.
  Batch ToTensors(const float* planes, const float* policy, const float* value, int n, int size = 0);
  // GomokuError unless the net can run at `size` (its own, or any with conv heads).
  void CheckSize(int size, const char* what) const;
  // One one-process optimizer step on n samples of board size `size`.
  // Fills one batch (batch_size samples) from the RNG and returns its board size.
  using BatchSampler = std::function<int(std::mt19937_64&, float* planes, float* policy, float* value)>;
  // The one-process training loop shared by both Train overloads; buffers hold
  // batches of up to max_size.
  TrainMetrics TrainLocal(int max_size, const BatchSampler& sample, int64_t iteration, int steps, int batch_size,
                          uint64_t seed, const std::atomic<bool>* stop);
  void LocalStep(const float* planes, const float* policy, const float* value, int n, int size, int64_t iteration,
                 int step, TrainMetrics* m);
  struct Losses {
    torch::Tensor policy, value, l2, total, entropy, agree, decisive;
  };
  // Forward + losses (entropy, agree and decisive without gradient).
  Losses ComputeLosses(const Batch& b);
  // Adds the loss fields of one step to m (summed, caller averages).
  static void AddMetrics(const Losses& l, TrainMetrics* m);
  // Data-parallel: state from rank 0, one step on this rank's slice of the
  // global batch in `wire` (header, planes, policy, value), the end marker.
  void SyncState();
  void DistributedStep(const float* wire, int batch, int64_t iteration, int step, TrainMetrics* m);

  PolicyValueNet net_;
  TrainConfig config_;
  torch::Device device_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  DataParallel* dp_ = nullptr;
};

}  // namespace gz
