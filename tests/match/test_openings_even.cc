// The even opening set (common/game/even_openings.h EvenOpenings, the data file
// common/game/even_openings_15x15_freestyle.inc made by tools/even_openings.py):
// loaded and validated, and the default set arena and the evaluator play.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "common/game/even_openings.h"
#include "common/game/symmetry.h"
#include "common/game/tactics.h"
#include "common/match/openings.h"
#include "common/search/classical.h"

using namespace gz;

namespace {
// The stones of an opening under its least symmetry image: equal keys = the same position.
std::vector<int> EvenSetKey(const Opening& o) {
  std::vector<int> best;
  for (int s = 0; s < kNumSymmetries; ++s) {
    std::vector<int> key;
    for (size_t i = 0; i < o.size(); ++i) key.push_back(TransformPoint(s, o[i], 15) * 2 + static_cast<int>(i % 2));
    std::sort(key.begin(), key.end());
    if (best.empty() || key < best) best = key;
  }
  return best;
}
}  // namespace

TEST_CASE("even openings: 24 openings of 3 stones, central, legal, distinct under symmetry, quiet and near even") {
  const std::vector<Opening> set = EvenOpenings(15, Rule::kFreestyle);
  REQUIRE(set.size() == 24);
  std::set<std::vector<int>> keys;
  for (const Opening& o : set) {
    REQUIRE(o.size() == 3);
    Board b(15, Rule::kFreestyle);
    for (int m : o) {
      CHECK(m / 15 >= 5);
      CHECK(m / 15 < 10);
      CHECK(m % 15 >= 5);
      CHECK(m % 15 < 10);
      REQUIRE(b.IsLegal(m));
      b.Play(m);
    }
    CHECK(b.to_move() == kWhite);
    CHECK(FindWinningMove(b) == kNoMove);
    CHECK(FindForcedBlock(b) == kNoMove);
    // The judge's quick look agrees that nobody is far ahead: not a proven result.
    ClassicalSearch judge(ClassicalOptions{2000});
    const ClassicalResult r = judge.Search(b);
    CHECK(r.score < kClassicWinScore / 2);
    CHECK(r.score > -kClassicWinScore / 2);
    keys.insert(EvenSetKey(o));
  }
  CHECK(keys.size() == set.size());
}

TEST_CASE("default openings: the even set on 15x15 freestyle, the random 2-stone set elsewhere") {
  CHECK(DefaultOpeningSet(15, Rule::kFreestyle) == EvenOpenings(15, Rule::kFreestyle));
  CHECK(EvenOpenings(15, Rule::kRenju).empty());
  CHECK(EvenOpenings(9, Rule::kFreestyle).empty());
  CHECK(DefaultOpeningSet(15, Rule::kRenju) == OpeningSet(15, Rule::kRenju, 2));
  CHECK(DefaultOpeningSet(9, Rule::kFreestyle) == OpeningSet(9, Rule::kFreestyle, 2));
}
