#include "common/game/board.h"

#include <algorithm>
#include <iterator>
#include <sstream>

#include "common/base/errors.h"
#include "common/game/renju.h"

namespace gz {

const char* RuleName(Rule r) {
  switch (r) {
    case Rule::kFreestyle: return "freestyle";
    case Rule::kStandard: return "standard";
    case Rule::kRenju: return "renju";
    case Rule::kCaro: return "caro";
    case Rule::kCaroOverline: return "caro-overline";
  }
  return "freestyle";
}

Rule ParseRule(const std::string& s) {
  if (s == "freestyle") return Rule::kFreestyle;
  if (s == "standard") return Rule::kStandard;
  if (s == "renju") return Rule::kRenju;
  if (s == "caro") return Rule::kCaro;
  if (s == "caro-overline") return Rule::kCaroOverline;
  GOMOKU_THROW(ConfigError,
               "unknown rule '" << s << "' (expected freestyle, standard, renju, caro or caro-overline)");
}

uint64_t Position::Hash() const {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](uint64_t b) {
    h ^= b;
    h *= 1099511628211ULL;
  };
  mix(static_cast<uint64_t>(size));
  for (int8_t c : cells) mix(static_cast<uint8_t>(c));
  mix(static_cast<uint64_t>(last_move + 1));
  mix(static_cast<uint64_t>(to_move));
  return h;
}

Board::Board(int size, Rule rule) : size_(size), rule_(rule) {
  if (size < kMinBoardSize || size > kMaxBoardSize)
    GOMOKU_THROW(ConfigError, "board size " << size << " out of range [" << kMinBoardSize << ", "
                                            << kMaxBoardSize << "]");
  cells_.assign(size * size, kEmpty);
  if (moves_before_draw() <= 0) outcome_ = Outcome::kDraw;  // renju on 5x5
}

bool Board::ForbiddenHere(int move) const { return IsForbiddenForBlack(*this, move); }

int Board::LineLength(int move, int8_t colour, int dr, int dc) const {
  // Number of consecutive `colour` stones through `move` in direction (dr,dc),
  // counting `move` itself as that colour.
  int r0 = move / size_, c0 = move % size_;
  int n = 1;
  for (int sgn = -1; sgn <= 1; sgn += 2) {
    int r = r0 + sgn * dr, c = c0 + sgn * dc;
    while (r >= 0 && r < size_ && c >= 0 && c < size_ && cells_[r * size_ + c] == colour) {
      ++n;
      r += sgn * dr;
      c += sgn * dc;
    }
  }
  return n;
}

bool Board::BlockedBothEnds(int move, int8_t colour, int dr, int dc) const {
  for (int sgn = -1; sgn <= 1; sgn += 2) {
    int r = move / size_ + sgn * dr, c = move % size_ + sgn * dc;
    while (r >= 0 && r < size_ && c >= 0 && c < size_ && cells_[r * size_ + c] == colour) {
      r += sgn * dr;
      c += sgn * dc;
    }
    // As the Gomocup manager judges caro: the edge and any stone end a run's
    // side (kBlocked points too); only an empty point leaves it open.
    if (r >= 0 && r < size_ && c >= 0 && c < size_ && cells_[r * size_ + c] == kEmpty) return false;
  }
  return true;
}

bool Board::MakesFive(int move, int8_t colour) const {
  static const int kDirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  const bool exact = rule_ == Rule::kStandard || rule_ == Rule::kCaro || (rule_ == Rule::kRenju && colour == kBlack);
  for (const auto& d : kDirs) {
    int len = LineLength(move, colour, d[0], d[1]);
    if (!(exact ? len == kWinLength : len >= kWinLength)) continue;
    // Caro blocks only an exact five; caro-overline's overline always wins.
    if (!IsCaro(rule_) || len > kWinLength || !BlockedBothEnds(move, colour, d[0], d[1])) return true;
  }
  return false;
}

void Board::Play(int move) {
  if (terminal()) GOMOKU_THROW(RulesError, "game is over; move " << move << " not allowed");
  if (move < 0 || move >= num_points())
    GOMOKU_THROW(RulesError, "move " << move << " is off the " << size_ << "x" << size_ << " board");
  if (cells_[move] != kEmpty)
    GOMOKU_THROW(RulesError, "point " << move << " (row " << move / size_ << ", col " << move % size_
                                      << ") is occupied");
  if (rule_ == Rule::kRenju && to_move_ == kBlack) [[unlikely]]
    RefuseForbidden(move);
  bool wins = MakesFive(move, to_move_);
  cells_[move] = to_move_;
  last_move_ = move;
  ++move_count_;
  if (wins)
    outcome_ = to_move_ == kBlack ? Outcome::kBlackWins : Outcome::kWhiteWins;
  else if (moves_before_draw() <= 0)  // the board full, or renju's 25 empty points
    outcome_ = Outcome::kDraw;
  to_move_ = Opponent(to_move_);
  if (rule_ == Rule::kRenju) [[unlikely]]
    if (BlackIsStuck()) outcome_ = Outcome::kDraw;
}

