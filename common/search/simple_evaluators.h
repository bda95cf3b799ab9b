// Network-free evaluators.
//
// UniformEvaluator: uniform policy over all points, value 0.  Deterministic;
//   used by MCTS tests and benchmarks.  Thread-safe (stateless).
// RolloutEvaluator: uniform policy, value = mean result of `rollouts` random
//   playouts from the position (the classic "pure MCTS" baseline).  The RNG of
//   each evaluation is seeded from (seed, position hash), so results do not
//   depend on call order.  Thread-safe (no shared mutable state).
#pragma once

#include "common/search/evaluator.h"

namespace gz {

class UniformEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override { return "uniform evaluator (no network)"; }
};

class RolloutEvaluator : public Evaluator {
 public:
  RolloutEvaluator(Rule rule, int rollouts, uint64_t seed) : rule_(rule), rollouts_(rollouts), seed_(seed) {}
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override;

 private:
  Rule rule_;
  int rollouts_;
  uint64_t seed_;
};

}  // namespace gz
