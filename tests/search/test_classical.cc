// The classical player's search (common/search/classical.h): wins in one,
// blocks, a VCF it proves, renju forbidden points, the node limit,
// determinism, and the engine's limits (stop flags, deadline, excluded moves).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/game/threats.h"
#include "common/search/classical.h"
#include "tests/search/solver_positions.h"
#include "tests/support/board_points.h"

using namespace gz;
using gz::testing::P;
using gz::testing::Picture;

namespace {

ClassicalResult ClassicalMove(const Board& b, int64_t nodes) {
  ClassicalSearch s(ClassicalOptions{nodes});
  return s.Search(b);
}

// A 15x15 board after the moves (row, column), alternately black and white.
Board ClassicalPlayed(const std::vector<std::pair<int, int>>& moves, Rule rule = Rule::kFreestyle) {
  Board b(15, rule);
  for (auto [r, c] : moves) b.Play(P(15, r, c));
  return b;
}

// Random mid-game positions: `plies` moves drawn near the centre (a fixed
// LCG, so every run sees the same positions); terminal ones skipped.
std::vector<Board> ClassicalRandomPositions(Rule rule, int count, int plies, uint64_t seed) {
  std::vector<Board> out;
  uint64_t x = seed;
  while (static_cast<int>(out.size()) < count) {
    Board b(15, rule);
    for (int i = 0; i < plies && !b.terminal(); ++i) {
      for (int tries = 0; tries < 100; ++tries) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const int r = 3 + static_cast<int>((x >> 33) % 9), c = 3 + static_cast<int>((x >> 45) % 9);
        if (b.IsLegal(P(15, r, c))) {
          b.Play(P(15, r, c));
          break;
        }
      }
    }
    if (!b.terminal()) out.push_back(b);
  }
  return out;
}

}  // namespace

TEST_CASE("classical: takes a win in one, at every node limit") {
  // Black X X X X . on row 7 (closed at the left by white), white to move
  // elsewhere played; black to move wins at (7,8).
  Board b = ClassicalPlayed({{7, 4}, {7, 3}, {7, 5}, {0, 0}, {7, 6}, {0, 14}, {7, 7}, {14, 0}});
  REQUIRE(b.to_move() == kBlack);
  for (int64_t n : {1, 10, 1000}) {
    const ClassicalResult r = ClassicalMove(b, n);
    CHECK(r.move == P(15, 7, 8));
    CHECK(r.score > kClassicWinScore / 2);
  }
}

TEST_CASE("classical: under caro a five blocked at both ends is no win") {
  // Black X X X X on row 7 (cols 4..7) between white at (7,3) and (7,9):
  // (7,8) makes a five with white at both ends.
  std::vector<int8_t> cells(15 * 15, kEmpty);
  for (int c : {4, 5, 6, 7}) cells[P(15, 7, c)] = kBlack;
  for (int p : {P(15, 7, 3), P(15, 7, 9), P(15, 0, 0), P(15, 14, 14)}) cells[p] = kWhite;
  const Board free = Board::FromStones(15, Rule::kFreestyle, cells, kBlack);
  const ClassicalResult f = ClassicalMove(free, 100);
  CHECK(f.move == P(15, 7, 8));
  CHECK(f.score > kClassicWinScore / 2);
  const Board caro = Board::FromStones(15, Rule::kCaro, cells, kBlack);
  const ClassicalResult r = ClassicalMove(caro, 100);
  CHECK(r.score < kClassicWinScore / 2);
  CHECK(r.reason != "five");
}

TEST_CASE("classical: under caro-overline it takes an overline win and blocks a four that would become six") {
  // Black X X X . X X on row 7 (cols 3..8) between white at (7,2) and (7,9):
  // (7,6) makes six -- a win under caro-overline only.
  std::vector<int8_t> cells(15 * 15, kEmpty);
  for (int c : {3, 4, 5, 7, 8}) cells[P(15, 7, c)] = kBlack;
  for (int p : {P(15, 7, 2), P(15, 7, 9), P(15, 0, 0), P(15, 14, 14), P(15, 0, 14)}) cells[p] = kWhite;
  const ClassicalResult win = ClassicalMove(Board::FromStones(15, Rule::kCaroOverline, cells, kBlack), 100);
  CHECK(win.move == P(15, 7, 6));
  CHECK(win.score > kClassicWinScore / 2);
  const ClassicalResult caro = ClassicalMove(Board::FromStones(15, Rule::kCaro, cells, kBlack), 100);
  CHECK(caro.score < kClassicWinScore / 2);
  // White to move must take (7,6) away under caro-overline.
  for (int64_t n : {1, 100, 1000})
    CHECK(ClassicalMove(Board::FromStones(15, Rule::kCaroOverline, cells, kWhite), n).move == P(15, 7, 6));
}

