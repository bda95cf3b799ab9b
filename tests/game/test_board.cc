#include <catch2/catch.hpp>

#include <random>

#include "common/game/board.h"
#include "common/base/errors.h"
#include "common/game/renju.h"
#include "tests/game/game_test_util.h"

using namespace gz;
using gz::testing::P;

namespace {
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
// Board).  Freestyle: a run of five or more wins; standard: exactly five;
// renju: exactly five for black, five or more for white; caro: exactly five
// unless the cells before its first and after its last stone are both closed
// (off the board or the opponent's stone: the Gomocup manager's referee);
// caro-overline: the same, or six or more.  *blocked counts caro fives
// refused that way.
bool OracleWins(const std::vector<int8_t>& cells, int n, Rule rule, int8_t colour, int* blocked = nullptr) {
  const bool exact = rule == Rule::kStandard || rule == Rule::kCaro || (rule == Rule::kRenju && colour == kBlack);
  auto closed = [&](int r, int c) { return !(r >= 0 && r < n && c >= 0 && c < n) || cells[r * n + c] != kEmpty; };
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
        if (!(exact ? len == 5 : len >= 5)) continue;
        if ((rule == Rule::kCaro || rule == Rule::kCaroOverline) && len == 5 && closed(pr, pc) &&
            closed(r + len * d[0], c + len * d[1])) {
          if (blocked) ++*blocked;
          continue;
        }
        return true;
      }
    }
  }
  return false;
}
}  // namespace

