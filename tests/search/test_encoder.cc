#include <catch2/catch.hpp>
#include <set>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/search/symmetric_batch.h"
#include "common/game/symmetry.h"

using namespace gz;

TEST_CASE("encoder planes: own, opponent, last move, colour") {
  const int n = 7, pts = n * n;
  Board b(n);
  b.Play(10);  // black
  b.Play(20);  // white
  b.Play(30);  // black; white to move
  std::vector<float> x(PlaneFloats(n));
  EncodePosition(b.ToPosition(), 0, x.data());
  // White to move: own = white stones.
  CHECK(x[0 * pts + 20] == 1.0f);
  CHECK(x[0 * pts + 10] == 0.0f);
  CHECK(x[1 * pts + 10] == 1.0f);
  CHECK(x[1 * pts + 30] == 1.0f);
  CHECK(x[2 * pts + 30] == 1.0f);
  float sum_last = 0, sum_own = 0, sum_col = 0;
  for (int p = 0; p < pts; ++p) {
    sum_last += x[2 * pts + p];
    sum_own += x[0 * pts + p];
    sum_col += x[3 * pts + p];
  }
  CHECK(sum_last == 1.0f);
  CHECK(sum_own == 1.0f);
  CHECK(sum_col == 0.0f);  // white to move
  b.Play(40);              // black to move now
  EncodePosition(b.ToPosition(), 0, x.data());
  for (int p = 0; p < pts; ++p) CHECK(x[3 * pts + p] == 1.0f);
  CHECK(x[0 * pts + 10] == 1.0f);  // black's own
  for (int p = 0; p < pts; ++p) CHECK(x[4 * pts + p] == 0.0f);  // freestyle: no forbidden points
  CHECK(kEncoderVersion == 2);
  CHECK(kNumPlanes == 5);
}

TEST_CASE("encoder plane 4: black's forbidden points under renju, for either side to move") {
  const int n = 9, pts = n * n;
  // X X X . X X on row 0: (0,3) is an overline point for black.
  Board b(n, Rule::kRenju);
  for (int m : {0, 80, 1, 78, 2, 76, 4, 74, 5}) b.Play(m);  // white to move
  std::vector<float> x(PlaneFloats(n));
  EncodePosition(b.ToPosition(), 0, x.data());
  for (int p = 0; p < pts; ++p) CHECK(x[4 * pts + p] == (p == 3 ? 1.0f : 0.0f));
  b.Play(60);  // black to move: the same point
  EncodePosition(b.ToPosition(), 0, x.data());
  for (int p = 0; p < pts; ++p) CHECK(x[4 * pts + p] == (p == 3 ? 1.0f : 0.0f));
  // The plane follows the symmetry like every other plane, also through EncodeSymmetric.
  std::vector<float> all8(kNumSymmetries * PlaneFloats(n));
  EncodeSymmetric(b.ToPosition(), SymmetryMode::kAll8, all8.data());
  for (int s = 0; s < kNumSymmetries; ++s) {
    EncodePosition(b.ToPosition(), s, x.data());
    CHECK(x[4 * pts + TransformPoint(s, 3, n)] == 1.0f);
    CHECK(std::equal(x.begin(), x.end(), all8.begin() + s * PlaneFloats(n)));
  }
  // The same stones under standard or freestyle: plane 4 stays zero, planes 0-3 are unchanged.
  Position fs = b.ToPosition();
  fs.rule = Rule::kStandard;
  std::vector<float> y(PlaneFloats(n));
  EncodePosition(fs, 0, y.data());
  EncodePosition(b.ToPosition(), 0, x.data());
  for (int p = 0; p < pts; ++p) CHECK(y[4 * pts + p] == 0.0f);
  CHECK(std::equal(x.begin(), x.begin() + 4 * pts, y.begin()));
  CHECK(ForbiddenPlanePoints(b.ToPosition()) == std::vector<int>{3});
  CHECK(ForbiddenPlanePoints(fs).empty());
  // A blocked point (continuous games) is in no plane.
  Position blocked = fs;
  blocked.cells[40] = kBlocked;
  EncodePosition(blocked, 0, y.data());
  for (int k = 0; k < kNumPlanes; ++k)
    if (k != 3) CHECK(y[k * pts + 40] == 0.0f);
}

TEST_CASE("encoding under a symmetry equals transforming each plane") {
  const int n = 8, pts = n * n;
  Board b(n);
  for (int m : {3, 17, 29, 44, 50}) b.Play(m);
  std::vector<float> base(PlaneFloats(n)), sym(PlaneFloats(n));
  EncodePosition(b.ToPosition(), 0, base.data());
  for (int s = 0; s < kNumSymmetries; ++s) {
    EncodePosition(b.ToPosition(), s, sym.data());
    for (int k = 0; k < kNumPlanes; ++k) {
      std::vector<float> expect(pts);
      TransformPlane(s, base.data() + k * pts, expect.data(), n);
      CHECK(std::equal(expect.begin(), expect.end(), sym.begin() + k * pts));
    }
  }
}

TEST_CASE("empty board has no last-move plane and a bad position is refused") {
  Board b(5);
  std::vector<float> x(PlaneFloats(5));
  EncodePosition(b.ToPosition(), 3, x.data());
  for (int p = 0; p < 25; ++p) CHECK(x[2 * 25 + p] == 0.0f);
  Position bad = b.ToPosition();
  bad.cells.pop_back();
  CHECK_THROWS_AS(EncodePosition(bad, 0, x.data()), GomokuError);
}

TEST_CASE("random symmetry choice is a deterministic function of the position") {
  Board b(9);
  b.Play(5);
  int s1, s2;
  SymmetriesFor(b.ToPosition(), SymmetryMode::kRandom, &s1);
  SymmetriesFor(b.ToPosition(), SymmetryMode::kRandom, &s2);
  CHECK(s1 == s2);
  std::set<int> seen;
  for (int m = 0; m < 81; ++m) {
    Board c(9);
    c.Play(m);
    int s;
    SymmetriesFor(c.ToPosition(), SymmetryMode::kRandom, &s);
    seen.insert(s);
  }
  CHECK(seen.size() == 8);  // all symmetries get used
  CHECK_THROWS_AS(ParseSymmetryMode("seven"), ConfigError);
}
