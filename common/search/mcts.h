// PUCT Monte-Carlo tree search over an Evaluator.
//
// The search is a step machine so that a driver can batch the leaf
// evaluations of many independent searches (parallel games) into one call:
//
//   search.StartMove();                       // per move: noise at the root
//   while (!search.MoveDone()) {
//     if (const Position* leaf = search.SelectLeaf()) {   // nullptr: terminal leaf, already backed up
//       evaluator.Evaluate({leaf,1}, result);  // or batched with other searches
//       search.ExpandAndBackup(result);
//     }
//   }
//
// Exactly one leaf is pending at a time (no virtual loss), so a game's search
// is identical whether its evaluations are batched with others or not.
// Determinism: for a given seed and the same evaluator outputs the search is
// bit-for-bit reproducible.  Thread-safety: none; one thread per Mcts, or
// callers that serialise every call (the engine's search threads hold one
// mutex around SelectLeaves / ExpandAndBackupBatch and evaluate outside it).
//
// The batch API (the engine, docs/search.md "Batched search") gathers several
// leaves of ONE search per evaluation, kept apart by virtual loss:
//
//   Mcts::LeafBatch batch;                  // one per caller (thread)
//   search.SelectLeaves(batch, 8);          // up to 8 leaves; terminal and proven leaves backed up at once
//   evaluator.Evaluate(batch.positions(), results);
//   search.ExpandAndBackupBatch(batch, results);   // reverts the virtual loss exactly, then backs up
//
// With max_leaves 1 and one caller it is the single-leaf search bit for bit.
// The single-leaf path (SelectLeaf / ExpandAndBackup / Search) is unchanged;
// the two may not be mixed while leaves are pending.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/search/evaluator.h"
#include "common/search/mcts_leaf_batch.h"
#include "common/search/mcts_params.h"
#include "common/search/mcts_tree.h"
#include "common/search/node_solver.h"
#include "common/search/solver_slot.h"

namespace gz {

class Mcts {
 public:
  Mcts(const MctsParams& params, uint64_t seed);

  // Sets a new root position; discards the tree.
  void Reset(const Board& root);
  // Plays `move` at the root, keeping its subtree when tree_reuse is on.
  void Advance(int move);

  // Begins the search for the current root move (applies root noise when
  // add_noise).  Precondition: root not terminal.
  void StartMove(bool add_noise);
  // The same with this move's own simulation count (playout-cap randomization);
  // StartMove(add_noise) is StartMove(add_noise, params.simulations).
  void StartMove(bool add_noise, int simulations);
  // The simulations are spent, or (solver) the root is proven won: the
  // search plays a proven win at once.
  bool MoveDone() const {
    return sims_done_ >= move_simulations_ || (nodes_[0].proven > 0 && nodes_[0].expanded);
  }
  // Descends to a leaf.  Returns the position to evaluate, or nullptr when the
  // leaf was terminal (it is then already backed up and counted).
  const Position* SelectLeaf();
  // Supplies the evaluation of the pending leaf.
  void ExpandAndBackup(const EvalResult& result);

  // Convenience: runs a whole move's search with single-position evaluations.
  void Search(Evaluator& evaluator, bool add_noise);

