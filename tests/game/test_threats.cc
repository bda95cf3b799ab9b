// common/game/threats: five points, fours, open fours and VCF, checked
// against an exhaustive search of fours written out here (no shared code
// with threats.cc or board.cc), on random small positions under both rules,
// and on hand-built positions whose answer follows from the definitions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/tactics.h"
#include "common/game/threats.h"
#include "common/game/vct.h"
#include "tests/game/game_test_util.h"

using namespace gz;
using gz::testing::P;
using gz::testing::RandomPosition;

namespace {

// --- the oracle -------------------------------------------------------------
// A raw grid with its own five test and a brute-force VCF: the attacker tries
// every move after which it has a five point, the defender every empty point.
struct VcfOracle {
  int n;
  Rule rule;
  std::vector<int8_t> cells;

  static VcfOracle Of(const Board& b) { return {b.size(), b.rule(), b.cells()}; }

  // Would `colour` on the empty point p make a five?
  bool FiveFor(int p, int8_t colour) const {
    if (cells[p] != kEmpty) return false;
    static const int kD[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    const int r0 = p / n, c0 = p % n;
    for (const auto& d : kD) {
      int len = 1, blocked_ends = 0;
      for (int s = -1; s <= 1; s += 2) {
        int r = r0 + s * d[0], c = c0 + s * d[1];
        while (r >= 0 && r < n && c >= 0 && c < n && cells[r * n + c] == colour) {
          ++len;
          r += s * d[0];
          c += s * d[1];
        }
        // Closed: off the board or a stone (the manager's caro referee).
        blocked_ends += !(r >= 0 && r < n && c >= 0 && c < n) || cells[r * n + c] != kEmpty;
      }
      if (rule == Rule::kCaroOverline && len > 5) return true;  // caro-overline: six or more always
      if ((rule == Rule::kCaro || rule == Rule::kCaroOverline) && blocked_ends == 2) continue;  // both ends closed
      if (rule == Rule::kFreestyle ? len >= 5 : len == 5) return true;
    }
    return false;
  }
  std::vector<int> Fives(int8_t c) {
    std::vector<int> out;
    for (int p = 0; p < n * n; ++p)
      if (FiveFor(p, c)) out.push_back(p);
    return out;
  }
  bool HasFive(int8_t c) {
    for (int p = 0; p < n * n; ++p)
      if (FiveFor(p, c)) return true;
    return false;
  }

  // Does `a`, to move, win by continuous fours against every defence?
  bool Wins(int8_t a) {
    const int8_t d = Opponent(a);
    if (HasFive(a)) return true;
    for (int m = 0; m < n * n; ++m) {
      if (cells[m] != kEmpty) continue;
      cells[m] = a;
      bool ok = HasFive(a);  // only fours are allowed
      for (int r = 0; ok && r < n * n; ++r) {
        if (cells[r] != kEmpty) continue;
        if (FiveFor(r, d)) {
          ok = false;  // the defender wins first
          break;
        }
        cells[r] = d;
        ok = Wins(a);
        cells[r] = kEmpty;
      }
      cells[m] = kEmpty;
      if (ok) return true;
    }
    return false;
  }

  // Replays `line` for `a` against every defender reply: each move must be a
  // four (or a five), no reply may make a five for the defender, every reply
  // but the block must leave the attacker a five, and after the last move no
  // reply may stop the five.
  bool LineWins(int8_t a, const std::vector<int>& line) {
    const int8_t d = Opponent(a);
    for (size_t i = 0; i < line.size(); ++i) {
      const int m = line[i];
      const bool last = i + 1 == line.size();
      if (m < 0 || m >= n * n || cells[m] != kEmpty) return false;
      if (FiveFor(m, a)) return last;
      cells[m] = a;
      if (!HasFive(a)) return false;
      int block = -1;
      for (int r = 0; r < n * n; ++r) {
        if (cells[r] != kEmpty) continue;
        if (FiveFor(r, d)) return false;
        cells[r] = d;
        const bool still = HasFive(a);
        cells[r] = kEmpty;
        if (!still) {
          if (block >= 0) return false;  // two replies survive: not forcing
          block = r;
        }
      }
      if (block < 0) return last;
      if (last) return false;
      cells[block] = d;
    }
    return false;
  }
};

Board Stones(int n, Rule rule, const std::vector<std::pair<int, int>>& x, const std::vector<std::pair<int, int>>& o,
             int8_t to_move) {
  std::vector<int8_t> cells(n * n, kEmpty);
  for (auto [r, c] : x) cells[P(n, r, c)] = kBlack;
  for (auto [r, c] : o) cells[P(n, r, c)] = kWhite;
  return Board::FromStones(n, rule, cells, to_move);
}

std::vector<int> FourOracle(VcfOracle o, int8_t c, bool open_only) {
  std::vector<int> out;
  for (int m = 0; m < o.n * o.n; ++m) {
    if (o.cells[m] != kEmpty || o.FiveFor(m, c)) continue;
    o.cells[m] = c;
    const size_t k = o.Fives(c).size();
    o.cells[m] = kEmpty;
    if (k >= (open_only ? 2u : 1u)) out.push_back(m);
  }
  return out;
}

}  // namespace

TEST_CASE("five points, fours and open fours agree with the oracle on random positions, four rules") {
  std::mt19937_64 rng(16);
  int fours_seen = 0, open_seen = 0, positions = 0;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard, Rule::kCaro, Rule::kCaroOverline})
    for (int iter = 0; iter < 150; ++iter) {
      const int n = iter % 3 == 0 ? 15 : 7 + iter % 5;
      Board b = RandomPosition(rng, n, rule, n == 15 ? 170 : 10 + static_cast<int>(rng() % 25));
      if (b.terminal()) continue;
      ++positions;
      for (int8_t c : {kBlack, kWhite}) {
        VcfOracle o = VcfOracle::Of(b);
        INFO(RuleName(rule) << " colour " << int(c) << "\n" << b.ToString());
        REQUIRE(FivePoints(b, c) == o.Fives(c));
        for (int p : o.Fives(c)) REQUIRE(b.MakesFive(p, c));  // the oracle's five is the board's
        if (!o.Fives(c).empty()) continue;                     // fours are defined from no five point
        std::vector<FourMove> fours = FourMoves(b, c);
        std::vector<int> moves;
        for (const FourMove& f : fours) {
          moves.push_back(f.move);
          VcfOracle after = o;
          after.cells[f.move] = c;
          std::vector<int> fives = after.Fives(c);
          REQUIRE(f.num_fives == static_cast<int>(fives.size()));
          REQUIRE(f.first_five == fives.front());
        }
        REQUIRE(moves == FourOracle(o, c, false));
        REQUIRE(OpenFourMoves(b, c) == FourOracle(o, c, true));
        fours_seen += static_cast<int>(fours.size());
        open_seen += static_cast<int>(OpenFourMoves(b, c).size());
      }
    }
  // The sample must exercise what it checks.
  CHECK(positions > 300);
  CHECK(fours_seen > 100);
  CHECK(open_seen > 10);
}

