// The storage of an Mcts tree (internal to common/search/mcts*.cc; Mcts names
// these Mcts::Node and Mcts::Edge).
//
// Lazy children, as lc0 separates edges from nodes: an expanded node owns a
// contiguous run of edges, one per legal move, holding the prior; a child
// node exists only once its edge has been selected.  Invariant per node:
// edges [0, num_visited) have child nodes, and edge num_visited is the best
// unvisited one (highest prior, ties to the lowest move).  All unvisited
// children score fpu + c*prior*sqrt(N), so selection only needs to look at the
// visited edges plus that one; it makes exactly the choice a scan over every
// child (ties to the lowest move) would make.  The sizes (24 and 16 bytes)
// are asserted in mcts.cc: the solver flag and the in-flight count live in
// padding, and Mcts::ExpansionBytes budgets the engine's tree memory with them.
#pragma once

#include <cstdint>

#include "common/game/board.h"

namespace gz {

struct MctsNode {              // 24 bytes
  double value_sum = 0.0;      // from the view of the player who moved into this node
  int32_t first_edge = -1;     // edges[first_edge, first_edge + num_edges) once expanded
  int32_t visits = 0;
  int16_t num_edges = 0;
  int16_t num_visited = 0;     // edges with a child node (a prefix, see above)
  int8_t terminal = -1;        // -1 unknown/ongoing; else Outcome
  bool expanded = false;
  // Solver only: +1 the side to move here wins, -1 it loses, 0 unknown.
  // A proven node other than the root is a leaf with an exact value.
  int8_t proven = 0;
};

struct MctsEdge {              // 16 bytes
  float prior = 0.0f;          // prior used in selection (noised at the root)
  float raw_prior = 0.0f;      // network prior
  int32_t child = -1;          // node index once selected
  int16_t move = kNoMove;
  // Batch API only (in the padding): descents through this edge whose leaf
  // is pending (virtual loss).  0 whenever no batch is outstanding.
  int16_t in_flight = 0;
};

}  // namespace gz
