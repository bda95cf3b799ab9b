// tools/manager_referee.h: the Gomocup manager's judging (rules 0, 1, 4, 8, 9)
// on hand-made edge cases, then against common/game's Board and renju.h on
// random games that reach the edges: every disagreement fails.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/game/renju.h"
#include "tools/manager_referee.h"

namespace gz {
namespace {

// Stones by (row, col) as the brief and the renju tests write them; the
// referee takes (x = col, y = row).
struct RC {
  int r, c;
};

ManagerReferee With(int size, int rule, const std::vector<RC>& black, const std::vector<RC>& white) {
  ManagerReferee m(size, rule);
  for (const RC& s : black) m.Place(s.c, s.r, 1);
  for (const RC& s : white) m.Place(s.c, s.r, 2);
  return m;
}

// Plays a move list (x, y) from the empty board, black first; returns the end after the last.
ManagerEnd PlayAll(ManagerReferee& m, const std::vector<std::pair<int, int>>& moves) {
  ManagerEnd e = ManagerEnd::kOngoing;
  for (auto [x, y] : moves) e = m.Play(x, y);
  return e;
}

TEST_CASE("letter moves: a column letter from a, a row number from 1") {
  using P = std::pair<int, int>;
  CHECK(ParseLetterMoves("h8h9i8") == std::vector<P>{{7, 7}, {7, 8}, {8, 7}});
  CHECK(ParseLetterMoves("h10 g14 i15") == std::vector<P>{{7, 9}, {6, 13}, {8, 14}});
  CHECK(LetterPoint(6, 7) == "g8");
  CHECK_THROWS(ParseLetterMoves("8h"));
  CHECK_THROWS(ParseLetterMoves("h0"));
}

TEST_CASE("rules the manager does not judge are refused") {
  CHECK_THROWS(ManagerReferee(15, 2));
  CHECK_THROWS(ManagerReferee(15, 5));
  CHECK_THROWS(ManagerReferee(4, 0));
}

TEST_CASE("rule 0: five or more wins") {
  ManagerReferee m(15, 0);
  // Black a1..d1 and f1 (x 0..3, 5; y 0), white far away; black e1 makes six.
  CHECK(PlayAll(m, {{0, 0}, {0, 10}, {1, 0}, {1, 10}, {2, 0}, {2, 10}, {3, 0}, {4, 12}, {5, 0}, {4, 14}}) ==
        ManagerEnd::kOngoing);
  CHECK(m.Wins(4, 0, 1));
  CHECK(m.Play(4, 0) == ManagerEnd::kFiveOrDraw);
  CHECK(m.winner() == 1);
  CHECK_FALSE(m.MoveOwed());
  CHECK_THROWS_AS(m.Play(9, 9), std::logic_error);
}

TEST_CASE("rule 1: exactly five; an overline plays on") {
  ManagerReferee m(15, 1);
  CHECK(PlayAll(m, {{0, 0}, {0, 10}, {1, 0}, {1, 10}, {2, 0}, {2, 10}, {3, 0}, {4, 12}, {5, 0}, {4, 14}}) ==
        ManagerEnd::kOngoing);
  CHECK_FALSE(m.Wins(4, 0, 1));
  CHECK(m.Play(4, 0) == ManagerEnd::kOngoing);
  // White's exact five at the edge wins (x 0..4 at y 10 after a5... white has a11..b11, c11: add d11, e11).
  CHECK(m.Play(3, 10) == ManagerEnd::kOngoing);  // white d11: four
  CHECK(m.Play(9, 9) == ManagerEnd::kOngoing);
  CHECK(m.Play(4, 10) == ManagerEnd::kFiveOrDraw);  // white e11: a11..e11, five from the edge
  CHECK(m.winner() == 2);
}

TEST_CASE("illegal and off-board moves lose for the mover") {
  ManagerReferee m(15, 0);
  m.Play(7, 7);
  CHECK(m.Play(7, 7) == ManagerEnd::kIllegal);
  CHECK(m.winner() == 1);
  ManagerReferee off(15, 0);
  CHECK(off.Play(15, 3) == ManagerEnd::kCrash);
  CHECK(off.winner() == 2);
  ManagerReferee negative(15, 0);
  negative.Play(7, 7);
  CHECK(negative.Play(-1, 3) == ManagerEnd::kCrash);
  CHECK(negative.winner() == 1);
}

TEST_CASE("a full board is a draw; renju is drawn with 25 empty points") {
  // 5x5 with no five anywhere: rows XXOOX / OOXXO / ..., 13 X and 12 O; the
  // last point (x 4, y 4) is black's 13th stone.
  ManagerReferee m(5, 0);
  const char* rows[5] = {"XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOO."};
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x)
      if (rows[y][x] != '.') m.Place(x, y, rows[y][x] == 'X' ? 1 : 2);
  REQUIRE(m.MoveOwed());
  CHECK(m.Play(4, 4) == ManagerEnd::kFiveOrDraw);
  CHECK(m.winner() == 0);