TEST_CASE("VCF agrees with the exhaustive search of fours, and its line wins against every defence") {
  std::mt19937_64 rng(1616);
  ThreatSolver solver;
  int wins = 0, deep_wins = 0, long_wins = 0, no_vcf = 0;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard})
    for (int iter = 0; iter < 1500; ++iter) {
      const int n = 7 + iter % 4;
      Board b = RandomPosition(rng, n, rule, 14 + static_cast<int>(rng() % 14));
      if (b.terminal()) continue;
      for (int8_t a : {kBlack, kWhite}) {
        VcfOracle o = VcfOracle::Of(b);
        // A five point at the root, or two for the defender, is settled in one
        // look; keep few of those so the sample is mostly real searches.
        if ((o.HasFive(a) || o.Fives(Opponent(a)).size() >= 2) && rng() % 8 != 0) continue;
        const bool truth = o.Wins(a);
        VcfResult r = solver.Vcf(b, a, 1'000'000);
        INFO(RuleName(rule) << " attacker " << int(a) << " status " << VcfStatusName(r.status) << "\n" << b.ToString());
        REQUIRE(r.status != VcfStatus::kUnknown);
        REQUIRE(r.proven_win() == truth);
        REQUIRE(r.nodes >= 1);
        if (r.proven_win()) {
          REQUIRE(VcfOracle::Of(b).LineWins(a, r.line));
          ++wins;
          if (r.line.size() >= 2) ++deep_wins;
          if (r.line.size() >= 3) ++long_wins;
        } else {
          REQUIRE(r.line.empty());
          ++no_vcf;
        }
      }
    }
  CHECK(wins > 300);
  CHECK(deep_wins > 40);
  CHECK(long_wins > 15);
  CHECK(no_vcf > 300);
}