void Board::RefuseForbidden(int move) const {
  const ForbiddenReason why = ForbiddenReasonForBlack(*this, move);
  if (why != ForbiddenReason::kNone)
    GOMOKU_THROW(RulesError, "point " << move << " (row " << move / size_ << ", col " << move % size_
                                      << ") is forbidden for black under renju: " << ForbiddenReasonName(why));
}

bool Board::BlackIsStuck() const {
  return rule_ == Rule::kRenju && to_move_ == kBlack && !terminal() && !HasAllowedPointForBlack(*this);
}

void Board::RecomputeOutcome() {
  outcome_ = Outcome::kOngoing;
  move_count_ = 0;
  blocked_ = 0;
  for (int m = 0; m < num_points(); ++m) {
    if (cells_[m] == kEmpty) continue;
    ++move_count_;
    int8_t c = cells_[m];
    if (c == kBlocked) {
      ++blocked_;
      continue;
    }
    cells_[m] = kEmpty;
    bool five = MakesFive(m, c);
    cells_[m] = c;
    if (five) outcome_ = c == kBlack ? Outcome::kBlackWins : Outcome::kWhiteWins;
  }
  if (outcome_ == Outcome::kOngoing && moves_before_draw() <= 0) outcome_ = Outcome::kDraw;
  if (BlackIsStuck()) outcome_ = Outcome::kDraw;
}

void Board::Remove(int move) {
  if (move < 0 || move >= num_points() || cells_[move] == kEmpty || cells_[move] == kBlocked)
    GOMOKU_THROW(RulesError, "no stone at point " << move << " to take back");
  to_move_ = cells_[move];
  cells_[move] = kEmpty;
  last_move_ = kNoMove;
  RecomputeOutcome();
}

std::vector<int> Board::LegalMoves() const {
  std::vector<int> out;
  if (terminal()) return out;
  out.reserve(num_points() - move_count_);
  for (int m = 0; m < num_points(); ++m)
    if (cells_[m] == kEmpty) out.push_back(m);
  if (rule_ == Rule::kRenju && to_move_ == kBlack) {
    const std::vector<int> forbidden = ForbiddenPoints(*this);
    if (!forbidden.empty()) {
      std::vector<int> kept;
      kept.reserve(out.size() - forbidden.size());
      std::set_difference(out.begin(), out.end(), forbidden.begin(), forbidden.end(), std::back_inserter(kept));
      out.swap(kept);
    }
  }
  return out;
}

Position Board::ToPosition() const {
  Position p;
  p.size = size_;
  p.cells = cells_;
  p.last_move = last_move_;
  p.to_move = to_move_;
  p.rule = rule_;
  return p;
}

Board Board::FromStones(int size, Rule rule, const std::vector<int8_t>& cells, int8_t to_move,
                        int last_move) {
  Board b(size, rule);
  if (static_cast<int>(cells.size()) != size * size)
    GOMOKU_THROW(RulesError, "position has " << cells.size() << " cells, expected " << size * size);
  for (int8_t c : cells)
    if (c != kEmpty && c != kBlack && c != kWhite && c != kBlocked)
      GOMOKU_THROW(RulesError, "invalid cell value " << int(c));
  if (to_move != kBlack && to_move != kWhite)
    GOMOKU_THROW(RulesError, "invalid side to move " << int(to_move));
  if (last_move != kNoMove &&
      (last_move < 0 || last_move >= size * size || cells[last_move] == kEmpty || cells[last_move] == kBlocked))
    GOMOKU_THROW(RulesError, "invalid last move " << last_move);
  b.cells_ = cells;
  b.to_move_ = to_move;
  b.last_move_ = last_move;
  b.RecomputeOutcome();
  return b;
}

std::string Board::ToString() const {
  std::ostringstream os;
  for (int r = 0; r < size_; ++r) {
    for (int c = 0; c < size_; ++c) {
      int m = r * size_ + c;
      char ch = cells_[m] == kBlack ? 'X' : cells_[m] == kWhite ? 'O' : cells_[m] == kBlocked ? '#' : '.';
      os << ch << (c + 1 < size_ ? " " : "");
    }
    os << '\n';
  }
  return os.str();
}

}  // namespace gz
