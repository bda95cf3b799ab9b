// The one seam between search and any network.
//
// MCTS, self-play and the engine see only `Evaluator`.  Implementations:
//   UniformEvaluator, RolloutEvaluator (common/search/simple_evaluators.h)
//                                     - tests and benchmarks; the pure-MCTS baseline
//   SymmetricEvaluator over a BatchForward (common/search/symmetric_batch.h,
//                                     forwards in common/net/)  - local LibTorch network
//   RemoteEvaluator (common/wire/remote_evaluator.h)   - the inference server
//   FallbackEvaluator (common/wire/fallback_evaluator.h) - server first, loud local fallback
// Features are added by wrapping one Evaluator in another (FallbackEvaluator,
// the worker's reloading local evaluator), never by flags in MCTS.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/game/board.h"

namespace gz {

struct EvalResult {
  // log-probabilities over all size*size points, as the network produced them
  // (illegal points included; the search masks them).
  std::vector<float> log_policy;
  // Expected outcome for the side to move, in [-1, 1].
  float value = 0.0f;
  // Generation of the model that produced this answer (0 for non-network evaluators).
  int64_t model_generation = 0;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Evaluates every position; results.size() must equal positions.size().
  // Thread-safety: NOT required of implementations; one caller at a time
  // unless an implementation documents otherwise.
  // Throws GomokuError (or a subclass) on failure; results are then unspecified.
  virtual void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) = 0;
  // One line for logs: what this is and where it runs.
  virtual std::string Describe() const = 0;
};

// A raw batched network: encoded planes in, log-policy and value out.  The
// symmetry logic lives in SymmetricEvaluator / symmetric_batch.h, shared by the
// local path and the server.
class BatchForward {
 public:
  virtual ~BatchForward() = default;
  // planes: n x kNumPlanes x size x size floats.  log_policy: n x size*size.
  // value: n.  Returns the model generation used.  Thread-safety: one caller at a time.
  virtual int64_t Forward(const float* planes, int n, float* log_policy, float* value) = 0;
  // Optional device-side encoding (docs/gpu.md).  A backend that encodes the
  // planes on its device returns true here and implements ForwardCompact; the
  // inference server then hands it compact rows (common/net/cuda/compact_row.h:
  // cells, last move, side to move and symmetry index, size*size + 4 bytes a
  // row) instead of encoded planes.  ForwardCompact must produce exactly what
  // Forward produces on the planes EncodePosition(pos, sym) gives for each
  // row.  The default: false, and ForwardCompact throws ModelError.
  virtual bool TakesCompactRows() const { return false; }
  virtual int64_t ForwardCompact(const uint8_t* rows, int n, float* log_policy, float* value);
  virtual int board_size() const = 0;
  virtual std::string Describe() const = 0;
};

}  // namespace gz
