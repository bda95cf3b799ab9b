#include <catch2/catch.hpp>

#include <random>

#include "common/game/board.h"
#include "common/base/errors.h"

using namespace gz;

namespace {
int P(int n, int r, int c) { return r * n + c; }
// Plays black at `blacks` and white at `whites` alternately (black first).
Board Setup(int n, Rule rule, const std::vector<int>& blacks, const std::vector<int>& whites) {
  Board b(n, rule);
  for (size_t i = 0; i < std::max(blacks.size(), whites.size()); ++i) {
    if (i < blacks.size()) b.Play(blacks[i]);
    if (i < whites.size()) b.Play(whites[i]);
  }
  return b;
}
}  // namespace

TEST_CASE("five in a row wins in all four directions, including at edges") {
  const int n = 9;
  struct Line { int r, c, dr, dc; };
  std::vector<Line> lines = {{0, 0, 0, 1}, {8, 4, 0, 1}, {0, 8, 1, 0}, {4, 0, 1, 0},
                             {0, 0, 1, 1}, {4, 4, 1, 1}, {0, 8, 1, -1}, {4, 4, 1, -1}};
  for (auto l : lines) {
    std::vector<int> blacks, whites;
    for (int k = 0; k < 5; ++k) blacks.push_back(P(n, l.r + k * l.dr, l.c + k * l.dc));
    // White plays somewhere harmless, away from the line.
    std::vector<int> pool;
    for (int p = 0; p < n * n; ++p)
      if (std::find(blacks.begin(), blacks.end(), p) == blacks.end()) pool.push_back(p);
    // pick white stones that can never make a line: spread out
    whites = {pool[pool.size() - 1], pool[pool.size() - 12], pool[pool.size() - 23], pool[pool.size() - 34]};
    Board b(n);
    for (int k = 0; k < 4; ++k) {
      b.Play(blacks[k]);
      REQUIRE_FALSE(b.terminal());
      b.Play(whites[k]);
      REQUIRE_FALSE(b.terminal());
    }
    b.Play(blacks[4]);
    INFO("line at " << l.r << "," << l.c << " dir " << l.dr << "," << l.dc);
    CHECK(b.outcome() == Outcome::kBlackWins);
  }
}

TEST_CASE("four in a row does not win; a gap breaks the line") {
  Board b = Setup(9, Rule::kFreestyle, {P(9, 0, 0), P(9, 0, 1), P(9, 0, 2), P(9, 0, 3)},
                  {P(9, 5, 0), P(9, 5, 2), P(9, 5, 4), P(9, 7, 7)});
  CHECK_FALSE(b.terminal());
  b.Play(P(9, 0, 5));  // gap at (0,4)
  CHECK_FALSE(b.terminal());
}

TEST_CASE("white wins too") {
  Board b = Setup(9, Rule::kFreestyle, {P(9, 0, 0), P(9, 0, 2), P(9, 0, 4), P(9, 0, 6), P(9, 8, 8)},
                  {P(9, 2, 0), P(9, 2, 1), P(9, 2, 2), P(9, 2, 3)});
  CHECK_FALSE(b.terminal());
  b.Play(P(9, 2, 4));
  CHECK(b.outcome() == Outcome::kWhiteWins);
}

TEST_CASE("overline: wins under freestyle, not under standard") {
  // Black: (0,0..2) and (0,4..5); filling (0,3) makes six.
  std::vector<int> blacks = {P(9, 0, 0), P(9, 0, 1), P(9, 0, 2), P(9, 0, 4), P(9, 0, 5)};
  std::vector<int> whites = {P(9, 4, 0), P(9, 4, 2), P(9, 4, 4), P(9, 4, 6), P(9, 6, 8)};
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    Board b = Setup(9, rule, blacks, whites);
    REQUIRE_FALSE(b.terminal());
    b.Play(P(9, 0, 3));
    if (rule == Rule::kFreestyle) CHECK(b.outcome() == Outcome::kBlackWins);
    else CHECK_FALSE(b.terminal());
  }
  // Exactly five still wins under standard.
  Board s = Setup(9, Rule::kStandard, {P(9, 1, 0), P(9, 1, 1), P(9, 1, 2), P(9, 1, 3)},
                  {P(9, 4, 0), P(9, 4, 2), P(9, 4, 4), P(9, 4, 6)});
  s.Play(P(9, 1, 4));
  CHECK(s.outcome() == Outcome::kBlackWins);
}

