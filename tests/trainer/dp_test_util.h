// Shared by the data-parallel tests and their child program dp_rank_helper:
// the fixed replay buffer and initial network both sides build from the
// config, a free TCP port, and the model's state as a list of tensors.
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

#include "common/config/config.h"
#include "common/harness/free_port.h"
#include "common/net/model.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/replay_buffer.h"

namespace gz::testing {

constexpr uint64_t kDpNetSeed = 7;
constexpr uint64_t kDpSampleSeed = 12345;

// A window of 2 iterations of random 7x7 games (the same on every call).
inline ReplayBuffer DpBuffer(const Config& c) {
  ReplayBuffer buffer(c.board.size, 2);
  for (int64_t it = 1; it <= 2; ++it) {
    std::vector<GameRecord> games;
    for (int g = 0; g < 6; ++g) games.push_back(RandomGame(c.board.size, it, 1000 * it + g, 0, 20));
    std::vector<const GameRecord*> ptrs;
    for (auto& g : games) ptrs.push_back(&g);
    buffer.AddIteration(it, ptrs);
  }
  return buffer;
}

inline PolicyValueNet DpNet(const Config& c) {
  PolicyValueNet net(c.board.size, c.net.channels, c.net.blocks);
  net->InitSeeded(kDpNetSeed);
  return net;
}

// Parameters then buffers, in the module's order.
inline std::vector<torch::Tensor> ModelState(PolicyValueNet& net) {
  std::vector<torch::Tensor> out;
  for (auto& p : net->parameters()) out.push_back(p.detach().clone().cpu());
  for (auto& b : net->buffers()) out.push_back(b.detach().clone().cpu());
  return out;
}

// TinyConfig for `world` ranks meeting at 127.0.0.1:port.
inline Config DpConfig(const std::string& dir, int world, int port) {
  Config c = TinyConfig(dir);
  c.train.world_size = world;
  c.train.dist_store = "tcp://127.0.0.1:" + std::to_string(port);
  c.train.dist_timeout_s = 10.0;
  c.train.batch_size = 15;  // odd: the slices of 2 ranks differ (7 and 8 rows)
  c.train.learning_rate = 0.01;
  c.train.weight_decay = 1e-3;
  return c;
}

}  // namespace gz::testing