  // ---- Batch API (virtual loss) ----
  // The leaves one caller has pending (common/search/mcts_leaf_batch.h).
  using LeafBatch = MctsLeafBatch;
  // Gathers up to max_leaves (>= 1) leaves for one evaluation into `batch`
  // (which must be empty: a new one, or one handed back through
  // ExpandAndBackupBatch / CancelBatch).  Each descent adds a virtual loss
  // (one in-flight visit that counts as a loss) to the edges it took, so the
  // next descent of this or another batch prefers other lines.  Terminal and
  // solver-proven leaves are backed up at once and counted as simulations,
  // as in SelectLeaf.  A descent that reaches a leaf already pending (in this
  // batch or another caller's) is a collision: it adds nothing, its virtual
  // loss steers the rest of this gather and is reverted before returning.
  // Gathering stops at max_leaves leaves, max_leaves descents in all, a
  // collision at an unexpanded root, max_leaves collisions, the move's
  // simulation budget (simulations done + leaves pending), or a proven-won
  // root.  The batch may come back empty (everything collided or was exact).
  void SelectLeaves(LeafBatch& batch, int max_leaves);
  // Supplies the evaluations of batch.positions() (results.size() ==
  // batch.size()): reverts every leaf's virtual loss exactly (integer
  // counts), expands each leaf and backs its value up.  Empties the batch.
  void ExpandAndBackupBatch(LeafBatch& batch, std::span<const EvalResult> results);
  // Drops a batch whose evaluation failed: reverts its virtual loss; its
  // leaves stay unexpanded (a later descent evaluates them again).
  void CancelBatch(LeafBatch& batch);
  // Leaves pending in all batches (0 when no batch is outstanding).
  int pending_leaves() const { return pending_leaves_; }
  // Simulations finished in this move's search so far.
  int simulations_done() const { return sims_done_; }
  // Test support: "" when the tree is consistent, else its first
  // inconsistency.  Checked: edges [0, num_visited) of each expanded node
  // have children and the rest none; in-flight counts are conserved (the
  // root's equals pending_leaves(), an expanded node's incoming count is the
  // sum over its edges; all 0 with nothing pending); an expanded node that is
  // not proven has 1 + the sum of its children's visits (its own
  // expansion), a proven one at least that.
  std::string CheckTree() const;
  // Test support: the root's value sum (from the view of the player who
  // moved into the root).
  double RootValueSum() const { return nodes_[0].value_sum; }
  // Convenience: a whole move's search through the batch API, up to
  // max_leaves leaves per evaluation (max_leaves 1: Search, bit for bit).
  void SearchBatched(Evaluator& evaluator, bool add_noise, int max_leaves);

