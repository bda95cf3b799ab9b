// What the threat solver (common/game/threats.h) proves about a position
// before MCTS expands it (`mcts.solver`, docs/search.md).
//
// Under both caro rules only step 1 applies (threats.h "Caro"), and under
// renju with one move left before the draw at 25 empty points (board.h) too.
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
//   With VCT on (vct_nodes > 0, `mcts.solver_vct_nodes`; common/game/vct.h),
//   when o has no five point and none of the above decided:
//   6. s has a VCT (fours and threes): proven win; the only move is its
//      first.  Asked at the search root only (ply <= kVctWinPlies = 0: one
//      ply below it would catch a root move that allows the opponent a VCT,
//      but step 7 already covers those moves, and a query costs about a
//      millisecond -- docs/search.md).  Mcts::Advance asks a reused root again.
//   7. Null move against threes, at the search root only (ply 0): o would
//      have a VCT if s passed (and no VCF: 5 decided that).  Every legal move
//      near o's proof line (sharing a five-cell window with a point of the
//      line) and every four of s is queried (a VCT query for o
//      after it); a move after which o has a proven VCT is dropped (it
//      provably loses).  Moves away from the line are kept unqueried -- a
//      VCT proof is a tree, not a line, so distance is no proof that the
//      move cannot touch it -- unless every queried move was refuted: then
//      they are queried too, and when all are refuted the node is a proven
//      loss ("no_vct_refutation").  The queries share a budget of
//      kVctNullMoveQueries x vct_nodes nodes: the moves left when it is spent
//      are kept unqueried (and no loss is proven).  Reason "vct_null_move" when restricted.
//   Otherwise nothing is proven or restricted.
// Every proof is exact (a VCF proof is a proof whatever the budget), and every
// move left out of a restricted set provably loses (or the node is won by the
// kept move), so MCTS-solver backup over the restricted children is sound.
// The budget only decides how often a query ends unknown (nothing proven,
// the move kept).
//
// Cost: two VCF queries (plus, with VCT on, one VCT query of at most
// `vct_nodes` attacker nodes near the root and two at the root, and at the
// root one more per queried move when o has a VCT threat) of at most `vcf_nodes` attacker nodes (each loads the
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
#include "common/game/vct.h"

namespace gz {

enum class Proven : int8_t {
  kNone = 0,
  kWin = 1,   // the side to move wins against every defence
  kLoss = 2,  // the side to move loses whatever it plays
};

struct NodeVerdict {
  Proven proven = Proven::kNone;
  int win_move = kNoMove;   // kWin: the move that wins (a five or the VCF's first move)
  // restricted: only `moves` (ascending, legal) may be children; else every
  // legal move.
  bool restricted = false;
  std::vector<int> moves;
  // Which rule decided: "five", "double_five" (o has two or more), "block",
  // "vcf", "null_move", "no_refutation", "vct", "vct_null_move",
  // "no_vct_refutation", or "none".
  const char* reason = "none";
};

struct NodeSolverStats {
  int64_t analyses = 0;
  int64_t vcf_queries = 0;
  int64_t vcf_nodes = 0;
  int64_t vct_queries = 0;
  int64_t vct_nodes = 0;
  int64_t null_move_threats = 0;  // analyses where o had a VCF
  int64_t vct_null_move_threats = 0;  // root analyses where o had a VCT (and no VCF)
  int64_t vct_null_move_nodes = 0;    // attacker nodes of step 7's refutation queries
  int64_t proven_wins = 0;
  int64_t proven_losses = 0;
  int64_t restricted = 0;         // restricted but not proven
};

class NodeSolver {
 public:
  // Deepest ply below the search root at which s's own VCT is asked (6).
  static constexpr int kVctWinPlies = 0;
  // Step 7's refutation queries together examine at most this many times
  // `vct_nodes` attacker nodes (the last query may finish past it); the moves
  // left unqueried are kept.  Measured: a 6-stone renju root with 40 moves
  // near white's line took 1.8 s uncapped (docs/search.md).
  static constexpr int64_t kVctNullMoveQueries = 4;
  // vcf_nodes >= 1: attacker nodes per VCF query; vct_nodes >= 0: per VCT
  // query (0 = no VCT steps).  Throws GomokuError otherwise.
  explicit NodeSolver(int64_t vcf_nodes, int64_t vct_nodes = 0, ThreatSolverOptions options = {});
  // `ply`: how far below the search root the node is (0 = the root); only the
  // VCT steps look at it.  Precondition: !board.terminal().
  NodeVerdict Analyse(const Board& board, int ply = 0);
  const NodeSolverStats& stats() const { return stats_; }

 private:
  VcfResult Vcf(const Board& board, int8_t attacker);
  VctResult Vct(const Board& board, int8_t attacker);
  // The verdicts, counted in stats_.
  NodeVerdict Win(int move, const char* reason);
  NodeVerdict Loss(std::vector<int> moves, const char* reason);
  NodeVerdict Restricted(std::vector<int> moves, const char* reason);
  // Steps 6 and 7, when o has no VCF (nor a five point).
  NodeVerdict WithoutTheirVcf(const Board& board, int ply);
  // Steps 2 and 3: o has a five point (one: block it; two or more: lost).
  NodeVerdict BlockFive(const Board& board);
  // Step 5: o has VCF `line`; only the moves that refute it stay.
  NodeVerdict NullMove(const Board& board, const std::vector<int>& line);
  // Step 7 (o has a VCT with proof line `line`); fills v, returns whether it decided.
  bool VctNullMove(const Board& board, const std::vector<int>& line, NodeVerdict* v);
  // Legal moves sharing a five-cell window with a point of o's VCF `line` on
  // `board` (attacker moves, forced replies, final five points), plus s's fours.
  std::vector<uint8_t> RefutationZone(const Board& board, const std::vector<int>& line);

  ThreatSolver solver_;
  VctSolver vct_;
  int64_t vcf_nodes_;
  int64_t vct_nodes_;
  NodeSolverStats stats_;
};

}  // namespace gz
