// Renju forbidden points (common/game/renju.h) against an independent oracle.
//
// The oracle below is a slow, literal reading of the rule text, sharing
// nothing with renju.cc: it walks whole board lines (not an 11-cell window),
// finds fours by actually placing every completion stone and measuring the
// resulting run, finds threes by placing every candidate stone and asking
// whether the result is a straight four (a four with two completion points),
// and checks the legality of that stone by calling itself recursively.  It
// judges every candidate three, not only when a double three is possible.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/renju.h"

using namespace gz;

namespace {

// ---------------------------------------------------------------- the oracle
namespace oracle {

const int kD[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};

struct Grid {
  int n;
  std::vector<int8_t> c;
  bool On(int r, int col) const { return r >= 0 && r < n && col >= 0 && col < n; }
};

struct Stats {
  long three_candidates = 0;         // (point, direction, stone) that would make a straight four
  long candidates_refused = 0;       // ... whose stone was itself forbidden
  long threes_lost_to_refusal = 0;   // a potential three that no legal stone completes
  long double_threes_undone = 0;     // points with two potential threes but under two real ones
};

// The black stones of the maximal black run through p (which is black) along d.
std::vector<int> RunStones(const Grid& g, int p, int d) {
  std::vector<int> out{p};
  for (int sgn = -1; sgn <= 1; sgn += 2) {
    int r = p / g.n + sgn * kD[d][0], col = p % g.n + sgn * kD[d][1];
    while (g.On(r, col) && g.c[r * g.n + col] == kBlack) {
      out.push_back(r * g.n + col);
      r += sgn * kD[d][0];
      col += sgn * kD[d][1];
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every point of the whole board line through p along d.
std::vector<int> LinePoints(const Grid& g, int p, int d) {
  int r = p / g.n, col = p % g.n;
  while (g.On(r - kD[d][0], col - kD[d][1])) {
    r -= kD[d][0];
    col -= kD[d][1];
  }
  std::vector<int> out;
  for (; g.On(r, col); r += kD[d][0], col += kD[d][1]) out.push_back(r * g.n + col);
  return out;
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// "A four: four stones on a line to which one more stone makes exactly five."
// The fours through p (black) along d, each as its sorted stone set, mapped
// to the points that complete it.
std::map<std::vector<int>, std::set<int>> Fours(Grid& g, int p, int d) {
  std::map<std::vector<int>, std::set<int>> out;
  for (int q : LinePoints(g, p, d)) {
    if (g.c[q] != kEmpty) continue;
    g.c[q] = kBlack;
    std::vector<int> five = RunStones(g, q, d);
    g.c[q] = kEmpty;
    if (five.size() != 5 || !Contains(five, p)) continue;
    five.erase(std::find(five.begin(), five.end(), q));
    out[five].insert(q);
  }
  return out;
}

ForbiddenReason Judge(Grid& g, int p, Stats& st);

// Whether black at the empty q makes exactly five on some line.
bool MakesFive(Grid& g, int q) {
  g.c[q] = kBlack;
  bool five = false;
  for (int d = 0; d < 4; ++d) five |= RunStones(g, q, d).size() == 5;
  g.c[q] = kEmpty;
  return five;
}

// "A three: three stones on a line to which one more stone, legally played
// and without at the same time making a five, makes a straight four (a four
// with two points that make five)."  The number of distinct three-stone sets
// through p (black) along d.
int Threes(Grid& g, int p, int d, Stats& st, int* potential_count) {
  std::set<std::vector<int>> potential, real;
  for (int q : LinePoints(g, p, d)) {
    if (g.c[q] != kEmpty) continue;
    g.c[q] = kBlack;
    auto fours = Fours(g, q, d);
    g.c[q] = kEmpty;
    for (const auto& [stones, completions] : fours) {
      if (completions.size() != 2 || !Contains(stones, p)) continue;
      std::vector<int> three = stones;
      three.erase(std::find(three.begin(), three.end(), q));
      ++st.three_candidates;
      potential.insert(three);
      if (!MakesFive(g, q) && Judge(g, q, st) == ForbiddenReason::kNone) real.insert(three);
      else ++st.candidates_refused;
    }
  }
  st.threes_lost_to_refusal += static_cast<long>(potential.size() - real.size());
  *potential_count += static_cast<int>(potential.size());
  return static_cast<int>(real.size());
}

// p empty; leaves g as it found it.
ForbiddenReason Judge(Grid& g, int p, Stats& st) {
  g.c[p] = kBlack;
  bool five = false, overline = false;
  for (int d = 0; d < 4; ++d) {
    const size_t len = RunStones(g, p, d).size();
    five |= len == 5;
    overline |= len > 5;
  }
  ForbiddenReason r = ForbiddenReason::kNone;
  if (!five) {
    int fours = 0, threes = 0;
    for (int d = 0; d < 4; ++d) fours += static_cast<int>(Fours(g, p, d).size());
    if (overline) {
      r = ForbiddenReason::kOverline;
    } else if (fours >= 2) {
      r = ForbiddenReason::kDoubleFour;
    } else {
      int potential = 0;
      for (int d = 0; d < 4; ++d) threes += Threes(g, p, d, st, &potential);
      if (threes >= 2) r = ForbiddenReason::kDoubleThree;
      else if (potential >= 2) ++st.double_threes_undone;
    }
  }
  g.c[p] = kEmpty;
  return r;
}

ForbiddenReason Reason(const Board& b, int p, Stats& st) {
  Grid g{b.size(), b.cells()};
  return Judge(g, p, st);
}

}  // namespace oracle

// ------------------------------------------------------- the second referee
// Written apart from the oracle above, straight from the definitions, over
// text rows ('X', 'O', '.', and '#' beyond the edge): fours are windows of
// five cells holding four black stones and one empty cell whose filling is
// exactly five; a straight four is a black run of exactly four with an empty
// cell at each end, each of which makes exactly five; a three is three stones
// that one more stone s turns into a straight four, where s is legal and makes
// no five (RIF 1996/1998: "without at the same time a five in a row is made").
namespace referee {

enum class Verdict { kAllowed, kSix, kFourFour, kThreeThree };

struct Text {
  int n;
  std::vector<std::string> rows;
  char At(int r, int c) const { return r < 0 || c < 0 || r >= n || c >= n ? '#' : rows[r][c]; }
  void Set(int r, int c, char v) { rows[r][c] = v; }
};

const int kStep[4][2] = {{1, 0}, {0, 1}, {1, -1}, {1, 1}};  // another order than the oracle's

// Length of the black run through (r, c) along step k, (r, c) counted as black.
int Run(const Text& t, int r, int c, int k) {
  int len = 1;
  for (int s = 1; t.At(r + s * kStep[k][0], c + s * kStep[k][1]) == 'X'; ++s) ++len;
  for (int s = 1; t.At(r - s * kStep[k][0], c - s * kStep[k][1]) == 'X'; ++s) ++len;
  return len;
}

bool FiveAt(const Text& t, int r, int c) {
  for (int k = 0; k < 4; ++k)
    if (Run(t, r, c, k) == 5) return true;
  return false;
}

// Stone sets (as "r,c;" strings) of the fours through black (r, c) along k.
std::set<std::string> FourSets(const Text& t, int r, int c, int k) {
  std::set<std::string> out;
  for (int start = -4; start <= 0; ++start) {
    std::string stones;
    int blacks = 0, empties = 0;
    for (int i = start; i < start + 5; ++i) {
      const char v = t.At(r + i * kStep[k][0], c + i * kStep[k][1]);
      if (v == 'X') {
        ++blacks;
        stones += std::to_string(r + i * kStep[k][0]) + "," + std::to_string(c + i * kStep[k][1]) + ";";
      } else if (v == '.') {
        ++empties;
      }
    }
    const char before = t.At(r + (start - 1) * kStep[k][0], c + (start - 1) * kStep[k][1]);
    const char after = t.At(r + (start + 5) * kStep[k][0], c + (start + 5) * kStep[k][1]);
    if (blacks == 4 && empties == 1 && before != 'X' && after != 'X') out.insert(stones);
  }
  return out;
}

// Whether black (r, c) is part of a straight four along k.
bool InStraightFour(const Text& t, int r, int c, int k) {
  if (Run(t, r, c, k) != 4) return false;
  int lo = 0, hi = 0;
  while (t.At(r + (lo - 1) * kStep[k][0], c + (lo - 1) * kStep[k][1]) == 'X') --lo;
  while (t.At(r + (hi + 1) * kStep[k][0], c + (hi + 1) * kStep[k][1]) == 'X') ++hi;
  auto cell = [&](int i) { return t.At(r + i * kStep[k][0], c + i * kStep[k][1]); };
  return cell(lo - 1) == '.' && cell(hi + 1) == '.' && cell(lo - 2) != 'X' && cell(hi + 2) != 'X';
}

Verdict Rule(Text& t, int r, int c);

// Distinct threes through black (r, c) along k whose straight four can be
// made by a legal stone that makes no five.  *seen counts the candidates
// before that legality filter, *five_refused those refused for a five.
int RealThrees(Text& t, int r, int c, int k, int* seen, long* five_refused) {
  std::set<std::string> potential, real;
  for (int i = -3; i <= 3; ++i) {
    const int sr = r + i * kStep[k][0], sc = c + i * kStep[k][1];
    if (i == 0 || t.At(sr, sc) != '.') continue;
    t.Set(sr, sc, 'X');
    const bool straight = InStraightFour(t, r, c, k) && Run(t, sr, sc, k) == 4 && Run(t, r, c, k) == 4;
    std::string three;  // the run through (r, c), s included while placed, without s
    for (int j = -3; straight && j <= 3; ++j) {
      bool joined = true;  // every cell from (r, c) to offset j is black
      for (int m = std::min(0, j); m <= std::max(0, j); ++m)
        joined &= t.At(r + m * kStep[k][0], c + m * kStep[k][1]) == 'X';
      if (joined && j != i) three += std::to_string(r + j * kStep[k][0]) + "," + std::to_string(c + j * kStep[k][1]) + ";";
    }
    t.Set(sr, sc, '.');
    if (!straight) continue;
    potential.insert(three);
    t.Set(sr, sc, 'X');
    const bool five = FiveAt(t, sr, sc);
    t.Set(sr, sc, '.');
    if (five) {
      ++*five_refused;
      continue;
    }
    if (Rule(t, sr, sc) == Verdict::kAllowed) real.insert(three);
  }
  *seen += static_cast<int>(potential.size());
  return static_cast<int>(real.size());
}

// (r, c) empty; leaves t as it found it.
long g_five_refused = 0;
Verdict Rule(Text& t, int r, int c) {
  t.Set(r, c, 'X');
  Verdict v = Verdict::kAllowed;
  bool five = false, six = false;
  for (int k = 0; k < 4; ++k) {
    five |= Run(t, r, c, k) == 5;
    six |= Run(t, r, c, k) > 5;
  }
  if (!five && six) {
    v = Verdict::kSix;
  } else if (!five) {
    size_t fours = 0;
    for (int k = 0; k < 4; ++k) fours += FourSets(t, r, c, k).size();
    if (fours >= 2) {
      v = Verdict::kFourFour;
    } else {
      int threes = 0, seen = 0;
      for (int k = 0; k < 4; ++k) threes += RealThrees(t, r, c, k, &seen, &g_five_refused);
      if (threes >= 2) v = Verdict::kThreeThree;
    }
  }
  t.Set(r, c, '.');
  return v;
}

ForbiddenReason Reason(const Board& b, int p) {
  Text t{b.size(), std::vector<std::string>(b.size(), std::string(b.size(), '.'))};
  for (int q = 0; q < b.num_points(); ++q)
    if (b.at(q) != kEmpty) t.Set(q / b.size(), q % b.size(), b.at(q) == kBlack ? 'X' : 'O');
  switch (Rule(t, p / b.size(), p % b.size())) {
    case Verdict::kAllowed: return ForbiddenReason::kNone;
    case Verdict::kSix: return ForbiddenReason::kOverline;
    case Verdict::kFourFour: return ForbiddenReason::kDoubleFour;
    case Verdict::kThreeThree: return ForbiddenReason::kDoubleThree;
  }
  return ForbiddenReason::kNone;
}

}  // namespace referee

// ------------------------------------------------------------------ helpers

// Builds a 15x15 board from a diagram placed with its top-left at (top, left):
// 'X' black, 'O' white, '.' empty, '*' empty and returned as the point of
// interest (at most one).
Board Diagram(const std::vector<std::string>& rows, int top, int left, int* star = nullptr) {
  const int n = 15;
  std::vector<int8_t> cells(n * n, kEmpty);
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) {
      const int p = (top + static_cast<int>(r)) * n + left + static_cast<int>(c);
      const char ch = rows[r][c];
      if (ch == 'X') cells[p] = kBlack;
      else if (ch == 'O') cells[p] = kWhite;
      else if (ch == '*' && star) *star = p;
      else REQUIRE((ch == '.' || ch == '*'));
    }
  return Board::FromStones(n, Rule::kStandard, cells, kBlack);
}

struct Tally {
  long compared = 0, disagreements = 0;
  long by_reason[4] = {0, 0, 0, 0};
  oracle::Stats st;
};

// Compares fast and oracle on every empty point, and ForbiddenPoints with the
// per-point answers.
void CompareAll(const Board& b, Tally& t) {
  std::vector<int> expect;
  for (int p = 0; p < b.num_points(); ++p) {
    if (b.at(p) != kEmpty) continue;
    const ForbiddenReason fast = ForbiddenReasonForBlack(b, p);
    const ForbiddenReason slow = oracle::Reason(b, p, t.st);
    const ForbiddenReason second = referee::Reason(b, p);
    ++t.compared;
    ++t.by_reason[static_cast<int>(slow)];
    if (slow != ForbiddenReason::kNone) expect.push_back(p);
    if (fast != slow || second != slow) {
      ++t.disagreements;
      if (t.disagreements <= 5) {
        INFO(b.ToString() << "point row " << p / b.size() << " col " << p % b.size() << ": fast "
                          << ForbiddenReasonName(fast) << ", oracle " << ForbiddenReasonName(slow)
                          << ", second referee " << ForbiddenReasonName(second));
        CHECK(fast == slow);
        CHECK(second == slow);
      }
    }
  }
  CHECK(ForbiddenPoints(b) == expect);
}

// Expected reason at the star, plus agreement everywhere on the board.
void Expect(const std::vector<std::string>& rows, ForbiddenReason want, Tally& t, int top = 4, int left = 4) {
  int star = -1;
  Board b = Diagram(rows, top, left, &star);
  REQUIRE(star >= 0);
  REQUIRE_FALSE(b.terminal());
  INFO(b.ToString() << "star at row " << star / 15 << " col " << star % 15);
  CHECK(ForbiddenReasonName(ForbiddenReasonForBlack(b, star)) == std::string(ForbiddenReasonName(want)));
  CHECK(IsForbiddenForBlack(b, star) == (want != ForbiddenReason::kNone));
  CompareAll(b, t);
}

}  // namespace

TEST_CASE("renju: the basic forbidden shapes and their near misses") {
  Tally t;
  using R = ForbiddenReason;
  // Open three horizontally and vertically: double three.
  Expect({".......",
          "...X...",
          "...X...",
          ".XX*...",
          "......."}, R::kDoubleThree, t);
  // Same, but the horizontal three is blocked at one end: not a three.
  Expect({".......",
          "...X...",
          "...X...",
          "OXX*...",
          "......."}, R::kNone, t);
  // A split three (X.XX) and a diagonal three.
  Expect({"........",
          "........",
          "........",
          "X.X*....",
          "..X.....",
          ".X......",
          "........"}, R::kDoubleThree, t);
  // Overline made by the move.
  Expect({"XXX*XX."}, R::kOverline, t, 7, 2);
  // Five beats everything: exactly five horizontally, overline vertically.
  Expect({"...X...",
          "...X...",
          "...X...",
          "XXX*X..",
          "...X...",
          "...X...",
          "......."}, R::kNone, t, 3, 3);
  // Exactly five that is also a double-four point (vertical and diagonal
  // fours): allowed.  Without the fifth stone it is a triple four.
  Expect({"...X....",
          "...X....",
          "...X....",
          "XXX*X...",
          "....X...",
          ".....X..",
          "......X."}, R::kNone, t, 3, 3);
  Expect({"...X....",
          "...X....",
          "...X....",
          "XXX*....",
          "....X...",
          ".....X..",
          "......X."}, R::kDoubleFour, t, 3, 3);
  // A four (vertical) and a split three (XX.X): four-three, allowed; with one
  // more stone the split three becomes a four across the gap: double four.
  Expect({"........",
          "...X....",
          "...X....",
          "...X....",
          "XX.*....",
          "........"}, R::kNone, t);
  Expect({"........",
          "...X....",
          "...X....",
          "...X....",
          "XX.*X...",
          "........"}, R::kDoubleFour, t);
  // A "four" whose only completion makes an overline is no four: X.XXX*O
  // plus a vertical four is a single four; without the far stone, a double four.
  Expect({".....X...",
          ".....X...",
          ".....X...",
          "X.XXX*O..",
          "........."}, R::kNone, t, 4, 1);
  Expect({".....X...",
          ".....X...",
          ".....X...",
          "..XXX*O..",
          "........."}, R::kDoubleFour, t, 4, 1);
  // Four-four on one line: X.X*X.X, XX.*X.XX, XX.X*.XX, XXX.*.XXX.
  Expect({"X.X*X.X"}, R::kDoubleFour, t, 7, 3);
  Expect({"XX.*X.XX"}, R::kDoubleFour, t, 7, 3);
  Expect({"XX.X*.XX"}, R::kDoubleFour, t, 7, 3);
  Expect({"XXX.*.XXX"}, R::kDoubleFour, t, 7, 3);
  // ... but XXX.X*XXX is exactly five (cols 7..11): allowed.
  Expect({"XXX.X*XXX"}, R::kNone, t, 7, 3);
  // A single four across a gap plus an open three: four-three, allowed.
  Expect({"........",
          "...X....",
          "...X....",
          "XX.*X...",
          "........"}, R::kNone, t);
  // Split three plus open three: double three.
  Expect({"........",
          "...X....",
          "...X....",
          "XX.*....",
          "........"}, R::kDoubleThree, t);
  // Four-three-three: still a double three.
  Expect({"........",
          "...X....",
          "...X....",
          "XXX*....",
          "..X.....",
          ".X......",
          "........"}, R::kDoubleThree, t);
  WARN(t.compared << " points compared, " << t.disagreements << " disagreements");
  CHECK(t.disagreements == 0);
  CHECK(t.compared > 1000);
}

TEST_CASE("renju: false threes, whose only straight-four point is forbidden") {
  Tally t;
  using R = ForbiddenReason;
  // The move * (row 6, col 5) makes XXX horizontally and an open three
  // vertically.  The white stone two to the left leaves the horizontal three
  // one straight-four point, a = (6,7); the column of three above a makes
  // black at a a double four (straight four across, four down), so a is
  // forbidden, the horizontal three is false and * is no double three.
  Expect({".....X...",
          "...X.X...",
          "...X.X...",
          "O.X*X....",
          "........."}, R::kNone, t, 3, 2);
  // Without the white stone, (6,3) is a legal straight-four point: double three.
  Expect({".....X...",
          "...X.X...",
          "...X.X...",
          "..X*X....",
          "........."}, R::kDoubleThree, t, 3, 2);
  // a forbidden as a four-three-three instead: at a, a straight four across,
  // a three down (col 7) and a three up-right ((5,8), (4,9)).
  Expect({".........",
          "...X.X.X.",
          "...X.XX..",
          "O.X*X....",
          "........."}, R::kNone, t, 3, 2);
  Expect({".........",
          "...X.X.X.",
          "...X.XX..",
          "..X*X....",
          "........."}, R::kDoubleThree, t, 3, 2);
  WARN(t.compared << " points compared, " << t.disagreements << " disagreements; oracle: "
                  << t.st.candidates_refused << " refused straight-four points, "
                  << t.st.threes_lost_to_refusal << " false threes, " << t.st.double_threes_undone
                  << " double threes undone by them");
  CHECK(t.disagreements == 0);
  CHECK(t.st.double_threes_undone > 0);
}

// Stones given as (row, column) from 1, top-left, as the RIF text and the
// issue that found the clause write them.
Board FromRowsCols(const std::vector<std::pair<int, int>>& black, const std::vector<std::pair<int, int>>& white) {
  std::vector<int8_t> cells(15 * 15, kEmpty);
  for (auto [r, c] : black) cells[(r - 1) * 15 + c - 1] = kBlack;
  for (auto [r, c] : white) cells[(r - 1) * 15 + c - 1] = kWhite;
  return Board::FromStones(15, Rule::kStandard, cells, kBlack);
}
int At(int r, int c) { return (r - 1) * 15 + c - 1; }

TEST_CASE("renju: a straight-four point that also makes a five makes no three (RIF text)") {
  Tally t;
  // r8c4 makes a four on row 8 (its five point r8c5), the three r7c3-r8c4-r9c5
  // and the split three r8c4-r6c6-r5c7 (straight-four point r7c5).  With r8c4
  // played, r7c5 makes a straight four and the three r7c3-r7c5 plus the split
  // three r7c5-r9c5-r10c5, whose only straight-four point r8c5 completes
  // r8c4's five: no three, so r7c5 is a legal four-three, both threes of r8c4
  // are real, and r8c4 is a forbidden double three.
  Board b1 = FromRowsCols({{5, 7}, {6, 6}, {7, 3}, {7, 4}, {8, 6}, {8, 7}, {8, 8}, {9, 5}, {10, 5}}, {{12, 5}});
  CHECK(ForbiddenReasonForBlack(b1, At(8, 4)) == ForbiddenReason::kDoubleThree);
  Board b1_after = b1;
  b1_after.Play(At(8, 4));  // black's move, forbidden or not, to ask about r7c5
  std::vector<int8_t> cells = b1_after.cells();
  Board b1_next = Board::FromStones(15, Rule::kStandard, cells, kBlack);
  CHECK(ForbiddenReasonForBlack(b1_next, At(7, 5)) == ForbiddenReason::kNone);
  CompareAll(b1, t);
  CompareAll(b1_next, t);
  // r11c6: a vertical three and a split diagonal three whose only
  // straight-four point r10c7 completes the five on row 10: allowed.
  Board b2 = FromRowsCols({{8, 5}, {8, 9}, {9, 6}, {9, 8}, {10, 3}, {10, 4}, {10, 5}, {10, 6}}, {});
  CHECK(ForbiddenReasonForBlack(b2, At(11, 6)) == ForbiddenReason::kNone);
  CompareAll(b2, t);
  CHECK(t.disagreements == 0);
}

TEST_CASE("renju: fast and oracle agree on every empty point of random positions") {
  std::mt19937 rng(20261717);
  Tally t;
  int positions = 0;
  for (int g = 0; g < 3000; ++g) {
    const int n = 15;
    const int radius = 3 + static_cast<int>(rng() % 3);  // 7x7 .. 11x11 around the centre
    const int lo = 7 - radius, span = 2 * radius + 1;
    const int stones = 8 + static_cast<int>(rng() % 40);
    const bool clustered = rng() % 2 == 0;  // black leans next to black: more shapes
    const double black_share = 0.45 + 0.3 * (rng() % 100) / 100.0;
    std::vector<int8_t> cells(n * n, kEmpty);
    for (int k = 0, tries = 0; k < stones && tries < 20 * stones; ++tries) {
      int p = (lo + static_cast<int>(rng() % span)) * n + lo + static_cast<int>(rng() % span);
      const int8_t colour = (rng() % 1000) < black_share * 1000 ? kBlack : kWhite;
      if (clustered && colour == kBlack) {
        std::vector<int> near;
        for (int q = 0; q < n * n; ++q) {
          if (cells[q] != kBlack) continue;
          for (int dr = -2; dr <= 2; ++dr)
            for (int dc = -2; dc <= 2; ++dc) {
              if (dr != 0 && dc != 0 && std::abs(dr) != std::abs(dc)) continue;  // on a line
              const int r = q / n + dr, c = q % n + dc;
              if (r >= 0 && r < n && c >= 0 && c < n && cells[r * n + c] == kEmpty) near.push_back(r * n + c);
            }
        }
        if (!near.empty()) p = near[rng() % near.size()];
      }
      if (cells[p] != kEmpty) continue;
      // No five (or longer) of either colour on the board.
      Board probe = Board::FromStones(n, Rule::kFreestyle, cells, colour);
      if (probe.MakesFive(p, colour)) continue;
      cells[p] = colour;
      ++k;
    }
    Board b = Board::FromStones(n, Rule::kStandard, cells, kBlack);
    REQUIRE_FALSE(b.terminal());
    CompareAll(b, t);
    ++positions;
  }
  WARN(positions << " positions, " << t.compared << " points compared, " << t.disagreements
                 << " disagreements; oracle: " << t.by_reason[1] << " overline, " << t.by_reason[2]
                 << " double-four, " << t.by_reason[3] << " double-three points, "
                 << t.st.three_candidates << " straight-four points judged, " << t.st.candidates_refused
                 << " refused, " << t.st.threes_lost_to_refusal << " false threes, "
                 << t.st.double_threes_undone << " double threes undone by them");
  CHECK(t.disagreements == 0);
  // The sample must exercise every reason and the recursive refinement.
  CHECK(t.by_reason[1] > 20);
  CHECK(t.by_reason[2] > 20);
  CHECK(t.by_reason[3] > 20);
  CHECK(t.st.double_threes_undone > 5);
  // ... and the clause "without at the same time a five".
  WARN(referee::g_five_refused << " straight-four points refused by the second referee for making a five");
  CHECK(referee::g_five_refused > 0);
}

TEST_CASE("renju: preconditions and names") {
  Board b(15, Rule::kStandard);
  b.Play(112);
  CHECK_THROWS_AS(ForbiddenReasonForBlack(b, 112), RulesError);
  CHECK_THROWS_AS(ForbiddenReasonForBlack(b, -1), RulesError);
  CHECK_THROWS_AS(ForbiddenReasonForBlack(b, 225), RulesError);
  CHECK(ForbiddenPoints(b).empty());
  // The forbidden points are a property of the stones, not of the side to move.
  int star = -1;
  Board black_to_move = Diagram({"XX*", "..X", "..X"}, 6, 6, &star);
  Board white_to_move = Board::FromStones(15, Rule::kStandard, black_to_move.cells(), kWhite);
  CHECK(ForbiddenPoints(black_to_move) == std::vector<int>{star});
  CHECK(ForbiddenPoints(white_to_move) == std::vector<int>{star});
  CHECK(std::string(ForbiddenReasonName(ForbiddenReason::kDoubleThree)) == "double-three");
  CHECK(std::string(ForbiddenReasonName(ForbiddenReason::kOverline)) == "overline");
}
