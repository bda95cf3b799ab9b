#include "common/game/renju.h"

#include <bit>

#include "common/base/errors.h"

namespace gz {

namespace {

constexpr int kDirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
// Cells either side of a point that decide every five, four and three through
// it on one line: a four's window reaches 4 away and its exactness check 5
// away; a straight four's window reaches 3 away, its completions 4 and their
// exactness checks 5.
constexpr int kReach = 5;
constexpr int kCentre = kReach;  // bit index of the point itself

// One line through the point as bit masks over offsets -5..+5 (bit i is the
// cell at offset i - 5).  The point itself is black.  Off-board cells and
// white stones are in neither mask.
struct Line {
  uint32_t black = 0;
  uint32_t empty = 0;
};

// At most 5 four windows and 4 straight-four windows contain the point.
struct LineThrees {
  int count = 0;
  uint32_t stones[4] = {};  // distinct three-stone sets (masks)
  uint32_t points[4] = {};  // for each: the straight-four points (masks)
};

int RunThroughCentre(uint32_t black) {
  int n = 1;
  for (int i = kCentre + 1; i <= 2 * kReach && (black >> i & 1); ++i) ++n;
  for (int i = kCentre - 1; i >= 0 && (black >> i & 1); --i) ++n;
  return n;
}

// Distinct fours through the point: a window of five with four black stones
// (the point among them) and one empty cell, not flanked by black (else
// filling it would be an overline).  Two windows with the same stones are one
// straight four; different stones are different fours (four-four on a line).
int CountFours(const Line& l) {
  uint32_t seen[5];
  int count = 0;
  for (int s = kCentre - 4; s <= kCentre; ++s) {
    const uint32_t w = 0x1Fu << s;
    const uint32_t b = l.black & w;
    if (std::popcount(b) != 4 || std::popcount(l.empty & w) != 1) continue;
    if ((l.black >> (s - 1) & 1) || (l.black >> (s + 5) & 1)) continue;
    bool dup = false;
    for (int k = 0; k < count; ++k) dup |= seen[k] == b;
    if (!dup) seen[count++] = b;
  }
  return count;
}

// Potential threes through the point: a window of four with three black
// stones (the point among them) and one empty cell q, both neighbours empty
// and the cells beyond them not black, so that black at q makes a straight
// four.  Whether q is legal is decided by the caller (it needs the board).
LineThrees FindThrees(const Line& l) {
  LineThrees t;
  for (int s = kCentre - 3; s <= kCentre; ++s) {
    const uint32_t w = 0xFu << s;
    const uint32_t b = l.black & w;
    const uint32_t q = l.empty & w;
    if (std::popcount(b) != 3 || std::popcount(q) != 1) continue;
    if (!(l.empty >> (s - 1) & 1) || !(l.empty >> (s + 4) & 1)) continue;
    if ((l.black >> (s - 2) & 1) || (l.black >> (s + 5) & 1)) continue;
    int k = 0;
    while (k < t.count && t.stones[k] != b) ++k;
    if (k == t.count) t.stones[t.count++] = b;
    t.points[k] |= q;
  }
  return t;
}

// Works on its own copy of the cells (or on a caller's cells, which it
// restores) so that the recursion can place stones.
class Judge {
 public:
  explicit Judge(const Board& b) : n_(b.size()), own_(b.cells()), cells_(own_) {}
  Judge(int n, const std::vector<int8_t>& cells) : n_(n), own_(cells), cells_(own_) {}
  Judge(int n, std::vector<int8_t>* cells) : n_(n), cells_(*cells) {}

  // Precondition: `point` is empty.  Leaves the cells as it found them.
  ForbiddenReason Reason(int point) {
    cells_[point] = kBlack;
    ForbiddenReason r = Decide(point);
    cells_[point] = kEmpty;
    return r;
  }

 private:
  // The point is black on the grid.
  ForbiddenReason Decide(int point) {
    Line lines[4];
    bool overline = false;
    for (int d = 0; d < 4; ++d) {
      lines[d] = Extract(point, d);
      const int run = RunThroughCentre(lines[d].black);
      if (run == kWinLength) return ForbiddenReason::kNone;  // five beats everything
      overline |= run > kWinLength;
    }
    if (overline) return ForbiddenReason::kOverline;
    int fours = 0;
    for (const Line& l : lines) fours += CountFours(l);
    if (fours >= 2) return ForbiddenReason::kDoubleFour;

    LineThrees threes[4];
    int potential = 0;
    for (int d = 0; d < 4; ++d) {
      threes[d] = FindThrees(lines[d]);
      potential += threes[d].count;
    }
    if (potential < 2) return ForbiddenReason::kNone;
    // Only now pay for the recursion: a three is real when one of its
    // straight-four points is itself legal and makes no five (with this stone
    // on the board).
    int real = 0;
    for (int d = 0; d < 4; ++d) {
      for (int k = 0; k < threes[d].count; ++k) {
        bool legal = false;
        for (uint32_t m = threes[d].points[k]; m != 0 && !legal; m &= m - 1) {
          const int q = PointAt(point, d, std::countr_zero(m) - kCentre);
          legal = !MakesFive(q) && Reason(q) == ForbiddenReason::kNone;
        }
        if (legal && ++real >= 2) return ForbiddenReason::kDoubleThree;
        if (!legal && --potential < 2) return ForbiddenReason::kNone;
      }
    }
    return ForbiddenReason::kNone;
  }