  // Visit counts of the root's children as a distribution over all points.
  // A proven-won root (solver) counts one visit on its winning move only; so
  // does the best prior of an expanded root with no child visited yet (a
  // budget of one simulation), so that there is always a move to pick.
  std::vector<float> VisitDistribution() const;
  std::vector<int> VisitCounts() const;
  // Policy-target pruning (KataGo): VisitCounts() less the forced visits that
  // did not earn their place.  c* = the child with the most visits (ties: the
  // lowest move); from each other child c, up to floor(forced(c)) visits are
  // removed as long as PUCT(c) with the reduced count stays below PUCT(c*)
  // (PUCT = Q + c_puct * P * sqrt(root visits) / (1 + n), P the noised prior),
  // and a child left with a single visit is dropped.  Equals VisitCounts()
  // unless forced playouts were active in this move's search.
  std::vector<int> PrunedVisitCounts() const;
  // The arithmetic of PrunedVisitCounts on plain numbers: children's visits,
  // Q (the parent's view), priors; parent_visits is the N under the sqrt,
  // total the sum of the children's visits (forced = k * sqrt(P * total)).
  // Returns each child's visits after pruning.
  struct ChildStats {
    int visits = 0;
    double q = 0.0;
    float prior = 0.0f;
    int move = 0;   // ties of the most-visited child go to the lowest move
  };
  static std::vector<int> PruneForcedVisits(const std::vector<ChildStats>& children, double c_puct, int parent_visits,
                                            int total, float k);
  // Whether this move's search forces playouts (noise on, forced_playouts_k > 0).
  bool forced_playouts_active() const { return forced_active_; }
  // The Dirichlet concentration of the root noise for `legal` root moves.
  float NoiseAlpha(int legal) const {
    return params_.dirichlet_alpha_scaled > 0 ? params_.dirichlet_alpha_scaled / static_cast<float>(legal)
                                              : params_.dirichlet_alpha;
  }
  // The priors the root selects with (noised when noise was applied), and the
  // network's, over all points (0 for no child).  For tests.
  std::vector<float> RootPriors(bool raw = false) const;
  // The Q an unvisited child of `node` scores with (fpu_value, or the
  // parent's Q less the reduction).  For tests; node 0 is the root.
  double UnvisitedQ(int node) const;
  // Mean value of the root for its side to move, in [-1, 1]; +1 / -1 when
  // the root is proven won / lost.
  float RootValue() const;
  // Solver (always kNone when mcts.solver is off): what is proven about the
  // root for its side to move.  The root is analysed at its first
  // simulation, so a fresh root is kNone until then.
  Proven RootProven() const;
  // The winning move of a proven-won, expanded root (a child proven lost for
  // its side to move, else the single move the solver left); kNoMove otherwise.
  int ProvenMove() const;
  // The solver's counters (nullptr when mcts.solver is off).
  const NodeSolverStats* solver_stats() const { return solver_ ? &solver_->stats() : nullptr; }
  int RootVisits() const;
  // ---- Read-only views for analysis (match/analysis_report.h) ----
  // One root edge: its move, visits (0 unvisited), mean value for the
  // root's side to move (0 when unvisited), network prior, and what the
  // solver proved about playing it (kWin: the move wins, kLoss: it loses).
  struct RootChild {
    int move = kNoMove;
    int visits = 0;
    double q = 0.0;
    float prior = 0.0f;
    Proven proven = Proven::kNone;
  };
  // Every root edge (empty before the root's expansion), in no particular order.
  std::vector<RootChild> RootChildren() const;
  // The line the tree expects after `first` (a root move; kNoMove: the most
  // visited root child): `first`, then at each node the most visited child
  // (ties to the lowest move) -- at a proven-won node the child proven lost
  // for its side to move, at a proven-lost one the most visited -- until a
  // node without visited children or max_length moves.  Empty when `first`
  // is no visited root child.
  std::vector<int> PrincipalVariation(int first, int max_length) const;
  // Removes `moves` from the root's children (analysis: Yixin's YXBLOCK,
  // the JSON engine's avoidMoves).  Precondition: the root is expanded and
  // no batch is pending.  Their visits and values leave the root's totals
  // and a root proven won only through a removed move becomes unproven.
  // Returns the number of children left; with 0 left nothing is removed.
  // The tree is for this analysis only: do not reuse it (Advance) afterwards.
  int ExcludeRootMoves(const std::vector<int>& moves);
  // Tree memory, and a way to pre-allocate it: a timed search (the engine)
  // reserves its budget up front so the tree never pauses to reallocate
  // mid-search.  One expansion of a leaf with `legal` moves adds at most
  // ExpansionBytes(legal).  ReserveTree may copy the current tree once.
  size_t TreeBytes() const { return nodes_.size() * sizeof(Node) + edges_.size() * sizeof(Edge); }
  static size_t ExpansionBytes(int legal) { return sizeof(Node) + static_cast<size_t>(legal) * sizeof(Edge); }
  void ReserveTree(size_t expansions, int legal) {
    nodes_.reserve(expansions + 1);
    edges_.reserve(expansions * static_cast<size_t>(legal));
  }
  const Board& root_board() const { return root_board_; }
  // Model generation of the most recent evaluation (0 if none).
  int64_t last_generation() const { return last_generation_; }
  // Total leaf evaluations requested since construction.
  int64_t evaluations() const { return evaluations_; }

 private:
  // The tree: nodes_ and edges_ (layout and invariant: common/search/mcts_tree.h).
  using Node = MctsNode;
  using Edge = MctsEdge;

