#include "common/search/size_router.h"

#include "common/base/errors.h"

namespace gz {

void SizeRouter::Add(int size, std::unique_ptr<Evaluator> evaluator) {
  GOMOKU_CHECK(evaluator, "SizeRouter: null evaluator for size " << size);
  GOMOKU_CHECK(!by_size_.count(size), "SizeRouter: size " << size << " added twice");
  by_size_[size] = std::move(evaluator);
}

Evaluator* SizeRouter::at(int size) const {
  auto it = by_size_.find(size);
  return it == by_size_.end() ? nullptr : it->second.get();
}

void SizeRouter::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  GOMOKU_CHECK(positions.size() == results.size(), "SizeRouter: " << positions.size() << " positions, "
                                                                   << results.size() << " results");
  if (positions.empty()) return;
  auto inner = [this](int size) {
    Evaluator* e = at(size);
    GOMOKU_CHECK(e, "no evaluator for board size " << size << " (this run plays " << Describe() << ")");
    return e;
  };
  bool one_size = true;
  for (const Position& p : positions) {
    inner(p.size);  // a size nobody serves is an error, not a silent default
    one_size = one_size && p.size == positions.front().size;
  }
  if (one_size) {  // the common case: no copies
    inner(positions.front().size)->Evaluate(positions, results);
    return;
  }
  for (const auto& [size, evaluator] : by_size_) {
    split_positions_.clear();
    split_index_.clear();
    for (size_t i = 0; i < positions.size(); ++i)
      if (positions[i].size == size) {
        split_positions_.push_back(positions[i]);
        split_index_.push_back(i);
      }
    if (split_positions_.empty()) continue;
    split_results_.assign(split_positions_.size(), EvalResult{});
    evaluator->Evaluate(split_positions_, split_results_);
    for (size_t k = 0; k < split_index_.size(); ++k) results[split_index_[k]] = std::move(split_results_[k]);
  }
}

std::string SizeRouter::Describe() const {
  std::string out;
  for (const auto& [size, evaluator] : by_size_)
    out += (out.empty() ? "" : "; ") + std::to_string(size) + "x" + std::to_string(size) + ": " + evaluator->Describe();
  return out.empty() ? "no board sizes" : out;
}

}  // namespace gz
