// Gomoku board and rules: placing stones, detecting five in a row, draws.
//
// Thread-safety: a Board is a plain value; concurrent reads are safe, writes
// need external synchronisation.  Copying is cheap (one small vector).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gz {

enum class Rule : uint8_t {
  kFreestyle = 0,  // five or more in a row wins
  kStandard = 1,   // exactly five wins; an overline (6+) does not
  kRenju = 2,      // black: exactly five wins, and overline / double four / double
                   // three points are forbidden (common/game/renju.h); white:
                   // five or more wins, no restriction
  kCaro = 3,       // the Gomocup manager's rule 9 (caro with exactly five):
                   // exactly five wins unless both its ends are closed (by
                   // the opponent's stones or the board's edge, as the
                   // manager's referee counts them); an overline does not win
  kCaroOverline = 4,  // the manager's rule 8 (the Gomocup caro league): an
                      // overline (6+) always wins; exactly five wins unless
                      // both its ends are closed (the opponent or the edge)
};
// Which reading of caro a game file or net was made under: 1 (before
// 2026-12-07) the board's edge closed no end of a five; 2 the edge closes an
// end, as the Gomocup manager judges rules 8 and 9.  Game files of another
// version are refused (their outcomes differ); nets of version 1 still load
// (the same planes and legal moves; only fives that touch the edge changed),
// so the shipped caro net plays on.
constexpr int kCaroRulesVersion = 2;
constexpr int kCaroOldestNetVersion = 1;
constexpr Rule kLastRule = Rule::kCaroOverline;  // the highest value: file and wire readers check against it
const char* RuleName(Rule r);
// "freestyle" | "standard" | "renju" | "caro" | "caro-overline"; throws ConfigError.
Rule ParseRule(const std::string& s);
// Both caro rules: a five blocked at both ends by the opponent is no five.
inline bool IsCaro(Rule r) { return r == Rule::kCaro || r == Rule::kCaroOverline; }

// Renju as the Gomocup manager judges it: the manager asks for no further move
// once at most 25 points are empty, so a game that reaches 25 empty points
// without a five is a draw (a five made with the 26th-last empty point still
// wins).  It holds on every board size; on 5x5 the empty board is drawn.  The
// manager counts the moves made: kBlocked points (never in a renju game; the
// threat tests' walls) count as neither stones nor empty points.
constexpr int kRenjuDrawEmpties = 25;
// The number of empty points at which a game under `rule` is drawn: 25 under
// renju, 0 (the full board) otherwise.
inline int DrawEmpties(Rule r) { return r == Rule::kRenju ? kRenjuDrawEmpties : 0; }
// Moves still to be played before a game under `rule` on `points` points, with
// `stones` black and white stones and `empties` empty points, is drawn for want
// of room: the empty points, and under renju at most points - 25 - stones.
// A win needs its five within them.
inline int MovesBeforeDraw(Rule rule, int points, int stones, int empties) {
  return std::min(empties, points - DrawEmpties(rule) - stones);
}

// Stone colours as stored in boards and game files.
constexpr int8_t kEmpty = 0;
constexpr int8_t kBlack = 1;
constexpr int8_t kWhite = 2;
// A point nobody may play and that belongs to no line: the Gomocup manager's
// BOARD field 3 in a continuous game (the stones of a line already scored).
// Only Board::FromStones places it; it never appears in self-play, game files
// or on the wire.
constexpr int8_t kBlocked = 3;
inline int8_t Opponent(int8_t c) { return c == kBlack ? kWhite : kBlack; }

constexpr int kMinBoardSize = 5;
constexpr int kMaxBoardSize = 22;
constexpr int kWinLength = 5;
constexpr int kNoMove = -1;

enum class Outcome : int8_t { kOngoing = -1, kDraw = 0, kBlackWins = 1, kWhiteWins = 2 };

// A compact position: what crosses the wire and what the encoder reads.
// cells[r*size+c] in {kEmpty,kBlack,kWhite}; last_move = kNoMove or r*size+c.
struct Position {
  int size = 15;
  std::vector<int8_t> cells;
  int last_move = kNoMove;
  int8_t to_move = kBlack;
  // The rule the position is played under; only the encoder reads it (the
  // forbidden-points plane under renju).  It does not cross the wire (a
  // connection has one rule, fixed by HELLO) and is not part of Hash().
  Rule rule = Rule::kFreestyle;
  uint64_t Hash() const;  // stable across runs and machines (FNV-1a over cells, last move, side)
};

