// common/search/node_solver: what the threat solver proves at expansion, on
// hand-built positions and on random ones, with the restricted move sets
// checked against brute force (every legal move, a VCF query after each).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "common/game/threats.h"
#include "common/game/vct.h"
#include "common/search/node_solver.h"
#include "tests/search/solver_positions.h"

using namespace gz;
using gz::testing::P;
using gz::testing::Picture;
using gz::testing::kFourThree;
using gz::testing::kOpenFour;
using gz::testing::WithRow;

namespace {

constexpr int64_t kBig = 1'000'000;

// The exact refutation set: legal moves after which the opponent has no VCF.
std::vector<int> BruteForceRefutations(const Board& b) {
  ThreatSolver s;
  std::vector<int> out;
  for (int m : b.LegalMoves()) {
    Board c = b;
    c.Play(m);
    if (c.terminal() || !s.Vcf(c, Opponent(b.to_move()), kBig).proven_win()) out.push_back(m);
  }
  return out;
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("a five point of the side to move: proven win, the five is the only move") {
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    Board b = Picture(rule, kBlack, WithRow(kOpenFour, 8, "O........"));
    NodeSolver s(1000);
    NodeVerdict v = s.Analyse(b);
    CHECK(v.proven == Proven::kWin);
    CHECK(std::string(v.reason) == "five");
    CHECK(v.win_move == P(9, 4, 0));  // the lowest of (4,0) and (4,5)
    CHECK(v.restricted);
    CHECK(v.moves == std::vector<int>{P(9, 4, 0)});

    // The same stones, white to move: an open four against it, proven lost.
    Board w = Picture(rule, kWhite, kOpenFour);
    v = s.Analyse(w);
    CHECK(v.proven == Proven::kLoss);
    CHECK(std::string(v.reason) == "double_five");
    CHECK(v.moves == std::vector<int>{P(9, 4, 0), P(9, 4, 5)});
  }
}

TEST_CASE("facing a four: the block is the only move") {
  Board b = Picture(Rule::kFreestyle, kWhite,
                    {".........",
                     "....O....",
                     ".........",
                     "..O......",
                     "XXXX.....",
                     "........O",
                     ".........",
                     ".........",
                     "........."});
  NodeSolver s(1000);
  NodeVerdict v = s.Analyse(b);
  CHECK(v.proven == Proven::kNone);
  CHECK(std::string(v.reason) == "block");
  CHECK(v.moves == std::vector<int>{P(9, 4, 4)});
}

TEST_CASE("broken fours X_XXX and XX_XX: the gap is the five, and the block") {
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    const std::vector<std::string> rows = {".........",
                                           ".X.XXX...",
                                           ".........",
                                           "......O..",
                                           "...O.....",
                                           ".........",
                                           ".O.......",
                                           ".......O.",
                                           "........."};
    NodeSolver s(1000);
    NodeVerdict v = s.Analyse(Picture(rule, kBlack, rows));
    CHECK(v.proven == Proven::kWin);
    CHECK(v.win_move == P(9, 1, 2));
    v = s.Analyse(Picture(rule, kWhite, rows));
    CHECK(v.proven == Proven::kNone);
    CHECK(v.moves == std::vector<int>{P(9, 1, 2)});

    const std::vector<std::string> diag = {"O........",
                                           ".X.......",
                                           "..X......",
                                           "........O",
                                           "....X....",
                                           ".....X...",
                                           "O........",
                                           "........O",
                                           "........."};
    v = s.Analyse(Picture(rule, kWhite, diag));
    CHECK(std::string(v.reason) == "block");
    CHECK(v.moves == std::vector<int>{P(9, 3, 3)});
  }
}