TEST_CASE("full board without five is a draw") {
  // 5x5 pattern with no five: rows alternate by pairs of columns.
  const int n = 5;
  // colour(r,c) = ((c + 2*r) / 2) % 2 style pattern without 5 in a row
  std::vector<int8_t> cells(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) cells[r * n + c] = ((c / 2 + r) % 2) ? kWhite : kBlack;
  // Check the pattern itself has no five, then play it out stone by stone.
  std::vector<int> bl, wh;
  for (int p = 0; p < n * n; ++p) (cells[p] == kBlack ? bl : wh).push_back(p);
  REQUIRE(bl.size() == 13);
  REQUIRE(wh.size() == 12);
  Board b(n);
  for (size_t i = 0; i < bl.size(); ++i) {
    REQUIRE_FALSE(b.terminal());
    b.Play(bl[i]);
    if (i < wh.size()) {
      REQUIRE_FALSE(b.terminal());
      b.Play(wh[i]);
    }
  }
  CHECK(b.outcome() == Outcome::kDraw);
  CHECK(b.LegalMoves().empty());
}

TEST_CASE("illegal moves throw RulesError and leave the board unchanged") {
  Board b(9);
  b.Play(40);
  CHECK_THROWS_AS(b.Play(40), RulesError);
  CHECK_THROWS_AS(b.Play(-1), RulesError);
  CHECK_THROWS_AS(b.Play(81), RulesError);
  CHECK(b.move_count() == 1);
  CHECK(b.to_move() == kWhite);
  CHECK_FALSE(b.IsLegal(40));
  CHECK(b.IsLegal(41));
}

TEST_CASE("no moves after the game ends") {
  Board b = Setup(9, Rule::kFreestyle, {0, 1, 2, 3, 4}, {9, 10, 11, 12});
  REQUIRE(b.terminal());
  CHECK_THROWS_AS(b.Play(50), RulesError);
  CHECK(b.LegalMoves().empty());
}

TEST_CASE("board size bounds") {
  CHECK_THROWS_AS(Board(4), ConfigError);
  CHECK_THROWS_AS(Board(23), ConfigError);
  CHECK_NOTHROW(Board(5));
  CHECK_NOTHROW(Board(19));
}

TEST_CASE("FromStones and Remove recompute the outcome") {
  Board b = Setup(9, Rule::kFreestyle, {0, 1, 2, 3}, {9, 10, 11, 12});
  Board c = Board::FromStones(9, Rule::kFreestyle, b.cells(), kBlack);
  CHECK_FALSE(c.terminal());
  CHECK(c.move_count() == 8);
  c.Play(4);
  CHECK(c.outcome() == Outcome::kBlackWins);
  c.Remove(4);
  CHECK_FALSE(c.terminal());
  CHECK(c.to_move() == kBlack);
  CHECK_THROWS_AS(c.Remove(4), RulesError);
  std::vector<int8_t> bad(81, 0);
  bad[3] = 7;
  CHECK_THROWS_AS(Board::FromStones(9, Rule::kFreestyle, bad, kBlack), RulesError);
}

TEST_CASE("position hash distinguishes side to move and last move") {
  Board b(9);
  b.Play(40);
  Position p = b.ToPosition();
  Position q = p;
  q.to_move = kBlack;
  Position r = p;
  r.last_move = kNoMove;
  CHECK(p.Hash() != q.Hash());
  CHECK(p.Hash() != r.Hash());
  CHECK(p.Hash() == b.ToPosition().Hash());
}

