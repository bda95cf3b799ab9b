// VCT: victory by continuous threats -- fours AND threes.
// A threat-space search for the attacker `a` (to move) against the defender d.
// It extends the VCF of threats.h (whose vocabulary -- five point, four, open
// four, and the rule handling of overlines, renju forbidden points and walls
// -- it shares) by one kind of move:
//
//   winning four of a  a move after which a has two or more five points, or
//                      (renju, white) one five point that is forbidden for
//                      black: d cannot stop the five.  (An open four, a
//                      double four, a four-three's four ...)
//   three of a         a legal move of a, not a five and not a four, after
//                      which a has at least one winning four: a threatens to
//                      win in one more move.  Rule-aware by construction: a
//                      renju black three needs its winning four to be a legal
//                      (not forbidden) black move, a standard "four" whose
//                      only completion is an overline is no four.
//
// The AND/OR search (attacker nodes OR, defender nodes AND):
//   attacker node  a plays a four, or a three, or -- when d has one five
//                  point -- must block it (the block must itself be a four or
//                  a three, "keep the attack going", else the line fails).
//   after a four   d's only reply is the block of the five point (d has no
//                  five of its own there, by construction).
//   after a three  d's replies: every four of d (a counter-four: a must block
//                  it next, and that block must carry the attack on), and
//                  every move that leaves a without a winning four from the
//                  list a had (freestyle/standard: the points common to all
//                  of a's winning fours' "break sets" {q} U {its two five
//                  points when it has exactly two}; renju: each legal d move
//                  is tried on the board).  SOUNDNESS: every d move left out
//                  is not a four and leaves some winning four q of a intact,
//                  so a plays q and wins (d has no five point to answer
//                  with).  d with no considered reply loses.
// A kWin is therefore a real proof (a winning strategy against every defence,
// not only against the considered ones).  kNoVct is exhaustive only within the
// threat definitions above: it says a has no win by fours and threes, not that
// the position is not won by quieter moves.
//
// Search: iterative deepening on the number of threes on a line (fours are
// forcing and cost nothing), so short threat sequences are found first; depth
// 0 is exactly a VCF.  A transposition table (the threats.h approach: exact
// wins, and "no VCT with <= R threes" entries keyed by stones, attacker, size
// and rule) persists across queries.
//
// Cost: an attacker node scans the board's windows once for fours and threes
// (O(n^2)) and tests each candidate three's winning fours (a few dozen five-
// point checks); a defender node after a three scans the windows again for
// a's winning fours and d's fours; under renju it also tries each empty point
// (a forbidden-point check each).  At most `node_budget` attacker nodes are
// examined per query.  bench/bench_threats prints the figures (docs/benchmarks.md).
//
// Thread-safety: a VctSolver owns its table and scratch grid: one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/game/board.h"

namespace gz {

enum class VctStatus : int8_t {
  kWin = 0,      // proven: the attacker wins by fours and threes against every defence
  kNoVct = 1,    // proven: no win by threats as defined above (exhaustive)
  kUnknown = 2,  // the node budget ran out first
};
const char* VctStatusName(VctStatus s);

struct VctResult {
  VctStatus status = VctStatus::kUnknown;
  // On kWin: one branch of the proof, alternating attacker and defender moves
  // (a, d, a, d, ..., a), following the first defence the proof considered at
  // each step; line.front() is the winning move.  It may stop early where the
  // proof came from the table.  A one-move line is a five when the attacker
  // already had a five point.  Empty otherwise.
  std::vector<int> line;
  int threes = 0;      // kWin: the iteration that found it (most threes on a line)
  int64_t nodes = 0;   // attacker nodes examined (table hits included)
  bool proven_win() const { return status == VctStatus::kWin; }
};

struct VctSolverOptions {
  int tt_log2 = 16;     // table entries = 2^tt_log2 (16 bytes each), 4..26
  int max_threes = 64;  // deepest iteration (threes on a line), 0..64; 0 = VCF only
};

class VctSolver {
 public:
  // Throws ConfigError for an option out of range.
  explicit VctSolver(VctSolverOptions options = {});
  ~VctSolver();
  VctSolver(const VctSolver&) = delete;
  VctSolver& operator=(const VctSolver&) = delete;

  // VCT for `attacker`, taken to be the side to move (pass the opponent of
  // board.to_move() for a null-move test).  At most `node_budget` (>= 1)
  // attacker nodes are examined over all iterations.  kWin is exact whatever
  // the budget; kNoVct means every iteration up to max_threes finished and the
  // last one was not cut by the depth (else kUnknown).  A terminal board gives
  // kNoVct.  Throws GomokuError for a bad colour or budget.
  VctResult Vct(const Board& board, int8_t attacker, int64_t node_budget);
  void ClearTable();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gz