  // Renju on 5x5: 25 points, the empty board is already drawn.
  CHECK_FALSE(ManagerReferee(5, 4).MoveOwed());
  CHECK(ManagerReferee(5, 0).MoveOwed());
  // Renju on 6x6: 11 moves are owed (36 - 25), then a draw ...
  ManagerReferee r(6, 4);
  const std::vector<std::pair<int, int>> quiet = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1},
                                                  {2, 1}, {3, 1}, {0, 2}, {1, 2}};
  CHECK(PlayAll(r, quiet) == ManagerEnd::kOngoing);
  CHECK(r.stones() == 10);
  CHECK(r.Play(5, 5) == ManagerEnd::kFiveOrDraw);
  CHECK(r.winner() == 0);
  // ... and a five on the 11th move still wins (black x 0..4 at y 5 on moves 1, 3, 5, 7, 11).
  ManagerReferee w(6, 4);
  CHECK(PlayAll(w, {{0, 5}, {0, 0}, {1, 5}, {1, 0}, {2, 5}, {2, 0}, {3, 5}, {5, 0}, {5, 2}, {5, 3}}) ==
        ManagerEnd::kOngoing);
  CHECK(w.Play(4, 5) == ManagerEnd::kFiveOrDraw);
  CHECK(w.winner() == 1);
}

TEST_CASE("rule 4: black's fouls, black's exact five, white's overline") {
  // Black overline: row 7, c1..c3 and c5..c6, move c4 -> six.
  ManagerReferee m = With(15, 4, {{7, 1}, {7, 2}, {7, 3}, {7, 5}, {7, 6}}, {{0, 0}, {0, 2}, {0, 4}, {0, 6}, {0, 8}});
  CHECK(m.ForbiddenForBlack(4, 7));
  CHECK(m.Play(4, 7) == ManagerEnd::kFoul);
  CHECK(m.winner() == 2);
  // Black's exact five wins even with a four in another line ... (a five is never a foul)
  ManagerReferee five = With(15, 4, {{7, 1}, {7, 2}, {7, 3}, {7, 4}, {3, 5}, {4, 5}, {5, 5}},
                             {{0, 0}, {0, 2}, {0, 4}, {0, 6}, {0, 8}, {0, 10}, {14, 14}});
  CHECK_FALSE(five.ForbiddenForBlack(5, 7));
  CHECK(five.Play(5, 7) == ManagerEnd::kFiveOrDraw);
  CHECK(five.winner() == 1);
  // ... and white's overline wins.
  ManagerReferee white = With(15, 4, {{0, 0}, {0, 2}, {0, 4}, {0, 6}, {0, 8}},
                              {{9, 1}, {9, 2}, {9, 3}, {9, 5}, {9, 6}});
  CHECK(white.to_move() == 1);
  CHECK(white.Play(12, 12) == ManagerEnd::kOngoing);
  CHECK(white.Play(4, 9) == ManagerEnd::kFiveOrDraw);
  CHECK(white.winner() == 2);
  // A double four in two lines (row 7 c1..c3, column 4 r8..r10) at r7c4.
  ManagerReferee ff = With(15, 4, {{7, 1}, {7, 2}, {7, 3}, {8, 4}, {9, 4}, {10, 4}}, {});
  CHECK(ff.ForbiddenForBlack(4, 7));
  // One-line double four X_XXX_X made by the middle stone.
  ManagerReferee line = With(15, 4, {{7, 2}, {7, 4}, {7, 6}, {7, 8}}, {});
  CHECK(line.ForbiddenForBlack(5, 7));
}