  // `parent_in_flight`: the in-flight count of the edge into `node` (the
  // root's own count for node 0); 0 in the single-leaf path.
  int SelectEdge(int node, int parent_in_flight = 0) const;
  // Forced playouts at the root: the edge to force (-1: none).
  int ForcedRootEdge() const;
  double ForcedPlayouts(float prior, int child_visits_total) const {
    return params_.forced_playouts_k * std::sqrt(static_cast<double>(prior) * child_visits_total);
  }
  void PromoteBestUnvisited(int node);
  // The descent takes edge `e` of `node`: on its first visit the edge gets
  // its child node and moves into the visited prefix.  Returns the edge's
  // index after that move.
  int EnterEdge(int node, int e);
  // The batched gather's descent: from the root along SelectEdge to an
  // unexpanded, childless or (below the root) proven node.  Fills `path`
  // (nodes, root first), `edges` and `board` (the leaf's position); returns
  // the in-flight count of the edge into the leaf (the root's own for the root).
  int DescendToLeaf(std::vector<int>& path, std::vector<int>& edges, Board& board);
  void Backup(double leaf_value_for_leaf_mover) { Backup(path_, leaf_value_for_leaf_mover); }
  void Backup(const std::vector<int>& path, double leaf_value_for_leaf_mover);
  // MCTS-solver: the leaf of path_ was just proven; prove its ancestors
  // (a child proven lost for its side to move proves its parent won; a
  // parent all of whose children exist and are proven won is lost).
  void SolverBackup() { SolverBackup(path_); }
  void SolverBackup(const std::vector<int>& path);
  // Creates the edges of `leaf` (position `board`) from `result` and marks it
  // expanded (the root gets this move's priors / noise).
  void ExpandLeaf(int leaf, const Board& board, const EvalResult& result, bool restricted,
                  const std::vector<int>& moves);
  // Adds `delta` in-flight visits along a batch leaf's (or collision's) edges.
  void AddInFlight(const std::vector<int>& edges, int delta);
  // A finished game at the end of `path` (position `board`): its exact score
  // backed up (and, with the solver, its proof); one simulation done.
  void BackupTerminal(const std::vector<int>& path, const Board& board);
  // The batched gather's steps.  A collision's virtual loss, kept in
  // collided_edges_ until RevertCollisions takes back `descents` of them.
  void AddCollision(const std::vector<int>& edges);
  void RevertCollisions(int descents);
  // The solver's verdict on a leaf about to be gathered, into `leaf`'s
  // restriction; true when the leaf is proven (below the root) and its exact
  // value was backed up instead.
  bool SolveBatchLeaf(const std::vector<int>& path, const Board& board, LeafBatch::Leaf& leaf);
  // Makes the next slot of `batch` (its Leaf already holds the solver's
  // restriction) the pending leaf at `path`, under virtual loss.
  void QueueLeaf(LeafBatch& batch, const std::vector<int>& path, const std::vector<int>& edges, const Board& board);
  void ResetRootPriors(bool add_noise);
  int CopySubtree(int idx, std::vector<Node>& dst_nodes, std::vector<Edge>& dst_edges) const;

  MctsParams params_;
  std::mt19937_64 rng_;
  Board root_board_;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  // State of the current simulation.
  std::vector<int> path_;
  std::vector<int> scratch_legal_;
  std::vector<float> scratch_prior_;
  SolverSlot solver_;                   // only when params_.solver
  bool pending_restricted_ = false;     // the pending leaf's children are pending_moves_
  std::vector<int> pending_moves_;
  Board leaf_board_;
  Position leaf_position_;
  bool pending_ = false;
  bool noise_pending_ = false;
  int sims_done_ = 0;
  int move_simulations_ = 0;            // this move's budget (params_.simulations unless the cap says otherwise)
  // Batch API: the root's own in-flight count (the root has no edge), and
  // the leaves pending in all outstanding batches.
  int root_in_flight_ = 0;
  int pending_leaves_ = 0;
  uint64_t tree_epoch_ = 0;             // bumped by Reset / Advance: outstanding batches become invalid
  std::vector<int> scratch_path_, scratch_edges_, collided_edges_;
  Board scratch_board_;
  bool forced_active_ = false;
  int64_t last_generation_ = 0;
  int64_t evaluations_ = 0;
};

// Samples a move from visit counts with temperature tau (tau <= 0 or tiny:
// argmax, ties to the lowest point).  `rng` drives the sampling.
int PickMove(const std::vector<int>& visits, float tau, std::mt19937_64& rng);

}  // namespace gz