TEST_CASE("classical: under renju a five that comes after the draw at 25 empty points is no win") {
  // 9x9 (81 points): a pattern without lines fills rows 0..4 but two points,
  // and black's X X X X . stands on row 7; the draw comes after 56 stones.
  const int n = 9;
  std::vector<int8_t> cells(n * n, kEmpty);
  int stones = 0;
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < n; ++c)
      if (stones < 43) {
        cells[r * n + c] = ((c + 2 * r) % 4) < 2 ? kBlack : kWhite;
        ++stones;
      }
  for (int c = 1; c <= 4; ++c) cells[P(n, 7, c)] = kBlack;
  cells[P(n, 7, 0)] = kWhite;
  stones += 5;  // 48 stones, 33 empty: 8 moves before the draw
  Board b = Board::FromStones(n, Rule::kRenju, cells, kWhite);
  REQUIRE(b.moves_before_draw() == 8);
  // White to move blocks the four: black's five would come with room to spare.
  CHECK(ClassicalMove(b, 1000).move == P(n, 7, 5));
  // With one move left (white's), black's five never comes: white need not block.
  for (int p : {P(n, 5, 0), P(n, 5, 2), P(n, 5, 4), P(n, 5, 6), P(n, 5, 8), P(n, 6, 1), P(n, 6, 5)}) {
    REQUIRE(cells[p] == kEmpty);
    cells[p] = (p % 2) ? kBlack : kWhite;
  }
  b = Board::FromStones(n, Rule::kRenju, cells, kWhite);
  REQUIRE(b.moves_before_draw() == 1);
  REQUIRE_FALSE(b.terminal());
  const ClassicalResult r = ClassicalMove(b, 1000);
  CHECK(r.score < kClassicWinScore / 2);
  CHECK(r.score > -kClassicWinScore / 2);
}

TEST_CASE("classical: blocks a four, and stops an open three from becoming an open four") {
  // White has a closed four O O O O on row 7 (black at its left end): black must block (7,9).
  Board b = ClassicalPlayed({{7, 4}, {7, 5}, {3, 3}, {7, 6}, {3, 11}, {7, 7}, {11, 3}, {7, 8}});
  REQUIRE(b.to_move() == kBlack);
  for (int64_t n : {1, 100, 1000}) CHECK(ClassicalMove(b, n).move == P(15, 7, 9));

  // White's open three . . O O O . . on row 7, black to move with nothing of its own:
  // after black's move white must have no VCF (the open four is stopped).
  Board t = ClassicalPlayed({{2, 2}, {7, 6}, {12, 12}, {7, 7}, {2, 12}, {7, 8}});
  REQUIRE(t.to_move() == kBlack);
  for (int64_t n : {10, 1000}) {
    const ClassicalResult r = ClassicalMove(t, n);
    Board after = t;
    after.Play(r.move);
    ThreatSolver solver;
    CHECK(solver.Vcf(after, kWhite, 100000).status == VcfStatus::kNoVcf);
  }
}

TEST_CASE("classical: plays a VCF it can prove, and the line still wins after the forced reply") {
  const Board b = Picture(Rule::kFreestyle, kBlack, gz::testing::kFourThree);
  ThreatSolver check;
  REQUIRE(check.Vcf(b, kBlack, 100000).proven_win());
  const ClassicalResult r = ClassicalMove(b, 1000);
  CHECK(r.reason == "vcf");
  CHECK(r.score > kClassicWinScore / 2);
  // The move is a four (white's only reply is the block), after which black still has a VCF.
  Board after = b;
  after.Play(r.move);
  const std::vector<int> fives = FivePoints(after, kBlack);
  REQUIRE(fives.size() == 1);
  after.Play(fives[0]);
  CHECK(check.Vcf(after, kBlack, 100000).proven_win());
}

TEST_CASE("classical: black never plays a renju forbidden point, even the one a freestyle search wants") {
  // Black's double three at (7,7): X X . on row 7 and the column above; under
  // freestyle it is a winning threat, under renju it is forbidden.
  const Board renju =
      ClassicalPlayed({{7, 5}, {0, 0}, {7, 6}, {0, 14}, {5, 7}, {14, 0}, {6, 7}, {14, 14}}, Rule::kRenju);
  REQUIRE(renju.to_move() == kBlack);
  REQUIRE(IsForbiddenForBlack(renju, P(15, 7, 7)));
  for (int64_t n : {1, 100, 3000}) {
    const ClassicalResult r = ClassicalMove(renju, n);
    CHECK(r.move != P(15, 7, 7));
    CHECK(renju.IsLegal(r.move));
  }
  // Random renju middle games: every answer is legal for the side to move.
  for (const Board& p : ClassicalRandomPositions(Rule::kRenju, 30, 14, 7)) {
    const ClassicalResult r = ClassicalMove(p, 300);
    CHECK(p.IsLegal(r.move));
  }
}