class Board {
 public:
  // Preconditions: kMinBoardSize <= size <= kMaxBoardSize (else ConfigError).
  explicit Board(int size = 15, Rule rule = Rule::kFreestyle);

  int size() const { return size_; }
  int num_points() const { return size_ * size_; }
  Rule rule() const { return rule_; }
  int8_t to_move() const { return to_move_; }
  int last_move() const { return last_move_; }
  int move_count() const { return move_count_; }
  Outcome outcome() const { return outcome_; }
  bool terminal() const { return outcome_ != Outcome::kOngoing; }
  // MovesBeforeDraw for this board: >= 1 while the game is on.  A win needs
  // its five within them (the solvers prune on it).
  int moves_before_draw() const {
    return MovesBeforeDraw(rule_, num_points(), move_count_ - blocked_, num_points() - move_count_);
  }
  int8_t at(int move) const { return cells_[move]; }
  int8_t at(int row, int col) const { return cells_[row * size_ + col]; }
  const std::vector<int8_t>& cells() const { return cells_; }

  // On the board, empty, the game not over, and under renju not a forbidden
  // point when black is to move.  Inline: on freestyle and standard this is
  // the plain emptiness test.
  bool IsLegal(int move) const {
    if (terminal() || move < 0 || move >= num_points() || cells_[move] != kEmpty) return false;
    return rule_ != Rule::kRenju || to_move_ != kBlack || !ForbiddenHere(move);
  }
  // Throws RulesError for an out-of-range or occupied point, a finished game,
  // or (renju, black to move) a forbidden point; the message names the point
  // and the reason ("... is forbidden for black under renju: double-three").
  // Under renju, when the move leaves black to move with every empty point
  // forbidden, or leaves kRenjuDrawEmpties or fewer points empty without a
  // five, the game ends in a draw.
  void Play(int move);
  // Removes the stone at `move` (must be the last stone of the colour that just
  // moved is NOT required; any stone).  Used by the engine's TAKEBACK.  The
  // outcome is recomputed from scratch.  Throws RulesError on an empty point.
  void Remove(int move);
  // Every legal move, ascending (empty when the game is over).
  std::vector<int> LegalMoves() const;

  // Would placing `colour` at `move` make a winning line?  (Rule-aware:
  // exactly five for standard and for black under renju, five or more for
  // freestyle and for white under renju, under caro exactly five not blocked
  // at both ends by the opponent, under caro-overline six or more, or exactly
  // five not blocked at both ends.)  Ignores forbidden points: a black exact
  // five is never forbidden anyway.
  bool MakesFive(int move, int8_t colour) const;

  Position ToPosition() const;
  // Builds a board from explicit stones (engine BOARD command, tests).  The
  // side to move is given; outcome is computed.  Cells may also be kBlocked
  // (counted in move_count(), never a winning stone).  Throws RulesError on
  // bad data.
  static Board FromStones(int size, Rule rule, const std::vector<int8_t>& cells, int8_t to_move,
                          int last_move = kNoMove);

  std::string ToString() const;  // human-readable, rows top to bottom

 private:
  int LineLength(int move, int8_t colour, int dr, int dc) const;
  // Caro rules: the cells just beyond both ends of `colour`'s run through `move`
  // (counted as `colour`) along (dr, dc) both hold the opponent's stones.
  bool BlockedBothEnds(int move, int8_t colour, int dr, int dc) const;
  void RecomputeOutcome();
  // Renju: black is to move, the game is on, and every empty point is forbidden.
  bool BlackIsStuck() const;
  // Renju, black to move: throws RulesError naming the point and the reason
  // when `move` is forbidden.  Out of line, off the freestyle path.
  void RefuseForbidden(int move) const;
  bool ForbiddenHere(int move) const;  // IsForbiddenForBlack(*this, move)

  int size_;
  Rule rule_;
  std::vector<int8_t> cells_;
  int8_t to_move_ = kBlack;
  int last_move_ = kNoMove;
  int move_count_ = 0;  // stones and kBlocked points
  int blocked_ = 0;     // kBlocked points (FromStones only)
  Outcome outcome_ = Outcome::kOngoing;
};

}  // namespace gz
