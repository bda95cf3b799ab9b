// An Evaluator over positions of several board sizes: one evaluator per size,
// each called only with positions of its own size, so positions of different
// sizes never share a forward (a network forward, a server batch).  A call
// with mixed sizes is split by size (one inner call per size present, in
// ascending size order) and the results go back in the caller's order.
//
// Ownership: the router owns its inner evaluators.  Thread-safety: none; one
// caller at a time (like the inner evaluators).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>

#include "common/search/evaluator.h"

namespace gz {

class SizeRouter : public Evaluator {
 public:
  // Precondition: no evaluator for `size` yet (GomokuError otherwise).
  void Add(int size, std::unique_ptr<Evaluator> evaluator);
  // The evaluator of `size`, nullptr when none.
  Evaluator* at(int size) const;
  // A position of a size with no evaluator is a GomokuError naming the size.
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override;  // "9x9: ...; 11x11: ..."

 private:
  std::map<int, std::unique_ptr<Evaluator>> by_size_;
  // Scratch of the split path (one caller at a time).
  std::vector<Position> split_positions_;
  std::vector<EvalResult> split_results_;
  std::vector<size_t> split_index_;
};

}  // namespace gz
