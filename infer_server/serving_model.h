// A network ready to serve, and how one is loaded and validated.
//
// LoadServingModel is the only way models enter the server (start-up and
// RELOAD).  It loads through the network library, checks the checkpoint
// against what the server serves (board size, rule, encoder version) and runs
// one probe forward whose outputs must be finite (catches NaN weights).  It
// either returns a complete model or throws (ModelError / IoError naming the
// problem); it never returns a half-checked one.  Thread-safe (no shared state);
// runs on the reload thread so serving continues meanwhile.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/board.h"
#include "common/evaluator.h"
#include "common/net/net_api.h"

namespace gz {

struct ServingModel {
  std::unique_ptr<BatchForward> forward;  // used by the batch thread only
  CheckpointInfo info;
  std::string path;
  int64_t generation = 0;  // info.model_generation
};

struct ModelRequirements {
  std::string device = "cpu";  // already resolved ("cpu", "cuda", "cuda:N")
  int threads = 1;
  int board_size = 15;
  Rule rule = Rule::kFreestyle;
  ForwardOptions forward;      // precision, CUDA graphs, forward max rows (net_api.h)
};

std::unique_ptr<ServingModel> LoadServingModel(const std::string& path, const ModelRequirements& req);

}  // namespace gz
