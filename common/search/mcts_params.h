// MctsParams: the settings of one search (Mcts, common/search/mcts.h).  The
// config registry binds the mcts.* keys to these fields directly
// (common/config/config.cc, docs/configuration.md); there is no mirror struct.
// How a driver runs the search (the engine's leaves per evaluation and
// threads: engine.*, common/config/config.h) is that driver's setting.
#pragma once

namespace gz {

struct MctsParams {
  int simulations = 800;          // new simulations per move
  float c_puct = 1.5f;
  float dirichlet_alpha = 0.3f;   // root noise; 0 disables
  float dirichlet_epsilon = 0.25f;
  float fpu_value = 0.0f;         // Q of unvisited children (parent's view)
  bool tree_reuse = true;
  // Threat solver at expansion (common/search/node_solver.h, docs/search.md):
  // proven wins and losses, moves restricted to forced ones, MCTS-solver
  // backup.  Off: the search is exactly the plain PUCT search.
  bool solver = false;
  int solver_vcf_nodes = 1000;    // attacker nodes per VCF query
  // Attacker nodes per VCT query (fours and threes, near the root: NodeSolver
  // steps 6 and 7); 0 = off.
  int solver_vct_nodes = 0;
  // Self-play recipe (docs/search.md "Self-play recipe"); each off by default,
  // and off the search is bit for bit the plain one.
  // Forced playouts (KataGo): under root noise, a root child with (noised)
  // prior P and fewer than forced_playouts_k * sqrt(P * total child visits)
  // visits is selected first.  0 = off.
  float forced_playouts_k = 0.0f;
  // With forced playouts: remove from the policy target (and the move choice)
  // the forced visits that did not earn their place (PrunedVisitCounts).
  bool policy_target_pruning = false;
  // FPU reduction: an unvisited child's Q is the parent's Q minus this
  // (root / below the root separately).  0 = off: fpu_value, as before.
  float fpu_reduction_root = 0.0f;
  float fpu_reduction = 0.0f;
  // Dirichlet alpha scaled to the root's number of moves: alpha = this / legal
  // (KataGo: 10.83 / legal).  0 = off: dirichlet_alpha.
  float dirichlet_alpha_scaled = 0.0f;
};

}  // namespace gz