TEST_CASE("differential: Board agrees with a whole-board oracle over random games, all five rules") {
  // Moves lean towards the mover's own stones so that lines, gaps and
  // overlines are common.  Every move: outcome and terminal; every few moves:
  // MakesFive for both colours at a random empty point.  Under renju also:
  // the legal moves are the empty points less ForbiddenPoints (tested against
  // the literal rule text in test_renju) when black is to move, and every
  // empty point when white is; a forbidden point is refused with RulesError
  // and changes nothing; black with only forbidden points left is a draw, and
  // so is a game that reaches 25 empty points.
  std::mt19937 rng(20261130);
  int games = 0, wins = 0, draws = 0, overlines = 0, disagreements = 0, makes_five_checked = 0, makes_five_true = 0;
  int renju_forbidden_seen = 0, renju_refusals = 0, renju_white_overline_wins = 0, caro_blocked_fives = 0;
  int renju_empties_draws = 0, caro_overline_wins = 0;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard, Rule::kRenju, Rule::kCaro, Rule::kCaroOverline}) {
    for (int g = 0; g < 1500; ++g) {
      const int n = 5 + static_cast<int>(rng() % 11);  // 5..15
      Board b(n, rule);
      std::vector<int8_t> cells(n * n, kEmpty);
      bool saw_blocked_five = false;  // caro: a five blocked at both ends, and play went on
      while (!b.terminal()) {
        std::vector<int> legal = b.LegalMoves();
        if (rule == Rule::kRenju) {
          std::vector<int> want_legal;
          const std::vector<int> forbidden =
              b.to_move() == kBlack ? ForbiddenPoints(b) : std::vector<int>{};
          for (int p = 0; p < n * n; ++p)
            if (cells[p] == kEmpty && std::find(forbidden.begin(), forbidden.end(), p) == forbidden.end())
              want_legal.push_back(p);
          if (legal != want_legal) ++disagreements;
          for (int p = 0; p < n * n; ++p)
            if (b.IsLegal(p) != std::binary_search(want_legal.begin(), want_legal.end(), p)) ++disagreements;
          renju_forbidden_seen += static_cast<int>(forbidden.size());
          if (!forbidden.empty() && rng() % 2 == 0) {
            const int f = forbidden[rng() % forbidden.size()];
            const Board before = b;
            try {
              b.Play(f);
              ++disagreements;  // must be refused
            } catch (const RulesError& e) {
              ++renju_refusals;
              if (std::string(e.what()).find("forbidden for black under renju") == std::string::npos) ++disagreements;
            }
            if (b.cells() != before.cells() || b.to_move() != before.to_move() ||
                b.move_count() != before.move_count() || b.last_move() != before.last_move())
              ++disagreements;
          }
        }
        REQUIRE(!legal.empty());
        int move = legal[rng() % legal.size()];
        if (rng() % 10 < 7) {  // next to one of the mover's stones, if one has an empty neighbour
          std::vector<int> near;
          for (int p = 0; p < n * n; ++p) {
            if (cells[p] != b.to_move()) continue;
            for (int dr = -1; dr <= 1; ++dr)
              for (int dc = -1; dc <= 1; ++dc) {
                const int r = p / n + dr, c = p % n + dc;
                if (r >= 0 && r < n && c >= 0 && c < n && b.IsLegal(r * n + c)) near.push_back(r * n + c);
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
        int blocked = 0;
        if (OracleWins(cells, n, rule, mover, &blocked)) want = mover == kBlack ? Outcome::kBlackWins : Outcome::kWhiteWins;
        else if (b.move_count() == n * n) want = Outcome::kDraw;
        else if (rule == Rule::kRenju && n * n - b.move_count() <= 25) want = Outcome::kDraw;
        else if (rule == Rule::kRenju && mover == kWhite &&
                 static_cast<int>(ForbiddenPoints(b).size()) == n * n - b.move_count())
          want = Outcome::kDraw;  // black to move, every empty point forbidden
        saw_blocked_five |= blocked > 0 && !b.terminal();
        if (b.outcome() != want || b.terminal() != (want != Outcome::kOngoing)) {
          ++disagreements;
          INFO(RuleName(rule) << "\n" << b.ToString());
          CHECK(b.outcome() == want);
          break;
        }
        if (rule != Rule::kFreestyle && mover == kBlack && want == Outcome::kOngoing &&
            OracleWins(cells, n, Rule::kFreestyle, mover))
          ++overlines;  // six or more, no five: play goes on under standard (renju: cannot happen)
        if (rule == Rule::kRenju && mover == kWhite && want == Outcome::kWhiteWins &&
            !OracleWins(cells, n, Rule::kStandard, kWhite))
          ++renju_white_overline_wins;
        if (rule == Rule::kRenju && want == Outcome::kDraw && b.move_count() < n * n) ++renju_empties_draws;
        if (rule == Rule::kCaroOverline && want != Outcome::kOngoing && want != Outcome::kDraw &&
            !OracleWins(cells, n, Rule::kStandard, mover))
          ++caro_overline_wins;  // six or more: a win under caro-overline only
        // The opponent never holds a winning line: the game would have ended.
        if (OracleWins(cells, n, rule, Opponent(mover))) ++disagreements;
        // Whatever the rule, FromStones rebuilds the same outcome from the stones.
        if (rng() % 8 == 0) {
          const Board rebuilt = Board::FromStones(n, rule, b.cells(), b.to_move(), b.last_move());
          if (rebuilt.outcome() != b.outcome()) ++disagreements;
        }
      }
      ++games;
      caro_blocked_fives += saw_blocked_five;
      wins += b.outcome() == Outcome::kBlackWins || b.outcome() == Outcome::kWhiteWins;
      draws += b.outcome() == Outcome::kDraw;
    }
  }
  INFO(games << " games, " << wins << " wins, " << draws << " draws, " << overlines << " standard overlines, "
             << makes_five_checked << " MakesFive probes (" << makes_five_true << " true), renju: "
             << renju_forbidden_seen << " forbidden points seen, " << renju_refusals << " refusals, "
             << renju_white_overline_wins << " white overline wins, " << renju_empties_draws
             << " draws at 25 empty points, caro: " << caro_blocked_fives << " fives blocked at both ends, "
             << caro_overline_wins << " caro-overline overline wins");
  CHECK(disagreements == 0);
  // The sample must exercise both endings and both MakesFive answers.
  CHECK(wins > 150);
  CHECK(draws > 5);
  CHECK(makes_five_true > 75);
  CHECK(overlines > 10);
  CHECK(renju_forbidden_seen > 100);
  CHECK(renju_refusals > 50);
  CHECK(renju_white_overline_wins > 3);
  CHECK(caro_blocked_fives > 3);
  CHECK(renju_empties_draws > 50);
  CHECK(caro_overline_wins > 3);
}

TEST_CASE("caro: exactly five wins unless both ends are closed; the edge closes an end, as the manager judges") {
  CHECK(ParseRule("caro") == Rule::kCaro);
  CHECK(std::string(RuleName(Rule::kCaro)) == "caro");
  const int n = 9;
  // Row 4: O X X X X . O -- black at (4,5) makes a five blocked at both ends.
  std::vector<int8_t> cells(n * n, kEmpty);
  for (int c = 1; c <= 4; ++c) cells[P(n, 4, c)] = kBlack;
  cells[P(n, 4, 0)] = kWhite;
  cells[P(n, 4, 6)] = kWhite;
  cells[P(n, 8, 8)] = kWhite;
  cells[P(n, 8, 0)] = kWhite;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard, Rule::kCaro}) {
    Board b = Board::FromStones(n, rule, cells, kBlack);
    INFO(RuleName(rule));
    CHECK(b.MakesFive(P(n, 4, 5), kBlack) == (rule != Rule::kCaro));
    b.Play(P(n, 4, 5));
    CHECK(b.terminal() == (rule != Rule::kCaro));
  }
  // One end open: a win under caro too.
  std::vector<int8_t> open = cells;
  open[P(n, 4, 6)] = kEmpty;
  CHECK(Board::FromStones(n, Rule::kCaro, open, kBlack).MakesFive(P(n, 4, 5), kBlack));
  // Against the edge with the opponent at the other end: both ends closed
  // (GomocupJudge's make_move counts the edge as a block), no five ...
  std::vector<int8_t> edge(n * n, kEmpty);
  for (int r = 0; r < 4; ++r) edge[P(n, r, 2)] = kWhite;
  edge[P(n, 5, 2)] = kBlack;
  edge[P(n, 0, 7)] = kBlack;
  edge[P(n, 1, 7)] = kBlack;
  edge[P(n, 2, 7)] = kBlack;
  Board e = Board::FromStones(n, Rule::kCaro, edge, kWhite);
  CHECK_FALSE(e.MakesFive(P(n, 4, 2), kWhite));
  // ... and with the other end open, the edge alone does not stop it.
  edge[P(n, 5, 2)] = kEmpty;
  edge[P(n, 3, 7)] = kBlack;
  CHECK(Board::FromStones(n, Rule::kCaro, edge, kWhite).MakesFive(P(n, 4, 2), kWhite));
  // An overline does not win under caro, even unblocked.
  std::vector<int8_t> six(n * n, kEmpty);
  for (int c : {1, 2, 3, 5, 6}) six[P(n, 6, c)] = kBlack;
  for (int c : {0, 1, 2, 3, 4}) six[P(n, 0, c + 3)] = kWhite;
  six[P(n, 0, 3)] = kEmpty;
  CHECK_FALSE(Board::FromStones(n, Rule::kCaro, six, kBlack).MakesFive(P(n, 6, 4), kBlack));
  CHECK(Board::FromStones(n, Rule::kFreestyle, six, kBlack).MakesFive(P(n, 6, 4), kBlack));
  // FromStones reads a blocked five on the board as no win, an open one as a win.
  std::vector<int8_t> done = cells;
  done[P(n, 4, 5)] = kBlack;
  CHECK_FALSE(Board::FromStones(n, Rule::kCaro, done, kWhite).terminal());
  done[P(n, 4, 6)] = kEmpty;
  done[P(n, 7, 7)] = kWhite;
  CHECK(Board::FromStones(n, Rule::kCaro, done, kWhite).outcome() == Outcome::kBlackWins);
}

