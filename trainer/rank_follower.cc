// RankFollower: the follower ranks' loop (rank_follower.h).
#include "trainer/rank_follower.h"

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/net/model.h"
#include "common/net/net_api.h"

namespace gz {

nlohmann::json DataParallelFingerprint(const Config& config) {
  nlohmann::json all = config.ToJson();
  nlohmann::json train = all["train"];
  // Per process or per host, free to differ between ranks.
  for (const char* k : {"threads", "dist_interface", "reload_timeout_s", "keep_last", "keep_every"}) train.erase(k);
  return {{"board", all["board"]}, {"net", all["net"]}, {"train", train}};
}

RankFollower::RankFollower(const Config& config, int rank) : config_(config) {
  if (rank <= 0 || rank >= config_.train.world_size)
    GOMOKU_THROW(ConfigError, "--rank " << rank << ": a follower's rank is 1..train.world_size-1 (config key "
                                        << "'train.world_size' is " << config_.train.world_size << ")");
  at::set_num_threads(config_.train.threads);
  const torch::Device device = RankDevice(torch::Device(ResolveDevice(config_.inference.device)), rank);
  spdlog::info("trainer rank {} of {}: training on {} with {} threads; rank 0 holds the run in {}", rank,
               config_.train.world_size, device.str(), config_.train.threads, config_.run.dir);
  dp_ = std::make_unique<DataParallel>(config_.train, DataParallelFingerprint(config_), rank, device);
  // The architecture from the config; rank 0's state replaces every value.
  PolicyValueNet net(config_.board.size, config_.net.channels, config_.net.blocks);
  trainer_ = std::make_unique<NetTrainer>(std::move(net), config_.train, device);
  trainer_->SetDataParallel(dp_.get());
}

RankFollower::~RankFollower() = default;

int RankFollower::Run(const std::atomic<bool>& stop) {
  const int rank = dp_->rank();
  for (;;) {
    std::optional<nlohmann::json> cmd = dp_->Next(&stop);
    if (!cmd) {
      spdlog::info("trainer rank {}: stop requested; leaving (rank 0 fails at its next training step)", rank);
      return 0;
    }
    const std::string op = cmd->value("op", "");
    if (op == "stop") {
      spdlog::info("trainer rank {}: rank 0 finished; stopping", rank);
      return 0;
    }
    if (op == "abort")
      GOMOKU_THROW(DistError, "data-parallel: rank 0 stopped with an error (see its log); rank " << rank << " stops");
    if (op != "train") GOMOKU_THROW(DistError, "data-parallel: unknown command from rank 0: " << cmd->dump());
    const int64_t iteration = cmd->value("iteration", int64_t{0});
    spdlog::info("trainer rank {}: training iteration {} with rank 0 (batch {}, lr {:g})", rank, iteration,
                 cmd->value("batch_size", 0), cmd->value("lr", 0.0));
    const auto start = std::chrono::steady_clock::now();
    TrainMetrics tm = trainer_->Follow(*cmd);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const DistStats& st = dp_->stats();
    spdlog::info("trainer rank {}: iteration {} trained: steps={} total_loss={:.4f} ({:.1f}s; allreduce {:.2f}s, "
                 "broadcasts {:.2f}s, state {} bytes)",
                 rank, iteration, tm.steps, tm.total_loss, secs, st.allreduce_s, st.broadcast_s, st.state_bytes);
  }
}

}  // namespace gz
