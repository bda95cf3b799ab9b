// Gomoku board and rules: placing stones, detecting five in a row, draws.
//
// Thread-safety: a Board is a plain value; concurrent reads are safe, writes
// need external synchronisation.  Copying is cheap (one small vector).
#pragma once

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
  kCaro = 3,       // Gomocup's caro (INFO rule bit 8): exactly five wins unless
                   // the opponent's stones block it at both ends (the board's
                   // edge is no block); an overline does not win
};
constexpr Rule kLastRule = Rule::kCaro;  // the highest value: file and wire readers check against it
const char* RuleName(Rule r);
Rule ParseRule(const std::string& s);  // "freestyle" | "standard" | "renju" | "caro"; throws ConfigError

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
  // forbidden, the game ends in a draw (black cannot move).
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
  // at both ends by the opponent.)  Ignores forbidden points: a black exact
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
  // Caro: the cells just beyond both ends of `colour`'s run through `move`
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
  int move_count_ = 0;
  Outcome outcome_ = Outcome::kOngoing;
};

}  // namespace gz