TEST_CASE("on 15x15 mid-game positions every proven line wins against every defence") {
  // Too big for the exhaustive search, but a line is cheap to replay.
  std::mt19937_64 rng(15);
  ThreatSolver solver({10});  // small table: collisions and overwrites happen
  int wins = 0, long_wins = 0;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard})
    for (int iter = 0; iter < 150; ++iter) {
      Board b = RandomPosition(rng, 15, rule, 225 - 20 - static_cast<int>(rng() % 40));
      if (b.terminal()) continue;
      for (int8_t a : {kBlack, kWhite}) {
        VcfOracle o = VcfOracle::Of(b);
        if (o.HasFive(a)) continue;
        VcfResult r = solver.Vcf(b, a, 20'000);
        INFO(RuleName(rule) << " attacker " << int(a) << "\n" << b.ToString());
        REQUIRE(r.nodes <= 20'000);
        if (!r.proven_win()) continue;
        REQUIRE(o.LineWins(a, r.line));
        ++wins;
        if (r.line.size() >= 3) ++long_wins;
      }
    }
  CHECK(wins > 100);
  CHECK(long_wins > 10);
}

TEST_CASE("a small budget never gives a wrong answer, only unknown") {
  std::mt19937_64 rng(7);
  int unknown = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const Rule rule = iter % 2 ? Rule::kStandard : Rule::kFreestyle;
    Board b = RandomPosition(rng, 8, rule, 14);
    if (b.terminal()) continue;
    const int8_t a = b.to_move();
    const bool truth = VcfOracle::Of(b).Wins(a);
    for (int64_t budget : {1, 2, 3, 5, 8}) {
      ThreatSolver fresh;  // no table: every answer comes from this budget alone
      VcfResult r = fresh.Vcf(b, a, budget);
      INFO("budget " << budget << "\n" << b.ToString());
      REQUIRE(r.nodes <= budget);
      if (r.status == VcfStatus::kUnknown) {
        ++unknown;
        REQUIRE(r.line.empty());
      } else {
        REQUIRE(r.proven_win() == truth);
        if (truth) REQUIRE(VcfOracle::Of(b).LineWins(a, r.line));
      }
    }
  }
  CHECK(unknown > 20);
}