namespace {
// An independent oracle for the rules: scans the whole board for maximal runs
// in the four directions (no incremental bookkeeping, nothing shared with
// Board).  Freestyle: a run of five or more wins; standard: exactly five.
bool OracleWins(const std::vector<int8_t>& cells, int n, Rule rule, int8_t colour) {
  const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (const auto& d : dirs) {
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        if (cells[r * n + c] != colour) continue;
        const int pr = r - d[0], pc = c - d[1];  // only start at the first stone of a run
        if (pr >= 0 && pr < n && pc >= 0 && pc < n && cells[pr * n + pc] == colour) continue;
        int len = 0;
        for (int rr = r, cc = c; rr >= 0 && rr < n && cc >= 0 && cc < n && cells[rr * n + cc] == colour;
             rr += d[0], cc += d[1])
          ++len;
        if (rule == Rule::kFreestyle ? len >= 5 : len == 5) return true;
      }
    }
  }
  return false;
}
}  // namespace

TEST_CASE("differential: Board agrees with a whole-board oracle over random games, both rules") {
  // Moves lean towards the mover's own stones so that lines, gaps and
  // overlines are common.  Every move: outcome and terminal; every few moves:
  // MakesFive for both colours at a random empty point.
  std::mt19937 rng(20261130);
  int games = 0, wins = 0, draws = 0, overlines = 0, disagreements = 0, makes_five_checked = 0, makes_five_true = 0;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    for (int g = 0; g < 1500; ++g) {
      const int n = 5 + static_cast<int>(rng() % 11);  // 5..15
      Board b(n, rule);
      std::vector<int8_t> cells(n * n, kEmpty);
      while (!b.terminal()) {
        std::vector<int> legal = b.LegalMoves();
        int move = legal[rng() % legal.size()];
        if (rng() % 10 < 7) {  // next to one of the mover's stones, if one has an empty neighbour
          std::vector<int> near;
          for (int p = 0; p < n * n; ++p) {
            if (cells[p] != b.to_move()) continue;
            for (int dr = -1; dr <= 1; ++dr)
              for (int dc = -1; dc <= 1; ++dc) {
                const int r = p / n + dr, c = p % n + dc;
                if (r >= 0 && r < n && c >= 0 && c < n && cells[r * n + c] == kEmpty) near.push_back(r * n + c);
              }
          }
          if (!near.empty()) move = near[rng() % near.size()];
        }
        if (rng() % 4 == 0) {
          const int probe = legal[rng() % legal.size()];
          for (int8_t colour : {kBlack, kWhite}) {
            std::vector<int8_t> with = cells;
            with[probe] = colour;
            const bool want = OracleWins(with, n, rule, colour);
            if (b.MakesFive(probe, colour) != want) ++disagreements;
            ++makes_five_checked;
            makes_five_true += want;
          }
        }
        const int8_t mover = b.to_move();
        b.Play(move);
        cells[move] = mover;
        Outcome want = Outcome::kOngoing;
        if (OracleWins(cells, n, rule, mover)) want = mover == kBlack ? Outcome::kBlackWins : Outcome::kWhiteWins;
        else if (b.move_count() == n * n) want = Outcome::kDraw;
        if (b.outcome() != want || b.terminal() != (want != Outcome::kOngoing)) {
          ++disagreements;
          INFO(b.ToString());
          CHECK(b.outcome() == want);
          break;
        }
        if (rule == Rule::kStandard && want == Outcome::kOngoing && OracleWins(cells, n, Rule::kFreestyle, mover))
          ++overlines;  // six or more, no five: play goes on under standard
        // The opponent never holds a winning line: the game would have ended.
        if (OracleWins(cells, n, rule, Opponent(mover))) ++disagreements;
      }
      ++games;
      wins += b.outcome() == Outcome::kBlackWins || b.outcome() == Outcome::kWhiteWins;
      draws += b.outcome() == Outcome::kDraw;
    }
  }
  INFO(games << " games, " << wins << " wins, " << draws << " draws, " << overlines << " standard overlines, "
             << makes_five_checked << " MakesFive probes ("
             << makes_five_true << " true)");
  CHECK(disagreements == 0);
  // The sample must exercise both endings and both MakesFive answers.
  CHECK(wins > 100);
  CHECK(draws > 5);
  CHECK(makes_five_true > 50);
  CHECK(overlines > 10);
}