TEST_CASE("rule 4: the positions of the brief") {
  // r7: c1 c2 c3 . c5 . c7 c8 c9 c10 -- c5 makes one four (c6 would make six): allowed.
  CHECK_FALSE(With(15, 4, {{7, 1}, {7, 2}, {7, 3}, {7, 7}, {7, 8}, {7, 9}, {7, 10}}, {}).ForbiddenForBlack(5, 7));
  // A three against the edge (r7 c0 c1 c2) and one in column 2: one three, allowed ...
  CHECK_FALSE(With(15, 4, {{7, 0}, {7, 1}, {5, 2}, {6, 2}}, {}).ForbiddenForBlack(2, 7));
  // ... one column to the right the row three is open: a double three.
  CHECK(With(15, 4, {{7, 1}, {7, 2}, {5, 3}, {6, 3}}, {}).ForbiddenForBlack(3, 7));
  // The recursive case: allowed.
  CHECK_FALSE(With(15, 4,
                   {{1, 9}, {2, 8}, {3, 6}, {3, 8}, {4, 5}, {4, 7}, {4, 9}, {5, 7}, {5, 8}, {6, 6}, {6, 8}, {7, 5}, {9, 7}},
                   {{5, 6}})
                  .ForbiddenForBlack(5, 6));
  // The manager's renju pre-submission position h8 h9 i7 i9 h10 i6 i11 i12: g9 is forbidden for black.
  ManagerReferee pre(15, 4);
  CHECK(PlayAll(pre, ParseLetterMoves("h8h9i7i9h10i6i11i12")) == ManagerEnd::kOngoing);
  CHECK(pre.to_move() == 1);
  CHECK(pre.ForbiddenForBlack(6, 8));
}

TEST_CASE("rule 8: an overline always wins; five blocked at both ends (the edge included) does not") {
  // Black c1..c5 of row 7 with white at c0 and c6: blocked five, no win; c7 black makes ... see below.
  ManagerReferee m = With(15, 8, {{7, 1}, {7, 2}, {7, 3}, {7, 4}}, {{7, 0}, {7, 6}, {0, 0}, {0, 14}});
  CHECK_FALSE(m.Wins(5, 7, 1));
  // One end open: wins.
  ManagerReferee open = With(15, 8, {{7, 1}, {7, 2}, {7, 3}, {7, 4}}, {{7, 0}, {0, 0}, {0, 14}, {14, 14}});
  CHECK(open.Wins(5, 7, 1));
  // Both ends the opponent's, but six: an overline wins under 8 ...
  ManagerReferee six = With(15, 8, {{7, 1}, {7, 2}, {7, 3}, {7, 4}, {7, 6}}, {{7, 0}, {7, 7}, {0, 0}, {0, 14}});
  CHECK(six.Wins(5, 7, 1));
  // ... and not under 9.
  ManagerReferee six9 = With(15, 9, {{7, 1}, {7, 2}, {7, 3}, {7, 4}, {7, 6}}, {{7, 0}, {7, 7}, {0, 0}, {0, 14}});
  CHECK_FALSE(six9.Wins(5, 7, 1));
  // From the edge (c0..c4) to white c5: the manager counts the edge as a block.
  ManagerReferee edge = With(15, 8, {{7, 0}, {7, 1}, {7, 2}, {7, 3}}, {{7, 5}, {0, 0}, {0, 14}, {14, 14}});
  CHECK_FALSE(edge.Wins(4, 7, 1));
  // From the edge with the other end empty: one block, a win.
  ManagerReferee edge_open = With(15, 8, {{7, 0}, {7, 1}, {7, 2}, {7, 3}}, {{0, 0}, {0, 14}, {14, 14}, {14, 0}});
  CHECK(edge_open.Wins(4, 7, 1));
  // Corner to corner diagonal on 5x5: both ends the edge, no win under 8 or 9, a win under 0.
  for (int rule : {8, 9, 0}) {
    ManagerReferee d = With(5, rule, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}, {{0, 4}, {4, 0}, {0, 3}, {3, 0}});
    CHECK(d.Wins(4, 4, 1) == (rule == 0));
  }
}

TEST_CASE("rule 8: the manager's caro pre-submission position") {
  // h8 f8 g8 f9 i8 f7 j8 l8, black to move: k8 makes g8..k8 between white f8 and l8, no win;
  // under rule 0 it wins.
  for (int rule : {8, 9, 0}) {
    ManagerReferee m(15, rule);
    CHECK(PlayAll(m, ParseLetterMoves("h8f8g8f9i8f7j8l8")) == ManagerEnd::kOngoing);
    CHECK(m.to_move() == 1);
    CHECK(m.Wins(10, 7, 1) == (rule == 0));
  }
}

// ----------------------------------------------------- against common/game

// The common/game rule of a manager rule value.
Rule GameRule(int rule) {
  switch (rule) {
    case 0: return Rule::kFreestyle;
    case 1: return Rule::kStandard;
    case 4: return Rule::kRenju;
    case 8: return Rule::kCaroOverline;
    default: return Rule::kCaro;
  }
}

struct Comparison {
  long points = 0, positions = 0, games = 0, disagreements = 0;
  std::ostringstream first;  // the first few, described
  void Disagree(const std::string& what, const Board& b) {
    if (++disagreements <= 5) first << what << "\n" << b.ToString();
  }
};