  // Whether black at the empty `point` makes exactly five on some line.  The
  // rule text counts a three only when its straight four can be made
  // "without at the same time a five in a row", so such a point makes no
  // three (the five itself is legal: Reason() says kNone for it).
  bool MakesFive(int point) {
    cells_[point] = kBlack;
    bool five = false;
    for (int d = 0; d < 4 && !five; ++d) five = RunThroughCentre(Extract(point, d).black) == kWinLength;
    cells_[point] = kEmpty;
    return five;
  }

  Line Extract(int point, int d) const {
    Line l;
    const int r0 = point / n_, c0 = point % n_;
    for (int k = -kReach; k <= kReach; ++k) {
      const int r = r0 + k * kDirs[d][0], c = c0 + k * kDirs[d][1];
      if (r < 0 || r >= n_ || c < 0 || c >= n_) continue;
      const int8_t v = cells_[r * n_ + c];
      if (v == kBlack) l.black |= 1u << (k + kReach);
      else if (v == kEmpty) l.empty |= 1u << (k + kReach);
    }
    return l;
  }

  int PointAt(int point, int d, int k) const {
    return (point / n_ + k * kDirs[d][0]) * n_ + point % n_ + k * kDirs[d][1];
  }

  int n_;
  std::vector<int8_t> own_;
  std::vector<int8_t>& cells_;
};

}  // namespace

const char* ForbiddenReasonName(ForbiddenReason r) {
  switch (r) {
    case ForbiddenReason::kNone: return "none";
    case ForbiddenReason::kOverline: return "overline";
    case ForbiddenReason::kDoubleFour: return "double-four";
    case ForbiddenReason::kDoubleThree: return "double-three";
  }
  return "unknown";
}

ForbiddenReason ForbiddenReasonForBlack(const Board& board, int point) {
  if (point < 0 || point >= board.num_points())
    GOMOKU_THROW(RulesError, "point " << point << " is off the " << board.size() << "x"
                                      << board.size() << " board");
  if (board.at(point) != kEmpty)
    GOMOKU_THROW(RulesError, "point " << point << " (row " << point / board.size() << ", col "
                                      << point % board.size() << ") is occupied");
  return Judge(board).Reason(point);
}

bool IsForbiddenForBlack(const Board& board, int point) {
  return ForbiddenReasonForBlack(board, point) != ForbiddenReason::kNone;
}

std::vector<int> ForbiddenPoints(const Board& board) {
  std::vector<int> out;
  Judge judge(board);  // one copy of the cells for the whole board
  for (int p = 0; p < board.num_points(); ++p)
    if (board.at(p) == kEmpty && judge.Reason(p) != ForbiddenReason::kNone) out.push_back(p);
  return out;
}

std::vector<int> ForbiddenPoints(int size, const std::vector<int8_t>& cells) {
  GOMOKU_CHECK(static_cast<int>(cells.size()) == size * size,
               "position has " << cells.size() << " cells for size " << size);
  std::vector<int> out;
  Judge judge(size, cells);
  for (int p = 0; p < size * size; ++p)
    if (cells[p] == kEmpty && judge.Reason(p) != ForbiddenReason::kNone) out.push_back(p);
  return out;
}

ForbiddenReason ForbiddenReasonOnCells(int size, std::vector<int8_t>* cells, int point) {
  GOMOKU_CHECK(static_cast<int>(cells->size()) == size * size && point >= 0 && point < size * size &&
                   (*cells)[point] == kEmpty,
               "renju: bad cells or point " << point << " for size " << size);
  return Judge(size, cells).Reason(point);
}

bool HasAllowedPointForBlack(const Board& board) {
  Judge judge(board);
  for (int p = 0; p < board.num_points(); ++p)
    if (board.at(p) == kEmpty && judge.Reason(p) == ForbiddenReason::kNone) return true;
  return false;
}

}  // namespace gz
