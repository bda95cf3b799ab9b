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
};
const char* RuleName(Rule r);
Rule ParseRule(const std::string& s);  // "freestyle" | "standard"; throws ConfigError

// Stone colours as stored in boards and game files.
constexpr int8_t kEmpty = 0;
constexpr int8_t kBlack = 1;
constexpr int8_t kWhite = 2;
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
  uint64_t Hash() const;  // stable across runs and machines (FNV-1a over the fields)
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

  bool IsLegal(int move) const;
  // Throws RulesError for an out-of-range or occupied point, or a finished game.
  void Play(int move);
  // Removes the stone at `move` (must be the last stone of the colour that just
  // moved is NOT required; any stone).  Used by the engine's TAKEBACK.  The
  // outcome is recomputed from scratch.  Throws RulesError on an empty point.
  void Remove(int move);
  std::vector<int> LegalMoves() const;

  // Would placing `colour` at `move` make a winning line?  (Rule-aware.)
  bool MakesFive(int move, int8_t colour) const;

  Position ToPosition() const;
  // Builds a board from explicit stones (engine BOARD command, tests).  The
  // side to move is given; outcome is computed.  Throws RulesError on bad data.
  static Board FromStones(int size, Rule rule, const std::vector<int8_t>& cells, int8_t to_move,
                          int last_move = kNoMove);

  std::string ToString() const;  // human-readable, rows top to bottom

 private:
  int LineLength(int move, int8_t colour, int dr, int dc) const;
  void RecomputeOutcome();

  int size_;
  Rule rule_;
  std::vector<int8_t> cells_;
  int8_t to_move_ = kBlack;
  int last_move_ = kNoMove;
  int move_count_ = 0;
  Outcome outcome_ = Outcome::kOngoing;
};

}  // namespace gz
