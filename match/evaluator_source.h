// Where a SearchPlayer's evaluations come from (the engine's, the dashboard's
// browser games): a checkpoint (a local network) or, without one, the
// pure-MCTS baseline (RolloutEvaluator with 1 playout per leaf).
//
// inference.backend picks the network's forward: "native" the project's own
// CPU kernels (common/net/native/native_forward.h), "torch" LibTorch's
// (net_api.h LoadForward), "auto" (the default) native when inference.device
// resolves to the CPU, else LibTorch: on the CPU the native forward is 2-3x
// faster at the engine's batches (docs/benchmarks.md "The native CPU forward").
// native with a CUDA device is refused (at START, like any load failure).
//
// A network is loaded once, at construction, so START answers quickly; a load
// failure does not throw here but is kept and reported by CheckSize(), which
// the protocol turns into `ERROR ...` at START.  A network with fc heads
// plays only the board size it was trained for; one with conv heads
// (docs/network.md "Heads") plays any size 5..22, re-loaded at a game's size
// when that differs from the last one; the baseline plays any size 5..22.
// Thread-safety: none; owned by the engine's main thread.
#pragma once

#include <memory>
#include <string>

#include "common/config/config.h"
#include "common/game/board.h"
#include "common/net/net_api.h"
#include "common/search/evaluator.h"

namespace gz {

class EvaluatorSource {
 public:
  // Baseline when `weights` is empty, else the network (loaded now).  Reads
  // run.seed and inference.device, inference.threads, inference.symmetry,
  // inference.backend from `config`.
  EvaluatorSource(const std::string& weights, const Config& config);
  ~EvaluatorSource();

  bool uses_network() const { return !weights_.empty(); }
  // "" when the engine can play on a size x size board, else why not (one line).
  std::string CheckSize(int size) const;
  // The evaluator for games of `size` under `rule`.  Precondition:
  // CheckSize(size) is "".  The reference stays valid until the next ForGame
  // call with a different size or rule.  Throws GomokuError when a conv
  // checkpoint cannot be re-loaded at `size`.
  Evaluator& ForGame(int size, Rule rule);
  // One line: what plays (network path/iteration or baseline).
  std::string Describe() const;

 private:
  std::string weights_;
  uint64_t seed_;
  std::string device_;
  int threads_ = 0;
  std::string symmetry_;
  std::string backend_;
  // Network mode.
  std::unique_ptr<Evaluator> network_;
  std::string load_error_;
  int network_board_size_ = 0;  // the checkpoint's own size
  std::string network_heads_;   // "fc" | "conv"
  int network_plays_ = 0;       // the size network_ evaluates
  std::string network_rule_;
  int64_t network_iteration_ = 0;
  bool warned_rule_ = false;
  // The network through inference.backend (see above).
  std::unique_ptr<Evaluator> LoadNetwork(const CheckpointExpect& expect, CheckpointInfo* info) const;
  // Baseline mode.
  std::unique_ptr<Evaluator> baseline_;
  Rule baseline_rule_ = Rule::kFreestyle;
};

}  // namespace gz
