// SolverSlot: the NodeSolver a search owns (Mcts with mcts.solver on).
//
// Copyable so that Mcts stays copyable: a copy gets a fresh solver with the
// same budgets (the solver's table is only a cache, and its counters start at
// zero).  Empty (false) when the search runs without the solver.
#pragma once

#include <cstdint>
#include <memory>

#include "common/search/node_solver.h"

namespace gz {

class SolverSlot {
 public:
  SolverSlot() = default;
  SolverSlot(int64_t vcf_nodes, int64_t vct_nodes)
      : solver_(std::make_unique<NodeSolver>(vcf_nodes, vct_nodes)), vcf_nodes_(vcf_nodes), vct_nodes_(vct_nodes) {}
  SolverSlot(const SolverSlot& o) { *this = o; }
  SolverSlot& operator=(const SolverSlot& o) {
    if (this != &o) {
      solver_ = o.solver_ ? std::make_unique<NodeSolver>(o.vcf_nodes_, o.vct_nodes_) : nullptr;
      vcf_nodes_ = o.vcf_nodes_;
      vct_nodes_ = o.vct_nodes_;
    }
    return *this;
  }
  SolverSlot(SolverSlot&&) noexcept = default;
  SolverSlot& operator=(SolverSlot&&) noexcept = default;
  explicit operator bool() const { return solver_ != nullptr; }
  NodeSolver* operator->() const { return solver_.get(); }

 private:
  std::unique_ptr<NodeSolver> solver_;
  int64_t vcf_nodes_ = 0;
  int64_t vct_nodes_ = 0;
};

}  // namespace gz
