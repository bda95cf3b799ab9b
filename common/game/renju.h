// Renju forbidden points for black.
//
// Under renju black may not play a point that makes an overline (six or
// more), a double four or a double three; white is never restricted.  The
// refinements implemented here, following the RIF rule text:
//   - A move that makes exactly five is never forbidden, whatever else it
//     makes at the same time (five beats a forbidden point).
//   - A four is a set of four black stones on one line that one more stone
//     turns into exactly five; fours are counted as distinct stone sets, so
//     X_XXX_X or XX_XX_XX made by one move are two fours (a four-four in one
//     line), while a straight four _XXXX_ is one four.  A "four" whose only
//     completion is an overline is no four.
//   - A three is a set of three black stones on one line that one more black
//     stone q turns into a straight four (four in a row with two points that
//     each make exactly five), where q itself must be a legal, i.e. not
//     forbidden, move for black that does not at the same time make a five on
//     another line (RIF: "to which you, without at the same time a five in a
//     row is made, can add one more stone to attain a straight four").  This
//     is recursive: q is judged by the same rules on the board with the move
//     in question already played.
//   - Every four and three counted must contain the move itself.
//
// The functions look only at the stones: they apply renju rules whatever
// board.rule() says and whoever is to move (callers gate on the rule), and
// they ignore whether the game is already over.
//
// Thread-safety: pure functions over a const Board; safe to call concurrently.
// Complexity: one point costs O(1) line scans plus the recursive legality
// check of the straight-four points of its potential threes (only when it has
// at least two potential threes; each level adds a stone, so it terminates,
// but contrived positions can nest it several levels deep).  Measured (-O3,
// 15x15 middle games): about 0.15 us per point, 35 us for ForbiddenPoints of
// a whole board.
#pragma once

#include <cstdint>
#include <vector>

#include "common/game/board.h"

namespace gz {

// The reading of the renju rules this build plays, recorded in renju game
// files and renju checkpoints:
//   1  (before 2026-12-06) a three counted even when the only point that makes
//      its straight four also completes a five on another line;
//   2  the RIF text: such a point makes no three (see above);
//   3  as 2, and a game that reaches 25 empty points without a five is a draw
//      (board.h kRenjuDrawEmpties, as the Gomocup manager judges renju).
// Game files of another version are refused: their outcomes (the value
// targets) or forbidden points differ.  Nets of version 1 saw other forbidden
// points (the encoder's plane, the legal moves) and are refused; nets of
// version 2 saw the same planes and legal moves as version 3 (only games past
// 25 empty points ended later, a rare tail) and still load, so the shipped
// renju net (version 2) plays on.
constexpr int kRenjuRulesVersion = 3;
constexpr int kRenjuOldestNetVersion = 2;  // the oldest version a renju net may carry

enum class ForbiddenReason : uint8_t {
  kNone = 0,         // black may play here
  kOverline = 1,     // makes six or more in a row (and no exact five)
  kDoubleFour = 2,   // makes two or more fours (possibly on one line)
  kDoubleThree = 3,  // makes two or more threes (each extendable by a legal move)
};
const char* ForbiddenReasonName(ForbiddenReason r);  // "none", "overline", ...

// Why black may not play `point` on `board`, or kNone.  When several reasons
// hold, the first of overline, double four, double three is reported.
// Precondition: 0 <= point < board.num_points() and the point is empty
// (else RulesError).
ForbiddenReason ForbiddenReasonForBlack(const Board& board, int point);

// ForbiddenReasonForBlack(board, point) != ForbiddenReason::kNone.
bool IsForbiddenForBlack(const Board& board, int point);

// Every empty point forbidden for black, ascending.  For the encoder's
// forbidden-points plane; O(num_points) calls of the above.
std::vector<int> ForbiddenPoints(const Board& board);
// The same over raw cells (cells.size() == size*size, values kEmpty / kBlack /
// kWhite): what the encoder uses, which sees a Position rather than a Board.
std::vector<int> ForbiddenPoints(int size, const std::vector<int8_t>& cells);

// For searches that keep their own cells (the threat solver): judges the
// empty `point` on `*cells` (size*size values), placing and removing stones
// in it while it works and leaving it as it found it.  No copy is made.
ForbiddenReason ForbiddenReasonOnCells(int size, std::vector<int8_t>* cells, int point);

// Whether some empty point is not forbidden for black (stops at the first
// one, so it usually costs one point).  Board uses it to end a renju game in
// a draw when black is to move and has no legal point.
bool HasAllowedPointForBlack(const Board& board);

}  // namespace gz