TEST_CASE("caro-overline (Gomocup rule 8): an overline always wins, an exact five as under caro") {
  CHECK(ParseRule("caro-overline") == Rule::kCaroOverline);
  CHECK(std::string(RuleName(Rule::kCaroOverline)) == "caro-overline");
  CHECK(kLastRule == Rule::kCaroOverline);
  CHECK_THROWS_AS(ParseRule("caro8"), ConfigError);
  const int n = 10;
  // Row 4: O X X X . X X O -- black at (4,4) makes six, the opponent at both ends.
  std::vector<int8_t> six(n * n, kEmpty);
  for (int c : {1, 2, 3, 5, 6}) six[P(n, 4, c)] = kBlack;
  six[P(n, 4, 0)] = kWhite;
  six[P(n, 4, 7)] = kWhite;
  for (int c : {0, 2, 4}) six[P(n, 9, c)] = kWhite;
  for (Rule rule : {Rule::kCaro, Rule::kCaroOverline}) {
    INFO(RuleName(rule));
    Board b = Board::FromStones(n, rule, six, kBlack);
    CHECK(b.MakesFive(P(n, 4, 4), kBlack) == (rule == Rule::kCaroOverline));
    b.Play(P(n, 4, 4));
    CHECK(b.outcome() == (rule == Rule::kCaroOverline ? Outcome::kBlackWins : Outcome::kOngoing));
  }
  // A five at `point` with both ends closed wins under neither caro rule;
  // with `opener` emptied (one end open) it does.
  auto closed_five = [&](const std::vector<int8_t>& cells, int8_t mover, int point, int opener) {
    for (Rule rule : {Rule::kCaro, Rule::kCaroOverline}) {
      INFO(RuleName(rule));
      Board b = Board::FromStones(n, rule, cells, mover);
      CHECK_FALSE(b.MakesFive(point, mover));
      b.Play(point);
      CHECK_FALSE(b.terminal());
      std::vector<int8_t> open = cells;
      open[opener] = kEmpty;
      Board o = Board::FromStones(n, rule, open, mover);
      o.Play(point);
      CHECK(o.outcome() == (mover == kBlack ? Outcome::kBlackWins : Outcome::kWhiteWins));
    }
  };
  // The opponent at both ends: O X X X X . O on row 2 (white's five here).
  std::vector<int8_t> blocked(n * n, kEmpty);
  for (int c = 1; c <= 4; ++c) blocked[P(n, 2, c)] = kWhite;
  blocked[P(n, 2, 0)] = kBlack;
  blocked[P(n, 2, 6)] = kBlack;
  for (int c : {3, 5, 7}) blocked[P(n, 8, c)] = kBlack;
  closed_five(blocked, kWhite, P(n, 2, 5), P(n, 2, 6));
  // The edge closes an end as the opponent does (the Gomocup manager's referee):
  // column 9, rows 0..3 black, row 5 white: black at (4,9).
  std::vector<int8_t> edge(n * n, kEmpty);
  for (int r = 0; r < 4; ++r) edge[P(n, r, 9)] = kBlack;
  edge[P(n, 5, 9)] = kWhite;
  for (int c : {0, 2, 4}) edge[P(n, 7, c)] = kWhite;
  closed_five(edge, kBlack, P(n, 4, 9), P(n, 5, 9));
  // FromStones reads a finished overline as a win under caro-overline only.
  std::vector<int8_t> done = six;
  done[P(n, 4, 4)] = kBlack;
  CHECK(Board::FromStones(n, Rule::kCaroOverline, done, kWhite).outcome() == Outcome::kBlackWins);
  CHECK_FALSE(Board::FromStones(n, Rule::kCaro, done, kWhite).terminal());
}