// Random games under `rule` on `size`: moves near stones or on the edge, as
// often as anywhere; at every position each empty point's five (and, renju
// with black to move, foul) is compared, then the move's outcome.
void CompareGames(int rule, int size, int games, uint32_t seed, Comparison& cmp) {
  std::mt19937 rng(seed);
  for (int g = 0; g < games; ++g) {
    ++cmp.games;
    ManagerReferee m(size, rule);
    Board b(size, GameRule(rule));
    while (m.MoveOwed() && !b.terminal()) {
      ++cmp.positions;
      const int colour = m.to_move();
      const int8_t gc = colour == 1 ? kBlack : kWhite;
      const bool renju_black = rule == 4 && colour == 1;
      std::vector<int> allowed, near;
      for (int p = 0; p < b.num_points(); ++p) {
        if (b.at(p) != kEmpty) continue;
        const int x = p % size, y = p / size;
        ++cmp.points;
        bool foul = false;
        if (renju_black) {
          foul = m.ForbiddenForBlack(x, y);
          if (foul != (ForbiddenReasonForBlack(b, p) != ForbiddenReason::kNone))
            cmp.Disagree("rule 4, black at x " + std::to_string(x) + " y " + std::to_string(y) + ": manager " +
                             (foul ? "foul" : "allowed") + ", common/game " +
                             ForbiddenReasonName(ForbiddenReasonForBlack(b, p)),
                         b);
        }
        if (!foul && m.Wins(x, y, colour) != b.MakesFive(p, gc))
          cmp.Disagree("rule " + std::to_string(rule) + ", colour " + std::to_string(colour) + " at x " +
                           std::to_string(x) + " y " + std::to_string(y) + ": manager " +
                           (m.Wins(x, y, colour) ? "wins" : "no win") + ", common/game " +
                           (b.MakesFive(p, gc) ? "five" : "no five"),
                       b);
        if (foul || !b.IsLegal(p)) continue;
        allowed.push_back(p);
        const bool edge = x == 0 || y == 0 || x == size - 1 || y == size - 1;
        bool next_to_stone = false;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = x + dx, ny = y + dy;
            if (nx >= 0 && ny >= 0 && nx < size && ny < size && b.at(ny * size + nx) != kEmpty) next_to_stone = true;
          }
        if (edge || next_to_stone) near.push_back(p);
      }
      if (allowed.empty()) break;  // renju: black has no point both referees allow
      const std::vector<int>& from = (!near.empty() && rng() % 4 != 0) ? near : allowed;
      const int p = from[rng() % from.size()];
      const ManagerEnd e = m.Play(p % size, p / size);
      b.Play(p);
      const int game_winner = b.outcome() == Outcome::kBlackWins ? 1 : b.outcome() == Outcome::kWhiteWins ? 2 : 0;
      if ((e == ManagerEnd::kOngoing) != !b.terminal() || (e != ManagerEnd::kOngoing && m.winner() != game_winner))
        cmp.Disagree("rule " + std::to_string(rule) + " after x " + std::to_string(p % size) + " y " +
                         std::to_string(p / size) + ": manager " + ManagerEndName(e) + " winner " +
                         std::to_string(m.winner()) + ", common/game " +
                         (b.terminal() ? "over, winner " + std::to_string(game_winner) : std::string("going on")),
                     b);
    }
  }
}

void CompareRule(int rule) {
  Comparison cmp;
  CompareGames(rule, 6, 150, 11 + rule, cmp);
  CompareGames(rule, 7, 150, 101 + rule, cmp);
  CompareGames(rule, 9, 100, 1001 + rule, cmp);
  CompareGames(rule, 15, 15, 10001 + rule, cmp);
  CompareGames(rule, 20, 5, 100001 + rule, cmp);
  INFO(cmp.games << " games, " << cmp.positions << " positions, " << cmp.points << " points compared; "
                 << cmp.disagreements << " disagreements; the first:\n"
                 << cmp.first.str());
  CHECK(cmp.positions > 1000);
  CHECK(cmp.disagreements == 0);
}

TEST_CASE("against common/game: rule 0 (freestyle)") { CompareRule(0); }
TEST_CASE("against common/game: rule 1 (standard)") { CompareRule(1); }
TEST_CASE("against common/game: rule 4 (renju, fouls and the 25-empty draw)") { CompareRule(4); }
TEST_CASE("against common/game: rule 8 (caro-overline)") { CompareRule(8); }
TEST_CASE("against common/game: rule 9 (caro)") { CompareRule(9); }

}  // namespace
}  // namespace gz
