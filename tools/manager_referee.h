// The Gomocup manager's referee, written a second time: how the manager
// (Gomocup/GomocupJudge, client/ai_match.py make_move and play, and
// client/check_forbid.py, itself adapted from Piskvork) judges each move of a
// game, kept apart from common/game (it includes nothing of this tree) so that
// the two implementations check each other (tests/tools/test_manager_referee.cc).
//
// Coordinates are the protocol's: x the column, y the row, 0-based.  Colours
// are the manager's: 1 black (moves first), 2 white.
//
// Rule values, exactly as the manager compares them (no bit mask reading):
//   0  five or more in a row wins;
//   1  exactly five wins (an overline is no win);
//   4  renju: black may not play a point check_forbid calls forbidden (an
//      overline, a double four, a double three, unless the move makes an
//      exact five; Piskvork's recursive reading, below), and a foul loses;
//      five or more wins (black's overline is already a foul);
//   8  caro with overlines: six or more always wins; exactly five wins
//      unless blocked at both ends;
//   9  caro: exactly five wins unless blocked at both ends.
// "Blocked" at an end: the first point past the run is the opponent's stone
// OR OFF THE BOARD.  The manager's code counts the edge as a block (make_move:
// "if _x<0 or _x>=board_size: blocked += 1"), so under 8 and 9 a five from the
// edge to an opponent's stone does not win there.
// The end of the game, as play() runs it: a move is asked for while the
// number of stones on the board is below size*size, and under renju below
// size*size - 25 (the game is drawn with 25 empty points left); a full board
// is a draw.  An occupied point is an illegal move (the mover loses), a point
// off the board a crash (the manager indexes its list out of range; the mover
// loses).  A negative coordinate, which Python would wrap to the far edge, is
// judged off the board here.
//
// Piskvork's renju reading (check_forbid) differs from the RIF text in its
// corners (one four and one three counted per line, except the one-line
// double fours X_XXX_X, XX_XX_XX, XXX_X_XXX; a three's straight-four point is
// tried recursively, and a point that makes a five there does not count);
// this file follows the manager's code, not the rule text.
//
// Thread-safety: a ManagerReferee is a plain value; the free functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gz {

// The manager's "endby" codes (ai_match.py play) and ours for a game going on.
enum class ManagerEnd : int8_t {
  kOngoing = -1,
  kFiveOrDraw = 0,  // a five, or a draw (winner 0)
  kFoul = 1,        // renju: black played a forbidden point
  kTimeout = 2,     // not judged here: the caller's clock
  kIllegal = 3,     // an occupied point
  kCrash = 4,       // off the board (and, for the caller, a crash or memory over the limit)
};
const char* ManagerEndName(ManagerEnd e);  // "ongoing", "five/draw", "foul", ...

class ManagerReferee {
 public:
  // size in [5, 26] and rule in {0, 1, 4, 8, 9}; anything else throws
  // std::invalid_argument.
  ManagerReferee(int size, int rule);

  int size() const { return size_; }
  int rule() const { return rule_; }
  int stones() const { return stones_; }
  int to_move() const { return stones_ % 2 == 0 ? 1 : 2; }  // 1 black, 2 white
  int at(int x, int y) const { return cells_[x * size_ + y]; }  // 0 empty, 1 black, 2 white
  ManagerEnd end() const { return end_; }
  int winner() const { return winner_; }  // 0 none / draw, else the colour
  // Whether the manager asks the side to move for a move now: the game is not
  // decided and fewer than size*size stones (renju: size*size - 25) lie on the
  // board.  When it turns false without a winner the game is drawn (end()
  // says kFiveOrDraw then).
  bool MoveOwed() const { return end_ == ManagerEnd::kOngoing; }

  // The side to move plays (x, y), judged as make_move judges it; returns the
  // game's end after it (kOngoing: the next move is owed).  A foul, illegal
  // or off-board move ends the game for the opponent and places no stone.
  // Precondition: MoveOwed() (else std::logic_error).
  ManagerEnd Play(int x, int y);

  // Places a stone with no judging (an opening; positions in tests).
  // Precondition: on the board and empty (else std::invalid_argument).
  void Place(int x, int y, int colour);

  // Renju, check_forbid: would black at empty (x, y) be a foul?  Looks only
  // at the stones (whatever rule() and the side to move).
  bool ForbiddenForBlack(int x, int y) const;
  // make_move's five test: does `colour` at empty (x, y) win under rule()?
  bool Wins(int x, int y, int colour) const;

  std::string Describe() const;  // the board, rows top to bottom ('X', 'O', '.')

 private:
  void UpdateEnd();

  int size_;
  int rule_;
  std::vector<int8_t> cells_;  // [x * size + y], as the manager's board[x][y]
  int stones_ = 0;
  ManagerEnd end_ = ManagerEnd::kOngoing;
  int winner_ = 0;
};

// "h8" style points (the manager's str_to_pos: a letter for the column from
// 'a', then the row from 1) as protocol (x, y); "h8h9" or "h8 h9" both parse.
// Throws std::invalid_argument on anything else.
std::vector<std::pair<int, int>> ParseLetterMoves(const std::string& text);
std::string LetterPoint(int x, int y);  // (7, 7) -> "h8"

}  // namespace gz