TEST_CASE("renju: rule names, exact five for black, overline wins for white") {
  CHECK(ParseRule("renju") == Rule::kRenju);
  CHECK(std::string(RuleName(Rule::kRenju)) == "renju");
  CHECK_THROWS_AS(ParseRule("Renju"), ConfigError);
  const int n = 9;
  // Black X X X X . X on row 0: the gap makes six, forbidden (overline), not a win.
  Board b = Setup(n, Rule::kRenju, {P(n, 0, 0), P(n, 0, 1), P(n, 0, 2), P(n, 0, 3), P(n, 0, 5)},
                  {P(n, 8, 0), P(n, 8, 2), P(n, 8, 4), P(n, 8, 8), P(n, 8, 6)});
  REQUIRE(b.to_move() == kBlack);
  CHECK_FALSE(b.MakesFive(P(n, 0, 4), kBlack));
  CHECK_FALSE(b.IsLegal(P(n, 0, 4)));
  const auto legal = b.LegalMoves();
  CHECK(std::find(legal.begin(), legal.end(), P(n, 0, 4)) == legal.end());
  try {
    b.Play(P(n, 0, 4));
    FAIL("an overline point was accepted for black");
  } catch (const RulesError& e) {
    CHECK(std::string(e.what()).find("point 4 (row 0, col 4) is forbidden for black under renju: overline") !=
          std::string::npos);
  }
  CHECK(b.to_move() == kBlack);
  CHECK(b.move_count() == 10);
  // White may make an overline and it wins.
  Board w = Setup(n, Rule::kRenju, {P(n, 2, 0), P(n, 2, 2), P(n, 2, 4), P(n, 2, 6), P(n, 4, 8), P(n, 6, 0)},
                  {P(n, 7, 0), P(n, 7, 1), P(n, 7, 2), P(n, 7, 3), P(n, 7, 5)});
  CHECK(w.to_move() == kWhite);
  CHECK(w.MakesFive(P(n, 7, 4), kWhite));
  CHECK(w.IsLegal(P(n, 7, 4)));
  w.Play(P(n, 7, 4));
  CHECK(w.outcome() == Outcome::kWhiteWins);
  // Black's exact five wins, and a five beats a double four made at once.
  Board f = Setup(n, Rule::kRenju, {P(n, 4, 0), P(n, 4, 1), P(n, 4, 2), P(n, 4, 3)},
                  {P(n, 0, 0), P(n, 0, 2), P(n, 0, 4), P(n, 0, 6)});
  CHECK(f.IsLegal(P(n, 4, 4)));
  f.Play(P(n, 4, 4));
  CHECK(f.outcome() == Outcome::kBlackWins);
  // Freestyle and standard: nothing is forbidden for black.
  for (Rule r : {Rule::kFreestyle, Rule::kStandard}) {
    Board o = Setup(n, r, {P(n, 0, 0), P(n, 0, 1), P(n, 0, 2), P(n, 0, 3), P(n, 0, 5)},
                    {P(n, 8, 0), P(n, 8, 2), P(n, 8, 4), P(n, 8, 8), P(n, 8, 6)});
    CHECK(o.IsLegal(P(n, 0, 4)));
    CHECK(o.LegalMoves().size() == static_cast<size_t>(n * n - 10));
    CHECK(o.ToPosition().rule == r);
  }
  CHECK(b.ToPosition().rule == Rule::kRenju);
}

