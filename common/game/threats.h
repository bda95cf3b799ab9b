// Threats of five and VCF (victory by continuous fours): a torch-free solver
// that MCTS can ask at expansion what the position already proves.
//
// Vocabulary (all rule-aware: under Rule::kStandard a line of six or more is
// not a five, so a point whose only completion is an overline is not a five
// point, and a move whose only completion is an overline is not a four;
// under Rule::kRenju the same holds for black, while white wins with five or
// more, and black's forbidden points (renju.h) are respected: a black four
// must be a legal move, a black attacker forced to block on a forbidden point
// has no VCF, and a white four whose single five point is forbidden for black
// cannot be blocked -- it counts like an open four.  kBlocked cells are walls):
//   five point of c  an empty point where c would make a five (exactly
//                    Board::MakesFive(p, c)).
//   four of c        a move, not itself a five, after which c has at least one
//                    five point on a line through the move (a threat of five;
//                    straight X_XXX / XX_XX broken fours included).
//   open four of c   a four after which c has two or more distinct five points
//                    (open four, or two fours at once): the opponent cannot
//                    block them all.
//   VCF of a         a win for the attacker `a`, to move, playing only fours
//                    (or a five) against every defence.  The defender's only
//                    non-losing replies to a four are the block of its five
//                    point or a five of their own; a block that makes a four
//                    for the defender obliges the attacker's next move to block
//                    it, and that block must itself be a four for the VCF to go on.
//
// Caro (Rule::kCaro, Rule::kCaroOverline): an exact five blocked by the
// opponent at both ends is no five, so a five point can be stopped by a stone
// at either end of its run as well as on it, and two five points can fall to
// one stone.  (Under caro-overline a point that makes six or more is a five
// point whatever the ends hold, as under freestyle, but the exact fives still
// behave as above.)  The single-reply search below does not model that, so
// under both caro rules Vcf (and VctSolver::Vct) prove only a five point at
// the root and answer kUnknown otherwise: never a wrong proof, no proof deeper
// than one move.  FivePoints and FourMoves are exact under both (they go
// through the same five test).
//
// Renju's draw at 25 empty points (board.h kRenjuDrawEmpties): a line is a
// win only if its five is played before the draw, so the searches answer
// "no VCF / no VCT" at a node with too few moves left for a four, its block
// and the five (Board::moves_before_draw).
//
// Design note -- how `mcts.solver` is meant to use this at expansion (the
// search change owns the wiring; nothing in common/search calls this yet):
//   1. FivePoints(board, to_move) non-empty: the node is a proven win; its
//      only child is the five.
//   2. FivePoints(board, opponent) non-empty: only those points are legal
//      children (one: forced block; two or more: a proven loss unless 1 holds).
//   3. ThreatSolver::Vcf(board, to_move, small budget) proven: proven win; the
//      line's first move is the winning child.
//   4. Null move: Vcf(board, opponent, small budget) proven means the side to
//      move must refute it (an open three or four-three is met this way, which
//      one-ply blocking never sees).  Candidate refutations are the points of
//      the line (attacker moves and forced replies) and the side to move's own
//      fours; a candidate is kept when Vcf(child, opponent) is no longer proven.
//      If none is kept the node is a proven loss (up to the budget's soundness:
//      a VCF proof is exact, a refutation under budget is a heuristic).
//   5. MCTS-solver backup: a node with a proven-winning child is won, a node
//      whose children are all proven lost is lost; the search plays a proven
//      win at once.
//   On random mid-game 15x15 positions a VCF query costs a few microseconds
//   on average (most end in a handful of nodes) and a search runs at roughly
//   1-4 million nodes/s, so a budget of 1000 caps a query near a millisecond
//   (bench/bench_threats prints the figures).
//
// Costs (n = board side, e = empty points):  every query copies the board into
// a padded scratch grid with per-window stone counts, O(n^2).  FivePoints and
// FourMoves then scan the ~4n^2 five-cell windows once, plus <= 8 run checks
// per candidate.  Vcf costs O(n^2) per attacker node examined (the window
// scan for fours) and never examines more than `node_budget` attacker nodes.
//
// Thread-safety: the free functions are pure and thread-safe.  A ThreatSolver
// owns its transposition table and scratch state: one per thread, not shared.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/game/board.h"

namespace gz {

// The five points of `colour` (ascending).  Works whichever side is to move;
// an empty list for a terminal board.  colour in {kBlack, kWhite}.
std::vector<int> FivePoints(const Board& board, int8_t colour);

struct FourMove {
  int move = kNoMove;
  int num_fives = 0;          // the mover's five points on the lines through the move after
                              // it (>= 1); all of them when the mover had none before
  int first_five = kNoMove;   // the lowest of them: the block when num_fives == 1
};
// Every four of `colour` (ascending by move), whichever side is to move.
// Moves that are fives are not fours and are not listed.  Empty for a
// terminal board.
std::vector<FourMove> FourMoves(const Board& board, int8_t colour);
// The fours of `colour` that leave two or more five points (ascending).
std::vector<int> OpenFourMoves(const Board& board, int8_t colour);

enum class VcfStatus : int8_t {
  kWin = 0,      // proven: the attacker wins by continuous fours
  kNoVcf = 1,    // proven: no VCF exists (exhaustive within the rules above)
  kUnknown = 2,  // the node budget ran out first
};
const char* VcfStatusName(VcfStatus s);

struct VcfResult {
  VcfStatus status = VcfStatus::kUnknown;
  // On kWin: the attacker's moves.  Each but the last is a four whose single
  // five point the defender must block (the forced reply; FourMoves on the
  // board after the move gives it); after the last the attacker has two or
  // more five points, or the last is itself a five (a one-move line when the
  // attacker already has a five point).  Empty otherwise.
  std::vector<int> line;
  int64_t nodes = 0;  // attacker nodes examined by this query (TT hits included)
  bool proven_win() const { return status == VcfStatus::kWin; }
};

struct ThreatSolverOptions {
  int tt_log2 = 16;  // transposition-table entries = 2^tt_log2 (16 bytes each), 4..26
};

class ThreatSolver {
 public:
  // Throws ConfigError for tt_log2 out of range.
  explicit ThreatSolver(ThreatSolverOptions options = {});
  ~ThreatSolver();
  ThreatSolver(const ThreatSolver&) = delete;
  ThreatSolver& operator=(const ThreatSolver&) = delete;

  // VCF for `attacker`, who is taken to be the side to move (pass the
  // opponent of board.to_move() for the null-move test).  At most
  // `node_budget` (>= 1) attacker nodes are examined; kWin and kNoVcf are
  // exact whatever the budget, kUnknown means it ran out.  A terminal board
  // gives kNoVcf.  The transposition table persists across calls (exact
  // results only, keyed by stones, attacker, size and rule), so related
  // queries -- a node and its children -- get cheaper; ClearTable() forgets.
  // Throws GomokuError for a bad colour or budget.
  VcfResult Vcf(const Board& board, int8_t attacker, int64_t node_budget);
  void ClearTable();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gz
