// Mcts: starting a new root and keeping the chosen child's subtree (tree reuse, mcts.h Advance).
#include "common/search/mcts.h"

#include <cstdint>
#include <string>

#include "common/base/errors.h"

namespace gz {

void Mcts::Reset(const Board& root) {
  root_board_ = root;
  nodes_.clear();
  edges_.clear();
  nodes_.push_back(Node{});
  pending_ = false;
  sims_done_ = 0;
  // Outstanding batches (if any) refer to the old tree: ExpandAndBackupBatch refuses them.
  root_in_flight_ = 0;
  pending_leaves_ = 0;
  ++tree_epoch_;
}

int Mcts::CopySubtree(int idx, std::vector<Node>& dst_nodes, std::vector<Edge>& dst_edges) const {
  // Breadth-first copy; each node's edges stay contiguous and in order.
  const int new_root = static_cast<int>(dst_nodes.size());
  dst_nodes.push_back(nodes_[idx]);
  std::vector<std::pair<int, int>> queue{{idx, new_root}};
  for (size_t q = 0; q < queue.size(); ++q) {
    const auto [s, d] = queue[q];
    const Node& sn = nodes_[s];
    if (sn.first_edge < 0) continue;
    const int first = static_cast<int>(dst_edges.size());
    dst_nodes[d].first_edge = first;
    for (int k = 0; k < sn.num_edges; ++k) {
      Edge e = edges_[sn.first_edge + k];
      if (e.child >= 0) {
        const int copy = static_cast<int>(dst_nodes.size());
        dst_nodes.push_back(nodes_[e.child]);
        queue.emplace_back(e.child, copy);
        e.child = copy;
      }
      dst_edges.push_back(e);
    }
  }
  return new_root;
}

void Mcts::Advance(int move) {
  GOMOKU_CHECK(!pending_, "Advance with a pending evaluation");
  GOMOKU_CHECK(pending_leaves_ == 0, "Advance with " << pending_leaves_ << " batch leaves pending");
  root_board_.Play(move);  // throws RulesError if illegal
  ++tree_epoch_;
  sims_done_ = 0;
  int child = -1;
  if (params_.tree_reuse && !nodes_.empty() && nodes_[0].first_edge >= 0) {
    const Node& root = nodes_[0];
    for (int k = 0; k < root.num_visited; ++k)
      if (edges_[root.first_edge + k].move == move) child = edges_[root.first_edge + k].child;
  }
  if (child < 0 || root_board_.terminal()) {
    nodes_.clear();
    edges_.clear();
    nodes_.push_back(Node{});
    return;
  }
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  nodes.reserve(nodes_.size());
  edges.reserve(edges_.size());
  CopySubtree(child, nodes, edges);
  nodes_.swap(nodes);
  edges_.swap(edges);
  // VCT is asked at the search root only (NodeSolver steps 6-7), and the
  // reused root was analysed as a deeper node: ask again, and when VCT finds
  // something start from a fresh root, whose expansion gets the verdict.
  if (solver_ && params_.solver_vct_nodes > 0 && nodes_[0].proven == 0) {
    const std::string why = solver_->Analyse(root_board_, 0).reason;
    if (why == "vct" || why == "vct_null_move" || why == "no_vct_refutation") {
      nodes_.clear();
      edges_.clear();
      nodes_.push_back(Node{});
    }
  }
  // The new root's edges carry their network priors in order (the old root's
  // noise never reached this level); StartMove adds this move's noise.
}

}  // namespace gz