TEST_CASE("renju: black with only forbidden points left draws") {
  // Decision (docs/engine.md "Rules"): when black is to move under renju and
  // every empty point is forbidden, black cannot move and the game is a draw.
  // Since the draw at 25 empty points that needs more than 25 forbidden
  // points: white on (r, c) with (c + 2r) % 5 == 0, black elsewhere, leaves
  // every line runs of four black stones; emptying the white points at least
  // four from the edge makes each an overline point in all four directions
  // (four + the point + four) and never an exact five.  22x22: 39 of them.
  const int n = 22;
  std::vector<int8_t> cells(n * n);
  int empties = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      const bool white = (c + 2 * r) % 5 == 0;
      const bool inner = r >= 4 && r < n - 4 && c >= 4 && c < n - 4;
      cells[P(n, r, c)] = white ? (inner ? kEmpty : kWhite) : kBlack;
      empties += white && inner;
    }
  REQUIRE(empties == 39);
  const Board b = Board::FromStones(n, Rule::kRenju, cells, kBlack);
  CHECK(ForbiddenPoints(b).size() == static_cast<size_t>(empties));
  for (int p : ForbiddenPoints(b)) CHECK(ForbiddenReasonForBlack(b, p) == ForbiddenReason::kOverline);
  CHECK(b.outcome() == Outcome::kDraw);
  CHECK(b.LegalMoves().empty());
  // White to move plays on; black stuck after white's move is a draw through Play too.
  Board w = Board::FromStones(n, Rule::kRenju, cells, kWhite);
  REQUIRE_FALSE(w.terminal());
  REQUIRE(w.at(P(n, 4, 7)) == kEmpty);  // (7 + 2 * 4) % 5 == 0
  w.Play(P(n, 4, 7));
  CHECK(w.outcome() == Outcome::kDraw);
  CHECK(w.to_move() == kBlack);
  // Under freestyle the same stones are a game in progress.
  CHECK(Board::FromStones(n, Rule::kFreestyle, cells, kBlack).outcome() == Outcome::kOngoing);
}