TEST_CASE("overline: a five under freestyle, not under standard") {
  const std::vector<std::string> rows = {"XXX.XX...",
                                         ".........",
                                         "....O....",
                                         "......O..",
                                         "..O......",
                                         "........O",
                                         ".........",
                                         "...O.....",
                                         "........."};
  NodeSolver s(1000);
  NodeVerdict fs = s.Analyse(Picture(Rule::kFreestyle, kBlack, rows));
  CHECK(fs.proven == Proven::kWin);
  CHECK(std::string(fs.reason) == "five");
  CHECK(fs.win_move == P(9, 0, 3));
  NodeVerdict st = s.Analyse(Picture(Rule::kStandard, kBlack, rows));
  CHECK(std::string(st.reason) != "five");
  CHECK(st.win_move != P(9, 0, 3));
  // White to move under standard need not block the overline point.
  NodeVerdict stw = s.Analyse(Picture(Rule::kStandard, kWhite, rows));
  CHECK(std::string(stw.reason) != "block");
  CHECK(!(stw.restricted && stw.moves == std::vector<int>{P(9, 0, 3)}));
  NodeVerdict fsw = s.Analyse(Picture(Rule::kFreestyle, kWhite, rows));
  CHECK(fsw.moves == std::vector<int>{P(9, 0, 3)});
}


TEST_CASE("four-three: found by VCF, and the side facing it may only refute it") {
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    NodeSolver s(10'000);
    NodeVerdict v = s.Analyse(Picture(rule, kBlack, kFourThree));
    CHECK(v.proven == Proven::kWin);
    CHECK(std::string(v.reason) == "vcf");
    CHECK(v.win_move == P(11, 5, 6));
    CHECK(v.moves == std::vector<int>{P(11, 5, 6)});

    const Board w = Picture(rule, kWhite, kFourThree);
    v = s.Analyse(w);
    REQUIRE(std::string(v.reason) == "null_move");
    CHECK(v.proven == Proven::kNone);
    CHECK(v.moves == BruteForceRefutations(w));
    CHECK(Contains(v.moves, P(11, 5, 6)));   // the four-three point itself
    CHECK_FALSE(Contains(v.moves, P(11, 0, 5)));
    CHECK(v.moves.size() < w.LegalMoves().size() / 4);
  }
}

TEST_CASE("facing an open three: exactly the moves after which the opponent has no VCF") {
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard}) {
    const Board b = Picture(rule, kWhite,
                            {"O..........",
                             "...........",
                             "...........",
                             "...........",
                             "...........",
                             "....XXX....",
                             "...........",
                             "...........",
                             "..........O",
                             "...........",
                             "..........."});
    NodeSolver s(10'000);
    NodeVerdict v = s.Analyse(b);
    REQUIRE(std::string(v.reason) == "null_move");
    CHECK(v.restricted);
    const std::vector<int> exact = BruteForceRefutations(b);
    CHECK(v.moves == exact);
    CHECK(Contains(v.moves, P(11, 5, 3)));  // the ends
    CHECK(Contains(v.moves, P(11, 5, 7)));
    CHECK_FALSE(Contains(v.moves, P(11, 0, 10)));
    CHECK_FALSE(Contains(v.moves, P(11, 9, 1)));
  }
}

