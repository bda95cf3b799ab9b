// A follower rank of data-parallel training (train.world_size > 1,
// `trainer --rank R` with R > 0; docs/trainer.md, "Data-parallel training").
//
// It joins rank 0's rendezvous, builds the network the config describes,
// then runs rank 0's commands: each "train" is one NetTrainer::Follow (the
// state from rank 0, then this rank's slice of every step); "stop" ends it.
// It reads no game and writes nothing into the run directory (only its log).
//
// Thread-safety: one thread; `stop` may be raised from a signal handler.
#pragma once

#include <atomic>
#include <memory>

#include <nlohmann/json.hpp>

#include "common/config/config.h"
#include "trainer/data_parallel.h"
#include "trainer/net_trainer.h"

namespace gz {

// What every rank must agree on (board.*, net.*, the train.* keys of the
// step's math and of the rendezvous); rank 0 publishes it, followers check it.
nlohmann::json DataParallelFingerprint(const Config& config);

class RankFollower {
 public:
  // Rendezvous (DataParallel's errors).  Precondition: 0 < rank < world_size
  // (ConfigError otherwise).
  RankFollower(const Config& config, int rank);
  ~RankFollower();

  // Follows rank 0 until it says stop (0) or *stop is raised between
  // iterations (0).  Throws DistError when rank 0 aborts or a peer fails,
  // ModelError when training diverges.
  int Run(const std::atomic<bool>& stop);

  NetTrainer& trainer() { return *trainer_; }
  DataParallel& data_parallel() { return *dp_; }

 private:
  Config config_;
  std::unique_ptr<DataParallel> dp_;
  std::unique_ptr<NetTrainer> trainer_;
};

}  // namespace gz
