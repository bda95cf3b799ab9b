// A network ready to serve, and how one is loaded and validated.
//
// LoadServingModel is the only way models enter the server (start-up and
// RELOAD).  It loads through the network library (NetForwards: the forward
// ChooseForward picks, common/net/forward_choice.h), checks the checkpoint
// against what the server serves (it plays req.board_size: an fc checkpoint
// only its own size, a conv one any size, docs/network.md "Heads"; rule,
// encoder version) and runs
// one probe forward whose outputs must be finite (catches NaN weights).  It
// either returns a complete model or throws (ModelError / IoError naming the
// problem); it never returns a half-checked one.  Thread-safe (no shared state);
// runs on the reload thread so serving continues meanwhile.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/game/board.h"
#include "common/search/evaluator.h"
#include "common/net/forward_choice.h"
#include "common/net/net_api.h"

namespace gz {

// Measured forward times of a model at two batch sizes (positions, each with
// its symmetries), taken before it serves; they seed the adaptive wait's cost
// model (auto_wait.h), which cannot separate a fixed cost from a per-position
// one while every batch has the same size.  small == 0: not measured.
struct ForwardCost {
  int small = 0, large = 0;
  double small_s = 0, large_s = 0;
};

struct ServingModel {
  std::unique_ptr<BatchForward> forward;  // used by the batch thread only
  CheckpointInfo info;  // the file's header (board_size: the size the checkpoint was made for)
  std::string path;
  int64_t generation = 0;  // info.model_generation
  ForwardChoice choice;    // the forward that serves it (ChooseForward)
  ForwardCost cost;
};

struct ModelRequirements {
  std::string device = "cpu";  // already resolved ("cpu", "cuda", "cuda:N")
  int threads = 1;
  int board_size = 15;  // the size the model is loaded to play (one lane of the server)
  Rule rule = Rule::kFreestyle;
  ForwardOptions forward;      // backend (inference.backend), precision, CUDA graphs, forward max rows (net_api.h)
};

// The settings ChooseForward reads, from `req`.
InferenceSettings ServingSettings(const ModelRequirements& req);

// Loads `path` (NetForwards) and makes the lane's model of it.
std::unique_ptr<ServingModel> LoadServingModel(const std::string& path, const ModelRequirements& req);
// The lane's model of a checkpoint already read: every lane of a reload
// makes its forward from one NetForwards, so the file is read once whatever
// the number of board sizes.
std::unique_ptr<ServingModel> LoadServingModel(const NetForwards& net, const ModelRequirements& req);

// Times forwards of 1 and `large` (>= 2) empty-board positions with
// `symmetries` rows each, best of `reps`.  The caller must hold the device
// (Batcher::LockDevice) so no serving forward overlaps.
ForwardCost MeasureForwardCost(BatchForward& forward, int board_size, int symmetries, int large, int reps);

}  // namespace gz