TEST_CASE("a defence that makes its own four is a refutation; a four whose block helps is not") {
  // Black's open three on row 5; white's column 3 (2,3),(3,3),(4,3) capped by
  // X at (1,3).  White (5,3) blocks the three and makes a four; white (6,3) is
  // a broken four whose forced block (5,3) gives black an open four.
  const Board b = Picture(Rule::kFreestyle, kWhite,
                          {"...........",
                           "...X.......",
                           "...O.......",
                           "...O.......",
                           "...O.......",
                           "....XXX....",
                           "...........",
                           "...........",
                           "X.........O",
                           "...........",
                           "X.........."});
  NodeSolver s(10'000);
  NodeVerdict v = s.Analyse(b);
  REQUIRE(std::string(v.reason) == "null_move");
  CHECK(v.moves == BruteForceRefutations(b));
  CHECK(Contains(v.moves, P(11, 5, 3)));
  CHECK_FALSE(Contains(v.moves, P(11, 6, 3)));

  // The VCF view of the same idea: black's four-three refuted by white's
  // counter-four (tests/game/test_threats.cc): nothing proven for black.
  std::vector<std::string> refuted = kFourThree;
  refuted[6][7] = 'O';
  refuted[7][7] = 'O';
  refuted[8][7] = 'O';
  refuted[9][7] = 'X';
  NodeVerdict r = s.Analyse(Picture(Rule::kFreestyle, kBlack, refuted));
  CHECK(r.proven != Proven::kWin);
}

TEST_CASE("random positions: every proof holds and every restricted set is the brute-force one") {
  std::mt19937_64 rng(77);
  int null_moves = 0, wins = 0, losses = 0, checked = 0;
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard})
    for (int trial = 0; trial < 150; ++trial) {
      Board b(9, rule);
      const int stones = 12 + static_cast<int>(rng() % 14);
      int misses = 0;
      while (b.move_count() < stones && misses < 200) {
        const int m = static_cast<int>(rng() % 81);
        if (!b.IsLegal(m) || b.MakesFive(m, b.to_move())) {
          ++misses;
          continue;
        }
        b.Play(m);
      }
      if (b.terminal()) continue;
      NodeSolver s(kBig);
      NodeVerdict v = s.Analyse(b);
      ++checked;
      const int8_t me = b.to_move(), them = Opponent(me);
      ThreatSolver oracle;
      if (v.proven == Proven::kWin) {
        ++wins;
        REQUIRE(b.IsLegal(v.win_move));
        Board c = b;
        c.Play(v.win_move);
        // After the winning move the opponent has no defence: we either won or
        // still have a VCF whatever it plays (its reply is forced or loses).
        if (!c.terminal()) {
          const std::vector<int> fives = FivePoints(c, me);
          REQUIRE(!fives.empty());
          CHECK(FivePoints(c, them).empty());
        }
      }
      if (v.proven == Proven::kLoss) {
        ++losses;
        for (int m : b.LegalMoves()) {
          Board c = b;
          c.Play(m);
          CHECK((c.terminal() ? c.outcome() != Outcome::kDraw : oracle.Vcf(c, them, kBig).proven_win()));
        }
      }
      if (std::string(v.reason) == "null_move" || std::string(v.reason) == "no_refutation") {
        ++null_moves;
        const std::vector<int> exact = BruteForceRefutations(b);
        if (v.proven == Proven::kLoss) CHECK(exact.empty());
        else CHECK(v.moves == exact);
      }
      if (v.proven == Proven::kNone && !v.restricted) {
        // Nothing found: with this budget the searches are exhaustive.
        CHECK_FALSE(oracle.Vcf(b, me, kBig).proven_win());
        CHECK_FALSE(oracle.Vcf(b, them, kBig).proven_win());
      }
    }
  INFO("checked " << checked << " wins " << wins << " losses " << losses << " null-move " << null_moves);
  CHECK(null_moves >= 20);
  CHECK(wins >= 20);
  CHECK(losses >= 5);
}

TEST_CASE("a small budget keeps moves rather than dropping them, and never proves wrongly") {
  const Board w = Picture(Rule::kFreestyle, kWhite, kFourThree);
  const std::vector<int> exact = BruteForceRefutations(w);
  for (int64_t budget : {1, 2, 3, 5, 10, 100}) {
    NodeSolver s(budget);
    NodeVerdict v = s.Analyse(w);
    CHECK(v.proven != Proven::kWin);
    CHECK(v.proven != Proven::kLoss);
    if (v.restricted)
      for (int m : exact) CHECK(Contains(v.moves, m));
  }
  CHECK_THROWS(NodeSolver(0));
  CHECK_THROWS(NodeSolver(1000, -1));
}

