// Mcts: the batched descent -- several leaves a round under virtual loss, one
// Evaluate call for them all, and their backup (mcts.h SelectLeaves / SearchBatched).
#include "common/search/mcts.h"

#include <cstdint>
#include <string>

#include "common/base/errors.h"

namespace gz {

void Mcts::AddInFlight(const std::vector<int>& edges, int delta) {
  root_in_flight_ += delta;
  for (int e : edges) {
    const int v = edges_[e].in_flight + delta;
    GOMOKU_CHECK(v >= 0 && v <= INT16_MAX, "in-flight count out of range on an edge: " << v);
    edges_[e].in_flight = static_cast<int16_t>(v);
  }
}

int Mcts::DescendToLeaf(std::vector<int>& path, std::vector<int>& edges, Board& board) {
  path.assign(1, 0);
  edges.clear();
  board = root_board_;
  int node = 0;
  int incoming = root_in_flight_;  // in-flight count of the edge into `node`
  while (nodes_[node].expanded && nodes_[node].num_edges > 0) {
    if (nodes_[node].proven != 0 && node != 0) break;  // solver: a leaf with an exact value
    const int e = EnterEdge(node, SelectEdge(node, incoming));
    board.Play(edges_[e].move);
    edges.push_back(e);
    incoming = edges_[e].in_flight;
    node = edges_[e].child;
    path.push_back(node);
  }
  return incoming;
}

void Mcts::SelectLeaves(LeafBatch& batch, int max_leaves) {
  GOMOKU_CHECK(max_leaves >= 1, "SelectLeaves needs max_leaves >= 1, got " << max_leaves);
  GOMOKU_CHECK(!pending_, "SelectLeaves with a pending single-leaf evaluation");
  GOMOKU_CHECK(batch.size_ == 0, "SelectLeaves with a batch whose " << batch.size_ << " leaves are still pending");
  batch.exact_ = 0;
  batch.collisions_ = 0;
  batch.owner_ = this;
  batch.epoch_ = tree_epoch_;
  collided_edges_.clear();
  int collided_descents = 0;
  std::vector<int>& path = scratch_path_;
  std::vector<int>& edges = scratch_edges_;
  Board& board = scratch_board_;
  while (batch.size_ + batch.exact_ < max_leaves && batch.collisions_ < max_leaves) {
    if (MoveDone() || sims_done_ + pending_leaves_ >= move_simulations_) break;
    const int incoming = DescendToLeaf(path, edges, board);
    const int node = path.back();
    if (board.terminal()) {  // exact, as in SelectLeaf
      BackupTerminal(path, board);
      ++batch.exact_;
      continue;
    }
    const bool proven_leaf = solver_ && nodes_[node].proven != 0 && node != 0;
    if (!proven_leaf && incoming > 0) {
      // Collision: this leaf is pending (here or in another batch).  Its
      // virtual loss steers the rest of this gather; reverted below.
      AddCollision(edges);
      ++collided_descents;
      ++batch.collisions_;
      if (node == 0) break;  // the root's own expansion is pending: nothing else to gather
      continue;
    }
    if (batch.size_ == static_cast<int>(batch.leaves_.size())) {
      batch.leaves_.emplace_back();
      batch.positions_.emplace_back();
    }
    LeafBatch::Leaf& leaf = batch.leaves_[batch.size_];
    leaf.moves.clear();
    leaf.restricted = false;
    if (solver_ && SolveBatchLeaf(path, board, leaf)) {
      ++batch.exact_;
      continue;
    }
    QueueLeaf(batch, path, edges, board);
  }
  RevertCollisions(collided_descents);
}

void Mcts::AddCollision(const std::vector<int>& edges) {
  AddInFlight(edges, +1);
  collided_edges_.insert(collided_edges_.end(), edges.begin(), edges.end());
  collided_edges_.push_back(-1);  // separator
}

void Mcts::RevertCollisions(int descents) {
  // Exact: integer counts.
  root_in_flight_ -= descents;
  for (size_t i = 0; i < collided_edges_.size(); ++i) {
    const int e = collided_edges_[i];
    if (e >= 0) edges_[e].in_flight = static_cast<int16_t>(edges_[e].in_flight - 1);
  }
  collided_edges_.clear();
}

bool Mcts::SolveBatchLeaf(const std::vector<int>& path, const Board& board, LeafBatch::Leaf& leaf) {
  const int node = path.back();
  if (!nodes_[node].expanded && (nodes_[node].proven == 0 || node == 0)) {
    NodeVerdict v = solver_->Analyse(board, board.move_count() - root_board_.move_count());
    leaf.restricted = v.restricted;
    leaf.moves = std::move(v.moves);
    if (v.proven != Proven::kNone && nodes_[node].proven == 0) {
      nodes_[node].proven = v.proven == Proven::kWin ? 1 : -1;
      SolverBackup(path);
    }
  }
  if (nodes_[node].proven == 0 || node == 0) return false;
  Backup(path, nodes_[node].proven < 0 ? 1.0 : -1.0);
  ++sims_done_;
  return true;
}

void Mcts::QueueLeaf(LeafBatch& batch, const std::vector<int>& path, const std::vector<int>& edges,
                     const Board& board) {
  LeafBatch::Leaf& leaf = batch.leaves_[batch.size_];
  leaf.path.assign(path.begin(), path.end());
  leaf.edges.assign(edges.begin(), edges.end());
  leaf.board = board;
  Position& pos = batch.positions_[batch.size_];
  pos.size = board.size();
  pos.cells.assign(board.cells().begin(), board.cells().end());
  pos.last_move = board.last_move();
  pos.to_move = board.to_move();
  pos.rule = board.rule();
  AddInFlight(edges, +1);
  ++batch.size_;
  ++pending_leaves_;
}

void Mcts::ExpandAndBackupBatch(LeafBatch& batch, std::span<const EvalResult> results) {
  if (batch.size_ == 0) {
    GOMOKU_CHECK(results.empty(), "ExpandAndBackupBatch: " << results.size() << " results for an empty batch");
    return;
  }
  GOMOKU_CHECK(batch.owner_ == this && batch.epoch_ == tree_epoch_,
               "ExpandAndBackupBatch with a batch of another search or of a tree since reset");
  GOMOKU_CHECK(static_cast<int>(results.size()) == batch.size_,
               "ExpandAndBackupBatch: " << results.size() << " results for " << batch.size_ << " leaves");
  const int pts = root_board_.num_points();
  for (const EvalResult& r : results)
    GOMOKU_CHECK(static_cast<int>(r.log_policy.size()) == pts,
                 "evaluator returned " << r.log_policy.size() << " policy entries, expected " << pts);
  for (int i = 0; i < batch.size_; ++i) AddInFlight(batch.leaves_[i].edges, -1);
  for (int i = 0; i < batch.size_; ++i) {
    LeafBatch::Leaf& leaf = batch.leaves_[i];
    ExpandLeaf(leaf.path.back(), leaf.board, results[i], solver_ && leaf.restricted, leaf.moves);
    Backup(leaf.path, -static_cast<double>(results[i].value));
    ++sims_done_;
  }
  pending_leaves_ -= batch.size_;
  batch.size_ = 0;
}

void Mcts::CancelBatch(LeafBatch& batch) {
  if (batch.size_ == 0) return;
  if (batch.owner_ == this && batch.epoch_ == tree_epoch_) {
    for (int i = 0; i < batch.size_; ++i) AddInFlight(batch.leaves_[i].edges, -1);
    pending_leaves_ -= batch.size_;
  }
  batch.size_ = 0;
}

void Mcts::SearchBatched(Evaluator& evaluator, bool add_noise, int max_leaves) {
  StartMove(add_noise);
  LeafBatch batch;
  std::vector<EvalResult> results;
  while (!MoveDone()) {
    SelectLeaves(batch, max_leaves);
    if (batch.empty()) continue;
    results.resize(batch.size());
    try {
      evaluator.Evaluate(batch.positions(), results);
    } catch (...) {
      CancelBatch(batch);
      throw;
    }
    ExpandAndBackupBatch(batch, results);
  }
}

}  // namespace gz
