// The even opening sets (common/game/even_openings.h EvenOpenings, the data files
// common/game/even_openings_*.inc made by tools/even_openings.py): loaded and
// validated, and the default set arena and the evaluator play.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "common/game/even_openings.h"
#include "common/game/tactics.h"
#include "common/match/openings.h"
#include "common/search/classical.h"

using namespace gz;

struct EvenSetSpec {
  int size;
  Rule rule;
  size_t count;
  int lo, hi;  // the central square: rows and columns lo..hi-1
};

TEST_CASE("even openings: 3 stones each, central, legal, distinct under symmetry, quiet and near even") {
  const EvenSetSpec spec = GENERATE(EvenSetSpec{15, Rule::kFreestyle, 24, 5, 10},
                                    EvenSetSpec{20, Rule::kFreestyle, 48, 7, 13},
                                    EvenSetSpec{15, Rule::kRenju, 48, 5, 10});
  INFO("size " << spec.size << " rule " << RuleName(spec.rule));
  const int n = spec.size;
  const std::vector<Opening> set = EvenOpenings(n, spec.rule);
  REQUIRE(set.size() == spec.count);
  std::set<std::vector<int>> keys;
  for (const Opening& o : set) {
    REQUIRE(o.size() == 3);
    Board b(n, spec.rule);
    for (int m : o) {
      CHECK(m / n >= spec.lo);
      CHECK(m / n < spec.hi);
      CHECK(m % n >= spec.lo);
      CHECK(m % n < spec.hi);
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
    keys.insert(CanonicalOpeningKey(o, n));
  }
  CHECK(keys.size() == set.size());
}

TEST_CASE("default openings: the even set where one exists, the random 2-stone set elsewhere") {
  CHECK(DefaultOpeningSet(15, Rule::kFreestyle) == EvenOpenings(15, Rule::kFreestyle));
  CHECK(DefaultOpeningSet(20, Rule::kFreestyle) == EvenOpenings(20, Rule::kFreestyle));
  CHECK(DefaultOpeningSet(15, Rule::kRenju) == EvenOpenings(15, Rule::kRenju));
  CHECK(EvenOpenings(15, Rule::kStandard).empty());
  CHECK(EvenOpenings(9, Rule::kFreestyle).empty());
  CHECK(DefaultOpeningSet(15, Rule::kStandard) == OpeningSet(15, Rule::kStandard, 2));
  CHECK(DefaultOpeningSet(9, Rule::kFreestyle) == OpeningSet(9, Rule::kFreestyle, 2));
}
