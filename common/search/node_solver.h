// What the threat solver (common/game/threats.h) proves about a position
// before MCTS expands it (`mcts.solver`, docs/search.md).
//
// For the side to move s (opponent o), in this order:
//   1. s has a five point: proven win; the only move is the (lowest) five.
//   2. o has two or more five points: proven loss (s cannot block them all);
//      the moves are the blocks (a block only delays).
//   3. o has one five point: the only move is its block (a block that is not
//      a legal point is a proven loss); proven win when s has a VCF starting
//      with that block.
//   4. s has a VCF (within the budget): proven win; the only move is the
//      line's first.
//   5. Null move: o would have a VCF if s passed (an open three, a four-three,
//      any VCF threat; one-ply blocking never sees them).  s may only play
//      refutations: the moves m after which o has no proven VCF.  Moves that
//      share no five-cell window with the VCF line (its attacker moves,
//      forced replies and final five points) and are not fours of s leave the
//      line winning as it stands, so they are never refutations and are not
//      queried (freestyle and standard; other rules query every move).  The
//      others are queried one by one; a query that runs out of budget keeps
//      its move.  No refutation left: proven loss.
//   Otherwise nothing is proven or restricted.
// Every proof is exact (a VCF proof is a proof whatever the budget), and every
// move left out of a restricted set provably loses (or the node is won by the
// kept move), so MCTS-solver backup over the restricted children is sound.
// The budget only decides how often a query ends unknown (nothing proven,
// the move kept).
//
// Cost: two VCF queries of at most `vcf_nodes` attacker nodes (each loads the
// board, O(n^2), and answers the five points as one-move lines), a FivePoints
// scan when o has a five point, and only when o has a VCF one more query per
// move near its line.  `bench_mcts --solver` prints the cost per analysis.
// Thread-safety: none; a NodeSolver (it owns a ThreatSolver and its table)
// belongs to one search.
#pragma once

#include <cstdint>
#include <vector>

#include "common/game/board.h"
#include "common/game/threats.h"

namespace gz {

enum class Proven : int8_t {
  kNone = 0,
  kWin = 1,   // the side to move wins against every defence
  kLoss = 2,  // the side to move loses whatever it plays
};
const char* ProvenName(Proven p);

struct NodeVerdict {
  Proven proven = Proven::kNone;
  int win_move = kNoMove;   // kWin: the move that wins (a five or the VCF's first move)
  // restricted: only `moves` (ascending, legal) may be children; else every
  // legal move.
  bool restricted = false;
  std::vector<int> moves;
  // Which rule decided: "five", "double_five" (o has two or more), "block",
  // "vcf", "null_move", "no_refutation", or "none".
  const char* reason = "none";
};

struct NodeSolverStats {
  int64_t analyses = 0;
  int64_t vcf_queries = 0;
  int64_t vcf_nodes = 0;
  int64_t null_move_threats = 0;  // analyses where o had a VCF
  int64_t proven_wins = 0;
  int64_t proven_losses = 0;
  int64_t restricted = 0;         // restricted but not proven
};

class NodeSolver {
 public:
  // vcf_nodes >= 1: attacker nodes per VCF query.  Throws GomokuError otherwise.
  explicit NodeSolver(int64_t vcf_nodes, ThreatSolverOptions options = {});
  // Precondition: !board.terminal().
  NodeVerdict Analyse(const Board& board);
  const NodeSolverStats& stats() const { return stats_; }

 private:
  VcfResult Vcf(const Board& board, int8_t attacker);
  // Legal moves sharing a five-cell window with a point of o's VCF `line` on
  // `board` (attacker moves, forced replies, final five points), plus s's fours.
  std::vector<uint8_t> RefutationZone(const Board& board, const std::vector<int>& line);

  ThreatSolver solver_;
  int64_t vcf_nodes_;
  NodeSolverStats stats_;
};

}  // namespace gz
