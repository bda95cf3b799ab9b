#include <catch2/catch.hpp>
#include <set>

#include "common/game/encoder.h"
#include "common/game/symmetry.h"

using namespace gz;

TEST_CASE("the 8 symmetries are distinct permutations with working inverses") {
  for (int n : {5, 8, 15}) {
    std::set<std::vector<int>> images;
    for (int s = 0; s < kNumSymmetries; ++s) {
      std::vector<int> img(n * n);
      std::set<int> seen;
      for (int p = 0; p < n * n; ++p) {
        img[p] = TransformPoint(s, p, n);
        seen.insert(img[p]);
        CHECK(TransformPoint(InverseSymmetry(s), img[p], n) == p);
      }
      CHECK(seen.size() == static_cast<size_t>(n * n));  // a permutation
      images.insert(img);
    }
    CHECK(images.size() == 8);
  }
  CHECK(InverseSymmetry(0) == 0);
}

TEST_CASE("plane transform round trip and policy untransform") {
  const int n = 7;
  std::vector<float> plane(n * n);
  for (int p = 0; p < n * n; ++p) plane[p] = static_cast<float>(p * 3 + 1);
  for (int s = 0; s < kNumSymmetries; ++s) {
    auto t = TransformPlane(s, plane, n);
    auto back = TransformPlane(InverseSymmetry(s), t, n);
    CHECK(back == plane);
    std::vector<float> un(n * n);
    UntransformPolicy(s, t.data(), un.data(), n);
    CHECK(un == plane);
  }
}

TEST_CASE("symmetry 4 transposes, 1 flips rows, 2 flips columns") {
  const int n = 5;
  CHECK(TransformPoint(4, 1 * n + 3, n) == 3 * n + 1);
  CHECK(TransformPoint(1, 0 * n + 2, n) == 4 * n + 2);
  CHECK(TransformPoint(2, 1 * n + 0, n) == 1 * n + 4);
}
