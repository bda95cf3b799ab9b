// MctsLeafBatch (Mcts::LeafBatch): the leaves one caller of Mcts's batch API
// has pending (SelectLeaves -> evaluate positions() -> ExpandAndBackupBatch or
// CancelBatch; docs/search.md "Batched search").
//
// Owned by the caller, one per thread, and reused between rounds (its buffers
// keep their capacity).  Only Mcts fills and empties it; a batch belongs to
// one search and one tree (Reset / Advance of that search invalidate it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/game/board.h"

namespace gz {

class Mcts;

class MctsLeafBatch {
 public:
  // The positions to evaluate, in order (one per leaf).
  std::span<const Position> positions() const { return {positions_.data(), static_cast<size_t>(size_)}; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Of the last SelectLeaves: simulations finished at once (terminal or
  // solver-proven leaves, no evaluation) and descents that ran into a leaf
  // already pending (collisions; their virtual loss is already reverted).
  int exact() const { return exact_; }
  int collisions() const { return collisions_; }
  // The tree node of leaf i (tests: no node is pending twice).
  int node(int i) const { return leaves_[static_cast<size_t>(i)].path.back(); }

 private:
  friend class Mcts;
  struct Leaf {
    std::vector<int> path;    // node indices, root first
    std::vector<int> edges;   // edge index into path[i + 1]
    Board board;              // the leaf's position (for the expansion)
    bool restricted = false;  // solver: the children are `moves`
    std::vector<int> moves;
  };
  std::vector<Leaf> leaves_;          // [0, size_) in use
  std::vector<Position> positions_;   // [0, size_) in use
  int size_ = 0;
  int exact_ = 0;
  int collisions_ = 0;
  const Mcts* owner_ = nullptr;       // the search whose leaves these are (while size_ > 0)
  uint64_t epoch_ = 0;                // the owner's tree_epoch_ at SelectLeaves
};

}  // namespace gz