TEST_CASE("renju: a game that reaches 25 empty points without a five is a draw") {
  // The Gomocup manager asks for no move once at most 25 points are empty
  // (board.h kRenjuDrawEmpties); a five made with the 26th-last point wins.
  REQUIRE(kRenjuDrawEmpties == 25);
  const int n = 7;  // 49 points: the draw comes after the 24th stone
  // Stones that make no five under any rule: rows alternate X X O O X X O ...
  auto colour_at = [](int r, int c) { return ((c + 2 * r) % 4) < 2 ? kBlack : kWhite; };
  std::vector<int8_t> cells(n * n, kEmpty);
  int placed = 0;
  for (int m = 0; m < n * n && placed < 23; ++m) {
    cells[m] = colour_at(m / n, m % n);
    ++placed;
  }
  // 23 stones, 26 empty: the game is on under renju; one more stone ends it.
  for (Rule rule : {Rule::kRenju, Rule::kFreestyle}) {
    INFO(RuleName(rule));
    std::vector<int8_t> c = cells;
    const int8_t mover = (placed % 2 == 0) ? kBlack : kWhite;
    Board b = Board::FromStones(n, rule, c, mover);
    REQUIRE_FALSE(b.terminal());
    CHECK(b.moves_before_draw() == (rule == Rule::kRenju ? 1 : 26));
    b.Play(n * n - 1);  // a far corner, no five
    CHECK(b.terminal() == (rule == Rule::kRenju));
    CHECK(b.outcome() == (rule == Rule::kRenju ? Outcome::kDraw : Outcome::kOngoing));
    // FromStones reads 25 empty points the same way.
    c[n * n - 1] = mover;
    CHECK(Board::FromStones(n, rule, c, Opponent(mover)).outcome() ==
          (rule == Rule::kRenju ? Outcome::kDraw : Outcome::kOngoing));
  }
  // A five made with the 26th-last empty point wins: 19 stones of the same
  // fill (rows 0 and 1, five of row 2) and white X X X X . on row 6.
  std::vector<int8_t> five(n * n, kEmpty);
  for (int m = 0; m < 2 * n + 5; ++m) five[m] = colour_at(m / n, m % n);
  for (int c = 0; c < 4; ++c) five[P(n, 6, c)] = kWhite;
  Board w = Board::FromStones(n, Rule::kRenju, five, kWhite);
  REQUIRE(w.moves_before_draw() == 1);
  REQUIRE(w.MakesFive(P(n, 6, 4), kWhite));
  w.Play(P(n, 6, 4));
  CHECK(w.outcome() == Outcome::kWhiteWins);
  // kBlocked points (walls) are neither stones nor empty points: 7x7 with 30
  // walls and 2 stones has 17 empty points and is no draw (49 - 25 - 2 = 22 moves).
  std::vector<int8_t> walled(n * n, kEmpty);
  for (int m = 0; m < 30; ++m) walled[m] = kBlocked;
  walled[40] = kBlack;
  walled[48] = kWhite;
  const Board wb = Board::FromStones(n, Rule::kRenju, walled, kBlack);
  CHECK_FALSE(wb.terminal());
  CHECK(wb.moves_before_draw() == 17);
  // On 5x5 the empty renju board is already drawn.
  CHECK(Board(5, Rule::kRenju).outcome() == Outcome::kDraw);
  CHECK_FALSE(Board(5, Rule::kFreestyle).terminal());
}

TEST_CASE("blocked points (continuous games): nobody plays them, no line runs through them") {
  const int n = 9;
  std::vector<int8_t> cells(n * n, kEmpty);
  // Row 0: X X # X . -> black at (0,4) is no five; row 2: X X X X . -> five at (2,4).
  for (int c : {0, 1, 3}) cells[P(n, 0, c)] = kBlack;
  cells[P(n, 0, 2)] = kBlocked;
  for (int c : {5, 6, 7, 8}) cells[P(n, 8, c)] = kWhite;
  cells[P(n, 8, 0)] = kWhite;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard, Rule::kRenju}) {
    Board b = Board::FromStones(n, rule, cells, kBlack);
    CHECK(b.outcome() == Outcome::kOngoing);
    CHECK(b.move_count() == 9);
    CHECK_FALSE(b.IsLegal(P(n, 0, 2)));
    CHECK_FALSE(b.MakesFive(P(n, 0, 4), kBlack));
    const auto legal = b.LegalMoves();
    CHECK(std::find(legal.begin(), legal.end(), P(n, 0, 2)) == legal.end());
    CHECK_THROWS_AS(b.Play(P(n, 0, 2)), RulesError);
    CHECK_THROWS_AS(b.Remove(P(n, 0, 2)), RulesError);
    CHECK(b.ToString().find('#') != std::string::npos);
    b.Play(P(n, 0, 4));
    CHECK_FALSE(b.terminal());
    // White's four on row 8 still wins at (8,4) whatever the blocked point.
    CHECK(b.MakesFive(P(n, 8, 4), kWhite));
  }
  // Five blocked points in a row are nobody's five.
  std::vector<int8_t> line(n * n, kEmpty);
  for (int c = 0; c < 5; ++c) line[P(n, 4, c)] = kBlocked;
  CHECK(Board::FromStones(n, Rule::kFreestyle, line, kBlack).outcome() == Outcome::kOngoing);
  CHECK_THROWS_AS(Board::FromStones(n, Rule::kFreestyle, line, kBlack, P(n, 4, 0)), RulesError);  // not a last move
  line[0] = 4;
  CHECK_THROWS_AS(Board::FromStones(n, Rule::kFreestyle, line, kBlack), RulesError);
}
