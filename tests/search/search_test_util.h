// Search settings and views shared by the MCTS tests (test_mcts_solver,
// test_mcts_batch).
#pragma once

#include <vector>

#include "common/search/mcts_params.h"

namespace gz::testing {

// `sims` simulations, no Dirichlet noise (a search the tests can predict).
inline MctsParams NoNoiseParams(int sims) {
  MctsParams p;
  p.simulations = sims;
  p.dirichlet_alpha = 0;
  return p;
}

// NoNoiseParams with the threat solver at expansion (mcts.solver) on or off,
// its VCF queries limited to `vcf_nodes` nodes.
inline MctsParams SolverParams(int sims, bool solver = true, int vcf_nodes = 1000) {
  MctsParams p = NoNoiseParams(sims);
  p.solver = solver;
  p.solver_vcf_nodes = vcf_nodes;
  return p;
}

// The moves with at least one visit, in increasing order.
inline std::vector<int> VisitedMoves(const std::vector<int>& counts) {
  std::vector<int> out;
  for (int m = 0; m < static_cast<int>(counts.size()); ++m)
    if (counts[m] > 0) out.push_back(m);
  return out;
}

}  // namespace gz::testing