TEST_CASE("VCT steps: a double three is a proven win at the root, not below it; off by default") {
  const Board b = Picture(Rule::kFreestyle, kBlack, gz::testing::kDoubleThree);
  NodeSolver off(kBig);
  CHECK(off.Analyse(b).proven == Proven::kNone);  // no VCF, and VCT is off
  CHECK(off.stats().vct_queries == 0);
  NodeSolver s(kBig, 100'000);
  {
    const NodeVerdict v = s.Analyse(b, 0);
    CHECK(v.proven == Proven::kWin);
    CHECK(std::string(v.reason) == "vct");
    CHECK(v.win_move == P(11, 5, 5));
    CHECK(v.moves == std::vector<int>{P(11, 5, 5)});
  }
  CHECK(s.Analyse(b, 1).proven == Proven::kNone);
  CHECK(s.stats().vct_queries >= 1);
}

TEST_CASE("VCT null move at the root: every dropped move provably loses, every near kept one refutes") {
  // White to move against black's double-three threat.  Every white move on
  // the row or the column defuses it (black needs both lines); three more
  // open points on the diagonal through (5,5) do not.
  std::vector<std::string> rows = gz::testing::kDoubleThree;
  rows[6][6] = rows[7][7] = rows[8][8] = '.';
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard, Rule::kRenju}) {
    const Board w = Picture(rule, kWhite, rows);
    NodeSolver s(kBig, 100'000);
    const NodeVerdict v = s.Analyse(w, 0);
    VctSolver check;
    INFO(RuleName(rule) << " reason " << v.reason);
    if (rule == Rule::kRenju) {
      // (5,5) is forbidden for black: no threat, nothing restricted.
      CHECK(v.proven == Proven::kNone);
      CHECK_FALSE(v.restricted);
      continue;
    }
    REQUIRE(std::string(v.reason) == "vct_null_move");
    REQUIRE(v.restricted);
    CHECK(s.stats().vct_null_move_threats == 1);
    CHECK(Contains(v.moves, P(11, 5, 5)));  // taking the double-three point refutes it
    CHECK_FALSE(Contains(v.moves, P(11, 6, 6)));
    CHECK_FALSE(Contains(v.moves, P(11, 7, 7)));
    for (int m : w.LegalMoves()) {
      Board c = w;
      c.Play(m);
      const bool refuted = !check.Vct(c, kBlack, kBig).proven_win();
      if (!Contains(v.moves, m)) CHECK_FALSE(refuted);  // dropped: black still wins
      if (refuted) CHECK(Contains(v.moves, m));         // every refutation kept
    }
    // Below the root the null move is not asked.
    CHECK(s.Analyse(w, 1).proven == Proven::kNone);
  }
}

TEST_CASE("VCT null move: no refutation at all is a proven loss") {
  // White to move against two disjoint double-three points of black: one
  // white stone cannot take both, and white has no four to gain time with.
  const Board w = Picture(Rule::kFreestyle, kWhite, gz::testing::kTwoDoubleThrees);
  NodeSolver s(kBig, kBig);
  const NodeVerdict v = s.Analyse(w, 0);
  INFO(w.ToString() << " reason " << v.reason);
  REQUIRE(v.proven == Proven::kLoss);
  CHECK(std::string(v.reason) == "no_vct_refutation");
  VctSolver check;
  for (int m : w.LegalMoves()) {
    Board c = w;
    c.Play(m);
    CHECK(check.Vct(c, kBlack, kBig).proven_win());
  }
}

TEST_CASE("VCT null move: the refutation queries share one budget, and what they drop still loses") {
  // The Gomocup manager's renju self-play opening after three more moves
  // (x,y: black 1,1 4,2 3,3, white 4,1 5,1 5,2), black to move: white threatens
  // a VCT, dozens of black moves lie near its line, and each query under renju
  // is dear (uncapped, the analysis took 1.8 s in a 0.5 s move).
  Board b(15, Rule::kRenju);
  for (auto [x, y] : {std::pair{1, 1}, {4, 1}, {4, 2}, {5, 1}, {3, 3}, {5, 2}}) b.Play(y * 15 + x);
  const int64_t vct_nodes = 1000;
  NodeSolver s(1000, vct_nodes);
  const NodeVerdict v = s.Analyse(b, 0);
  INFO(b.ToString() << " reason " << v.reason);
  REQUIRE(s.stats().vct_null_move_threats == 1);
  // The budget ran out (this position needs more) ...
  CHECK(s.stats().vct_null_move_nodes >= NodeSolver::kVctNullMoveQueries * vct_nodes);
  // ... and the last query ran past it by at most its own.
  CHECK(s.stats().vct_null_move_nodes <= (NodeSolver::kVctNullMoveQueries + 1) * vct_nodes);
  CHECK(v.proven != Proven::kLoss);  // not every move was queried: no loss proof
  VctSolver check;
  for (int m : b.LegalMoves()) {
    if (v.moves.empty() || Contains(v.moves, m)) continue;
    Board c = b;
    c.Play(m);
    CHECK(check.Vct(c, kWhite, vct_nodes).proven_win());  // dropped: white still wins
  }
}