TEST_CASE("the table carries over: repeated and follow-on queries stay correct") {
  // Four-three (see below): solve, solve again, then solve the position after
  // the first move and its forced reply; every line must still replay.
  const int n = 11;
  Board b = Stones(n, Rule::kFreestyle, {{5, 3}, {5, 4}, {5, 5}, {6, 6}, {7, 6}}, {{5, 2}, {0, 0}, {0, 10}, {10, 0}},
                   kBlack);
  ThreatSolver solver({8});
  VcfResult first = solver.Vcf(b, kBlack, 10'000);
  REQUIRE(first.proven_win());
  VcfResult again = solver.Vcf(b, kBlack, 10'000);
  REQUIRE(again.proven_win());
  REQUIRE(VcfOracle::Of(b).LineWins(kBlack, again.line));
  Board child = b;
  child.Play(first.line[0]);
  REQUIRE(FivePoints(child, kBlack).size() == 1);
  child.Play(FivePoints(child, kBlack).front());  // white's forced block
  VcfResult next = solver.Vcf(child, kBlack, 10'000);
  REQUIRE(next.proven_win());
  REQUIRE(VcfOracle::Of(child).LineWins(kBlack, next.line));
  solver.ClearTable();
  REQUIRE(solver.Vcf(b, kBlack, 10'000).proven_win());
  // The same stones for the other colour are a different question.
  REQUIRE_FALSE(solver.Vcf(b, kWhite, 10'000).proven_win());
}

// --- hand-built suites --------------------------------------------------------

TEST_CASE("caro-overline: an overline point is a five point; the solvers and tactics take it and block it") {
  const int n = 9;
  // Row 4: X X X . X X with white beyond both ends: (4,4) makes six, blocked or not.
  const std::vector<std::pair<int, int>> x = {{4, 1}, {4, 2}, {4, 3}, {4, 5}, {4, 6}};
  const std::vector<std::pair<int, int>> o = {{4, 0}, {4, 7}, {8, 8}, {0, 8}, {8, 0}};
  ThreatSolver s;
  VctSolver vct;
  for (Rule rule : {Rule::kCaro, Rule::kCaroOverline}) {
    INFO(RuleName(rule));
    const bool wins = rule == Rule::kCaroOverline;
    const Board b = Stones(n, rule, x, o, kBlack);
    CHECK(FivePoints(b, kBlack) == (wins ? std::vector<int>{P(n, 4, 4)} : std::vector<int>{}));
    CHECK(FivePoints(b, kBlack) == VcfOracle::Of(b).Fives(kBlack));
    CHECK(FindWinningMove(b) == (wins ? P(n, 4, 4) : kNoMove));
    const VcfResult r = s.Vcf(b, kBlack, 100);
    CHECK(r.proven_win() == wins);
    if (wins) CHECK(r.line == std::vector<int>{P(n, 4, 4)});
    CHECK(vct.Vct(b, kBlack, 100).proven_win() == wins);
    // White to move must block the six under caro-overline; under caro it is no threat.
    const Board w = Stones(n, rule, x, o, kWhite);
    CHECK(FindForcedBlock(w) == (wins ? P(n, 4, 4) : kNoMove));
    CHECK(FivePoints(w, kBlack) == FivePoints(b, kBlack));
    // The solvers still prove nothing beyond a five in one under either caro rule.
    CHECK(s.Vcf(w, kWhite, 1000).status == VcfStatus::kUnknown);
  }
}

TEST_CASE("renju: no VCF or VCT the draw at 25 empty points cuts short") {
  // Black's three X X X on row 3 of a 7x7 board: its open four wins (VCF and
  // VCT) with room, but not when the draw at 25 empty points comes first.
  const int n = 7;
  ThreatSolver s;
  VctSolver vct;
  const Board roomy = Stones(n, Rule::kRenju, {{3, 2}, {3, 3}, {3, 4}}, {{0, 0}, {6, 6}, {0, 6}}, kBlack);
  REQUIRE(roomy.moves_before_draw() == 18);  // 43 empty points
  CHECK(s.Vcf(roomy, kBlack, 1000).proven_win());
  CHECK(vct.Vct(roomy, kBlack, 1000).proven_win());
  // The same three with rows 0 and 6 and six points of row 1 filled by a
  // pattern without lines (X X O O ...): 23 stones, 26 empty points, one
  // move before the draw -- black's four would be the last.
  std::vector<int8_t> cells(n * n, kEmpty);
  for (int r : {0, 1, 6})
    for (int c = 0; c < (r == 1 ? 6 : n); ++c) cells[P(n, r, c)] = ((c + 2 * r) % 4) < 2 ? kBlack : kWhite;
  for (int c : {2, 3, 4}) cells[P(n, 3, c)] = kBlack;
  for (Rule rule : {Rule::kRenju, Rule::kFreestyle}) {
    INFO(RuleName(rule));
    const Board tight = Board::FromStones(n, rule, cells, kBlack);
    REQUIRE_FALSE(tight.terminal());
    REQUIRE(tight.moves_before_draw() == (rule == Rule::kRenju ? 1 : 26));
    CHECK(s.Vcf(tight, kBlack, 1000).proven_win() == (rule == Rule::kFreestyle));
    CHECK(vct.Vct(tight, kBlack, 1000).proven_win() == (rule == Rule::kFreestyle));
  }
}

TEST_CASE("caro: a five blocked at both ends is no five point; the solvers prove only fives") {
  const int n = 9;
  // O X X X X . O on row 4: a five point under standard, none under caro.
  for (Rule rule : {Rule::kStandard, Rule::kCaro}) {
    Board b = Stones(n, rule, {{4, 1}, {4, 2}, {4, 3}, {4, 4}}, {{4, 0}, {4, 6}, {8, 8}, {0, 8}}, kBlack);
    INFO(RuleName(rule));
    CHECK(FivePoints(b, kBlack).size() == (rule == Rule::kCaro ? 0u : 1u));
    CHECK(FivePoints(b, kBlack) == VcfOracle::Of(b).Fives(kBlack));
  }
  // An open three: a VCF in one move under standard; under caro the search
  // would assume the five point is the only defence, so it proves nothing.
  Board open = Stones(n, Rule::kCaro, {{4, 3}, {4, 4}, {4, 5}}, {{0, 0}, {8, 8}, {0, 8}}, kBlack);
  ThreatSolver s;
  VctSolver vct;
  CHECK(s.Vcf(open, kBlack, 1000).status == VcfStatus::kUnknown);
  CHECK(vct.Vct(open, kBlack, 1000).status == VctStatus::kUnknown);
  CHECK(s.Vcf(open, kWhite, 1000).status == VcfStatus::kUnknown);
  // A five point is still a proven win in one.
  Board five = Stones(n, Rule::kCaro, {{4, 2}, {4, 3}, {4, 4}, {4, 5}}, {{4, 1}, {8, 8}, {0, 8}, {8, 0}}, kBlack);
  VcfResult r = s.Vcf(five, kBlack, 100);
  REQUIRE(r.proven_win());
  CHECK(r.line == std::vector<int>{P(n, 4, 6)});
  CHECK(vct.Vct(five, kBlack, 100).line == std::vector<int>{P(n, 4, 6)});
}

TEST_CASE("open three: both extensions are open fours, VCF in one move") {
  const int n = 9;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    Board b = Stones(n, rule, {{4, 3}, {4, 4}, {4, 5}}, {{0, 0}, {8, 8}, {0, 8}}, kBlack);
    REQUIRE(FivePoints(b, kBlack).empty());
    REQUIRE(OpenFourMoves(b, kBlack) == std::vector<int>{P(n, 4, 2), P(n, 4, 6)});
    // X X X X . from the far side: (4,1) and (4,7) make broken fours with one five point.
    std::vector<FourMove> fours = FourMoves(b, kBlack);
    REQUIRE(fours.size() == 4);
    CHECK(fours[0].move == P(n, 4, 1));
    CHECK(fours[0].num_fives == 1);
    CHECK(fours[0].first_five == P(n, 4, 2));
    ThreatSolver s;
    VcfResult r = s.Vcf(b, kBlack, 100);
    REQUIRE(r.proven_win());
    REQUIRE(r.line.size() == 1);
    CHECK(VcfOracle::Of(b).LineWins(kBlack, r.line));
    // An open four already on the board is two five points: a win in one.
    b = Stones(n, rule, {{4, 2}, {4, 3}, {4, 4}, {4, 5}}, {{0, 0}, {8, 8}, {0, 8}, {8, 0}}, kBlack);
    REQUIRE(FivePoints(b, kBlack) == std::vector<int>{P(n, 4, 1), P(n, 4, 6)});
    r = s.Vcf(b, kBlack, 100);
    REQUIRE(r.proven_win());
    CHECK(r.line == std::vector<int>{P(n, 4, 1)});
    // ... and for the defender to move, with two five points against it, no VCF exists.
    CHECK(s.Vcf(b, kWhite, 100).status == VcfStatus::kNoVcf);
  }
}

TEST_CASE("broken fours X_XXX and XX_XX: the gap is the five point") {
  const int n = 9;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    Board b1 = Stones(n, rule, {{2, 1}, {2, 3}, {2, 4}, {2, 5}}, {{2, 0}, {8, 8}, {7, 7}, {0, 8}}, kWhite);
    CHECK(FivePoints(b1, kBlack) == std::vector<int>{P(n, 2, 2)});
    Board b2 = Stones(n, rule, {{3, 3}, {4, 4}, {6, 6}, {7, 7}}, {{0, 8}, {8, 0}, {1, 7}, {7, 1}}, kWhite);
    CHECK(FivePoints(b2, kBlack) == std::vector<int>{P(n, 5, 5)});
    // White to move must block it: the only must-block point.
    CHECK(FivePoints(b2, kBlack).size() == 1);
    ThreatSolver s;
    VcfResult r = s.Vcf(b2, kBlack, 10);  // black as the attacker (null-move view)
    REQUIRE(r.proven_win());
    CHECK(r.line == std::vector<int>{P(n, 5, 5)});
    // Making the broken four: . X . X X . -> the gap move is an open four (two five points).
    Board b3 = Stones(n, rule, {{6, 2}, {6, 4}, {6, 5}}, {{0, 0}, {0, 8}, {8, 8}}, kBlack);
    std::vector<FourMove> fours = FourMoves(b3, kBlack);
    auto gap = std::find_if(fours.begin(), fours.end(), [&](const FourMove& f) { return f.move == P(n, 6, 3); });
    REQUIRE(gap != fours.end());
    CHECK(gap->num_fives == 2);
    auto broken = std::find_if(fours.begin(), fours.end(), [&](const FourMove& f) { return f.move == P(n, 6, 6); });
    REQUIRE(broken != fours.end());  // X . X X X: one five point, the gap
    CHECK(broken->num_fives == 1);
    CHECK(broken->first_five == P(n, 6, 3));
  }
}

TEST_CASE("overline: a five under freestyle, nothing under standard") {
  const int n = 9;
  // X X X . X X on row 0: the gap makes six.
  std::vector<std::pair<int, int>> x = {{0, 0}, {0, 1}, {0, 2}, {0, 4}, {0, 5}};
  std::vector<std::pair<int, int>> o = {{8, 8}, {8, 6}, {6, 8}, {8, 4}, {4, 8}};
  Board fs = Stones(n, Rule::kFreestyle, x, o, kBlack);
  Board st = Stones(n, Rule::kStandard, x, o, kBlack);
  CHECK(FivePoints(fs, kBlack) == std::vector<int>{P(n, 0, 3)});
  CHECK(FivePoints(st, kBlack).empty());
  ThreatSolver s;
  CHECK(s.Vcf(fs, kBlack, 100).proven_win());
  CHECK(s.Vcf(st, kBlack, 100).status == VcfStatus::kNoVcf);
  CHECK(VcfOracle::Of(st).Wins(kBlack) == false);

  // X X . X . X from the edge: filling either gap leaves one completion, and it is an overline.
  x = {{2, 0}, {2, 1}, {2, 3}, {2, 5}};
  fs = Stones(n, Rule::kFreestyle, x, o, kBlack);
  st = Stones(n, Rule::kStandard, x, o, kBlack);
  std::vector<int> fs_fours;
  for (const FourMove& f : FourMoves(fs, kBlack)) fs_fours.push_back(f.move);
  CHECK(fs_fours == std::vector<int>{P(n, 2, 2), P(n, 2, 4)});
  CHECK(FourMoves(st, kBlack).empty());
  // ... whereas X X X X . stays a five point under standard.
  st = Stones(n, Rule::kStandard, {{5, 0}, {5, 1}, {5, 2}, {5, 3}}, o, kWhite);
  CHECK(FivePoints(st, kBlack) == std::vector<int>{P(n, 5, 4)});
  // and X X X X . X under standard: the point between makes six, not five.
  st = Stones(n, Rule::kStandard, {{5, 0}, {5, 1}, {5, 2}, {5, 3}, {5, 5}}, o, kWhite);
  CHECK(FivePoints(st, kBlack).empty());
}

namespace {
// Black's four-three on 11x11: O X X X . . on row 5 and X X on column 6 below
// (5,6).  (5,6) is a four (five point (5,7)) and an open three; after the
// block, (4,6) or (8,6) is an open four.
std::vector<std::pair<int, int>> FourThreeX() { return {{5, 3}, {5, 4}, {5, 5}, {6, 6}, {7, 6}}; }
std::vector<std::pair<int, int>> FourThreeO() { return {{5, 2}, {0, 0}, {0, 10}, {10, 0}, {10, 10}}; }
}  // namespace

TEST_CASE("four-three is a VCF of two moves; four-two is none") {
  const int n = 11;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    Board b = Stones(n, rule, FourThreeX(), FourThreeO(), kBlack);
    REQUIRE(OpenFourMoves(b, kBlack).empty());  // nothing wins in one
    ThreatSolver s;
    VcfResult r = s.Vcf(b, kBlack, 10'000);
    REQUIRE(r.proven_win());
    CHECK(r.line.size() == 2);
    CHECK(r.line[0] == P(n, 5, 6));
    CHECK(VcfOracle::Of(b).LineWins(kBlack, r.line));
    CHECK(VcfOracle::Of(b).Wins(kBlack));

    // Without (7,6) the column is only a two: no VCF.
    auto x = FourThreeX();
    x.pop_back();
    Board b2 = Stones(n, rule, x, FourThreeO(), kBlack);
    VcfResult r2 = s.Vcf(b2, kBlack, 10'000);
    CHECK(r2.status == VcfStatus::kNoVcf);
    CHECK_FALSE(VcfOracle::Of(b2).Wins(kBlack));
  }
}

TEST_CASE("a block that makes the defender's own four must be answered") {
  const int n = 11;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    // White's column 7 (6,7),(7,7),(8,7), capped by X at (9,7): white's block
    // at (5,7) makes a four whose five point (4,7) black must take, and (4,7)
    // is no four for black -- the four-three is refuted.
    auto x = FourThreeX();
    x.push_back({9, 7});
    auto o = FourThreeO();
    for (int r : {6, 7, 8}) o.push_back({r, 7});
    Board refuted = Stones(n, rule, x, o, kBlack);
    ThreatSolver s;
    CHECK(s.Vcf(refuted, kBlack, 100'000).status == VcfStatus::kNoVcf);
    CHECK_FALSE(VcfOracle::Of(refuted).Wins(kBlack));

    // Now (2,9),(3,8) for black: taking (4,7) also makes an open four on the
    // anti-diagonal through (5,6), so the forced answer wins.
    x.push_back({2, 9});
    x.push_back({3, 8});
    Board answered = Stones(n, rule, x, o, kBlack);
    VcfResult r = s.Vcf(answered, kBlack, 100'000);
    REQUIRE(r.proven_win());
    CHECK(VcfOracle::Of(answered).Wins(kBlack));
    CHECK(VcfOracle::Of(answered).LineWins(kBlack, r.line));
    CHECK(r.line == std::vector<int>{P(n, 5, 6), P(n, 4, 7)});
  }
}

TEST_CASE("a defender's five point at the root forces the attacker's first move") {
  const int n = 11;
  // Black has the four-three, but white already has . O O O O . on row 9.
  auto o = FourThreeO();
  for (int c : {1, 2, 3, 4}) o.push_back({9, c});
  Board b = Stones(n, Rule::kFreestyle, FourThreeX(), o, kBlack);
  REQUIRE(FivePoints(b, kWhite) == std::vector<int>{P(n, 9, 0), P(n, 9, 5)});
  ThreatSolver s;
  CHECK(s.Vcf(b, kBlack, 10'000).status == VcfStatus::kNoVcf);  // two to block
  // With X on (9,0) one five point is left, (9,5), and it is no four for black.
  std::vector<std::pair<int, int>> x = FourThreeX();
  x.push_back({9, 0});
  b = Stones(n, Rule::kFreestyle, x, o, kBlack);
  REQUIRE(FivePoints(b, kWhite) == std::vector<int>{P(n, 9, 5)});
  CHECK(s.Vcf(b, kBlack, 10'000).status == VcfStatus::kNoVcf);
  CHECK_FALSE(VcfOracle::Of(b).Wins(kBlack));
  // White to move: wins at once.
  VcfResult w = s.Vcf(b, kWhite, 10);
  REQUIRE(w.proven_win());
  CHECK(w.line == std::vector<int>{P(n, 9, 5)});
}

TEST_CASE("no VCF on quiet positions; bad arguments throw") {
  ThreatSolver s;
  Board empty(15);
  VcfResult r = s.Vcf(empty, kBlack, 1000);
  CHECK(r.status == VcfStatus::kNoVcf);
  CHECK(FourMoves(empty, kBlack).empty());
  CHECK(FivePoints(empty, kWhite).empty());
  CHECK_THROWS_AS(s.Vcf(empty, 0, 10), GomokuError);
  CHECK_THROWS_AS(s.Vcf(empty, kBlack, 0), GomokuError);
  CHECK_THROWS_AS(FivePoints(empty, 3), GomokuError);
  CHECK_THROWS_AS(ThreatSolver(ThreatSolverOptions{40}), ConfigError);
  // A finished game has nothing left to prove.
  Board done(9);
  for (int c = 0; c < 4; ++c) {
    done.Play(P(9, 0, c));
    done.Play(P(9, 8, c));
  }
  done.Play(P(9, 0, 4));
  REQUIRE(done.terminal());
  CHECK(s.Vcf(done, kWhite, 10).status == VcfStatus::kNoVcf);
  CHECK(FivePoints(done, kWhite).empty());
}

// --- renju: the solver respects black's forbidden points.
TEST_CASE("renju: overline is no five for black but a five for white") {
  const int n = 9;
  // X X X . X X on row 0 and O O O . O O on row 8: the gaps make six.
  std::vector<std::pair<int, int>> x = {{0, 0}, {0, 1}, {0, 2}, {0, 4}, {0, 5}};
  std::vector<std::pair<int, int>> o = {{8, 0}, {8, 1}, {8, 2}, {8, 4}, {8, 5}};
  Board rj = Stones(n, Rule::kRenju, x, o, kBlack);
  CHECK(FivePoints(rj, kBlack).empty());
  CHECK(FivePoints(rj, kWhite) == std::vector<int>{P(n, 8, 3)});
  ThreatSolver s;
  CHECK(s.Vcf(rj, kBlack, 100).status == VcfStatus::kNoVcf);  // black must block (8,3), then nothing
  const VcfResult w = s.Vcf(Stones(n, Rule::kRenju, x, o, kWhite), kWhite, 100);
  CHECK(w.proven_win());
  CHECK(w.line == std::vector<int>{P(n, 8, 3)});
}

TEST_CASE("renju: a black four on a forbidden point is no four, and no VCF goes through it") {
  const int n = 11;
  // Row 6: O X X X p . and column 6: O X X X p . with p = (6,6): black at p
  // makes two fours at once, a double four: forbidden under renju.
  const std::vector<std::pair<int, int>> x = {{6, 3}, {6, 4}, {6, 5}, {3, 6}, {4, 6}, {5, 6}};
  const std::vector<std::pair<int, int>> o = {{6, 2}, {2, 6}, {0, 0}, {0, 10}, {10, 0}, {10, 10}};
  const int p = P(n, 6, 6);
  Board rj = Stones(n, Rule::kRenju, x, o, kBlack);
  Board st = Stones(n, Rule::kStandard, x, o, kBlack);
  REQUIRE_FALSE(rj.IsLegal(p));
  REQUIRE(st.IsLegal(p));
  auto moves_of = [](const std::vector<FourMove>& fours) {
    std::vector<int> v;
    for (const FourMove& f : fours) v.push_back(f.move);
    return v;
  };
  const std::vector<int> st_fours = moves_of(FourMoves(st, kBlack));
  const std::vector<int> rj_fours = moves_of(FourMoves(rj, kBlack));
  CHECK(std::find(st_fours.begin(), st_fours.end(), p) != st_fours.end());
  CHECK(std::find(rj_fours.begin(), rj_fours.end(), p) == rj_fours.end());
  CHECK(OpenFourMoves(st, kBlack) == std::vector<int>{p});
  CHECK(OpenFourMoves(rj, kBlack).empty());
  // Every renju four of black is a legal move, and the other fours are the same under both rules.
  for (int m : rj_fours) CHECK(rj.IsLegal(m));
  std::vector<int> st_without_p;
  for (int m : st_fours)
    if (m != p) st_without_p.push_back(m);
  CHECK(rj_fours == st_without_p);
  ThreatSolver s;
  const VcfResult win = s.Vcf(st, kBlack, 10000);
  CHECK(win.proven_win());
  CHECK(win.line == std::vector<int>{p});
  CHECK(s.Vcf(rj, kBlack, 10000).status == VcfStatus::kNoVcf);
  // The same stones under freestyle: p is legal there too.
  CHECK(s.Vcf(Stones(n, Rule::kFreestyle, x, o, kBlack), kBlack, 10000).proven_win());
}

TEST_CASE("renju: a white four whose block is forbidden for black wins at once") {
  const int n = 11;
  // Black X X X . X X on row 3 (the gap q = (3,5) is an overline point for
  // black); white O O O on column 5 below q, with the far end blocked, so
  // white at (7,5) makes a four whose only five point is q.  Black at (2,5)
  // keeps white's q from being an open four.
  const std::vector<std::pair<int, int>> x = {{3, 2}, {3, 3}, {3, 4}, {3, 6}, {3, 7}, {8, 5}, {2, 5}};
  const std::vector<std::pair<int, int>> o = {{4, 5}, {5, 5}, {6, 5}, {0, 0}, {0, 10}, {10, 0}};
  const int q = P(n, 3, 5), m = P(n, 7, 5);
  Board rj = Stones(n, Rule::kRenju, x, o, kWhite);
  Board st = Stones(n, Rule::kStandard, x, o, kWhite);
  REQUIRE(FivePoints(rj, kWhite).empty());
  REQUIRE(FivePoints(rj, kBlack).empty());
  ThreatSolver s;
  const VcfResult w = s.Vcf(rj, kWhite, 10000);
  REQUIRE(w.proven_win());
  CHECK(w.line == std::vector<int>{m});
  Board after = rj;
  after.Play(m);
  CHECK(FivePoints(after, kWhite) == std::vector<int>{q});
  CHECK_FALSE(after.IsLegal(q));  // black cannot block
  // Under standard the block is legal (black's six there is no win, but it blocks): no VCF.
  CHECK(s.Vcf(st, kWhite, 10000).status == VcfStatus::kNoVcf);
  // And black, forced to block a white five on a forbidden point, has no VCF.
  Board forced = Stones(n, Rule::kRenju, x, {{4, 5}, {5, 5}, {6, 5}, {7, 5}, {0, 0}, {0, 10}, {10, 0}}, kBlack);
  CHECK(s.Vcf(forced, kBlack, 10000).status == VcfStatus::kNoVcf);
}

TEST_CASE("blocked points are walls for the threat solver") {
  const int n = 9;
  std::vector<int8_t> cells(n * n, kEmpty);
  // X X X X # on row 4: no five point at the blocked end; the other end (4,0) stays one.
  for (int c = 1; c <= 4; ++c) cells[P(n, 4, c)] = kBlack;
  cells[P(n, 4, 5)] = kBlocked;
  for (int c : {0, 2, 4, 6}) cells[P(n, 0, c)] = kWhite;
  for (Rule rule : {Rule::kFreestyle, Rule::kRenju}) {
    Board b = Board::FromStones(n, rule, cells, kBlack);
    CHECK(FivePoints(b, kBlack) == std::vector<int>{P(n, 4, 0)});
    cells[P(n, 4, 0)] = kBlocked;
    Board dead = Board::FromStones(n, rule, cells, kBlack);
    cells[P(n, 4, 0)] = kEmpty;
    CHECK(FivePoints(dead, kBlack).empty());
    CHECK(FourMoves(dead, kBlack).empty());
    ThreatSolver s;
    CHECK(s.Vcf(dead, kBlack, 1000).status == VcfStatus::kNoVcf);
    CHECK(s.Vcf(b, kBlack, 1000).proven_win());
  }
}
