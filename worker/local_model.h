// Local (in-process) inference that follows the current weights.
//
// The worker tells it which checkpoint is current (SetWeights); the network
// is (re)loaded lazily on the next Evaluate, so the fallback path always uses
// the weights metadata.json names.  Weights "uniform" selects the
// UniformEvaluator (tests).  The forward is the one the server runs for the
// same config (ChooseForward over inference.backend, device and threads:
// native on the CPU by default), so a game played locally and one played
// through the server are the same game
// (tests/worker/test_batched_selfplay_equivalence.cc).
// Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"

namespace gz {

class ReloadingLocalEvaluator : public Evaluator {
 public:
  // backend: inference.backend ("auto" | "native" | "torch").
  ReloadingLocalEvaluator(std::string device, int threads, SymmetryMode mode, int board_size,
                          std::string backend = "auto")
      : device_(std::move(device)), backend_(std::move(backend)), threads_(threads), mode_(mode),
        board_size_(board_size) {}
  void SetWeights(const std::string& path) { wanted_ = path; }
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override;
  // The forward the loaded net runs ("native" | "torch"; "" before a load or
  // for "uniform").
  const std::string& forward() const { return forward_; }

 private:
  std::string device_, backend_, forward_;
  int threads_;
  SymmetryMode mode_;
  int board_size_;
  std::string wanted_, loaded_;
  std::unique_ptr<Evaluator> impl_;
};

// Forwards to an evaluator owned elsewhere (lets a factory hand out a view).
class BorrowedEvaluator : public Evaluator {
 public:
  explicit BorrowedEvaluator(Evaluator* target) : target_(target) {}
  void Evaluate(std::span<const Position> p, std::span<EvalResult> r) override { target_->Evaluate(p, r); }
  std::string Describe() const override { return target_->Describe(); }

 private:
  Evaluator* target_;
};

// Counts the positions evaluated through it (benchmarks, summaries).
class CountingEvaluator : public Evaluator {
 public:
  explicit CountingEvaluator(Evaluator* target) : target_(target) {}
  void Evaluate(std::span<const Position> p, std::span<EvalResult> r) override {
    target_->Evaluate(p, r);
    positions_ += static_cast<int64_t>(p.size());
    ++calls_;
  }
  std::string Describe() const override { return target_->Describe(); }
  int64_t positions() const { return positions_; }
  int64_t calls() const { return calls_; }

 private:
  Evaluator* target_;
  int64_t positions_ = 0, calls_ = 0;
};

}  // namespace gz