TEST_CASE("classical: the node limit holds and the move is legal at every limit") {
  for (const Board& p : ClassicalRandomPositions(Rule::kFreestyle, 20, 12, 3)) {
    for (int64_t n : {1, 7, 100, 2000}) {
      const ClassicalResult r = ClassicalMove(p, n);
      CHECK(r.nodes <= n);
      CHECK(p.IsLegal(r.move));
    }
  }
  // More nodes search deeper on a quiet position.
  Board quiet = ClassicalPlayed({{7, 7}, {7, 8}, {8, 7}});
  const ClassicalResult small = ClassicalMove(quiet, 100), big = ClassicalMove(quiet, 20000);
  CHECK(big.depth > small.depth);
  CHECK(big.nodes > small.nodes);
  CHECK_THROWS_AS(ClassicalSearch(ClassicalOptions{0}), ConfigError);
  Board over = ClassicalPlayed({{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {0, 4}});
  REQUIRE(over.terminal());
  CHECK_THROWS_AS(ClassicalMove(over, 10), RulesError);
}

TEST_CASE("classical: deterministic for a position and a node limit, whatever was searched before") {
  const std::vector<Board> positions = ClassicalRandomPositions(Rule::kFreestyle, 10, 10, 11);
  ClassicalSearch reused(ClassicalOptions{1500});
  for (const Board& p : positions) {
    const ClassicalResult a = ClassicalMove(p, 1500);
    const ClassicalResult b = reused.Search(p);
    CHECK(a.move == b.move);
    CHECK(a.score == b.score);
    CHECK(a.nodes == b.nodes);
    CHECK(a.pv == b.pv);
  }
}

TEST_CASE("classical: a raised stop flag or a passed deadline ends the search within 256 nodes") {
  const std::vector<Board> positions = ClassicalRandomPositions(Rule::kFreestyle, 6, 10, 21);
  std::atomic<bool> raised{true}, lowered{false};
  int cut = 0;  // positions where the alpha-beta part ran past 256 nodes
  for (const Board& p : positions) {
    ClassicalSearch s(ClassicalOptions{50000});
    // Unset limits: the deterministic search, node for node.
    ClassicalLimits none;
    none.stop = &lowered;
    none.interrupt = &lowered;
    const ClassicalResult full = s.Search(p, none), plain = s.Search(p);
    CHECK(full.move == plain.move);
    CHECK(full.nodes == plain.nodes);
    if (full.reason != "search" || full.nodes <= 256) continue;  // decided before the alpha-beta part
    ++cut;
    ClassicalLimits stop;
    stop.stop = &raised;
    ClassicalLimits interrupt;
    interrupt.interrupt = &raised;
    ClassicalLimits late;
    late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    for (const ClassicalLimits* l : {&stop, &interrupt, &late}) {
      const ClassicalResult r = s.Search(p, *l);
      CHECK(r.nodes <= 256);
      CHECK(r.nodes < full.nodes);
      CHECK(p.IsLegal(r.move));
    }
  }
  CHECK(cut >= 3);
}

TEST_CASE("classical: excluded root moves are never played, a win on one is passed over") {
  // Black to move wins at (7,8) (see "takes a win in one").
  Board b = ClassicalPlayed({{7, 4}, {7, 3}, {7, 5}, {0, 0}, {7, 6}, {0, 14}, {7, 7}, {14, 0}});
  ClassicalSearch s(ClassicalOptions{2000});
  ClassicalLimits limits;
  limits.excluded = {P(15, 7, 8)};
  const ClassicalResult r = s.Search(b, limits);
  CHECK(r.move != P(15, 7, 8));
  CHECK(b.IsLegal(r.move));
  // White must block a four: with the block excluded it still plays a legal move.
  Board w = ClassicalPlayed({{7, 4}, {0, 0}, {7, 5}, {0, 14}, {7, 6}, {14, 0}, {7, 7}});
  REQUIRE(w.to_move() == kWhite);
  const ClassicalResult forced = s.Search(w);
  limits.excluded = {forced.move};
  const ClassicalResult other = s.Search(w, limits);
  CHECK(other.move != forced.move);
  CHECK(w.IsLegal(other.move));
  // Quiet positions: the root's 20 best minus the excluded ones.
  for (const Board& p : ClassicalRandomPositions(Rule::kFreestyle, 4, 8, 5)) {
    const ClassicalResult first = s.Search(p);
    limits.excluded = {first.move};
    const ClassicalResult second = s.Search(p, limits);
    CHECK(second.move != first.move);
    CHECK(p.IsLegal(second.move));
  }
  limits.excluded = b.LegalMoves();
  CHECK_THROWS_AS(s.Search(b, limits), GomokuError);
}
