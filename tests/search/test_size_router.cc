// SizeRouter (common/search/size_router.h) and DrawBoardSize (selfplay.h):
// mixed board sizes (selfplay.board_sizes) never share an inner call.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <vector>

#include "common/base/errors.h"
#include "common/search/selfplay.h"
#include "common/search/size_router.h"

using namespace gz;

namespace {

// Answers value = size / 100 + index-in-call / 1000 and records each call's sizes.
class SizeEcho : public Evaluator {
 public:
  explicit SizeEcho(std::vector<std::vector<int>>* calls) : calls_(calls) {}
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    std::vector<int> sizes;
    for (size_t i = 0; i < positions.size(); ++i) {
      sizes.push_back(positions[i].size);
      results[i].value = positions[i].size / 100.0f + static_cast<float>(positions[i].last_move) / 10000.0f;
      results[i].log_policy.assign(static_cast<size_t>(positions[i].size) * positions[i].size, 0.0f);
    }
    calls_->push_back(sizes);
  }
  std::string Describe() const override { return "echo"; }

 private:
  std::vector<std::vector<int>>* calls_;
};

Position At(int size, int last_move) {
  Board b(size);
  Position p = b.ToPosition();
  p.last_move = last_move;
  return p;
}

}  // namespace

TEST_CASE("SizeRouter: each size's positions go to its own evaluator, results in the caller's order") {
  std::vector<std::vector<int>> calls7, calls9;
  SizeRouter router;
  router.Add(7, std::make_unique<SizeEcho>(&calls7));
  router.Add(9, std::make_unique<SizeEcho>(&calls9));
  std::vector<Position> mixed = {At(9, 1), At(7, 2), At(9, 3), At(7, 4), At(7, 5)};
  std::vector<EvalResult> out(mixed.size());
  router.Evaluate(mixed, out);
  REQUIRE(calls7.size() == 1);
  REQUIRE(calls9.size() == 1);
  CHECK(calls7[0] == std::vector<int>{7, 7, 7});
  CHECK(calls9[0] == std::vector<int>{9, 9});
  for (size_t i = 0; i < mixed.size(); ++i) {
    INFO(i);
    CHECK(out[i].value == Approx(mixed[i].size / 100.0 + mixed[i].last_move / 10000.0));
    CHECK(out[i].log_policy.size() == static_cast<size_t>(mixed[i].size * mixed[i].size));
  }
  // One size: a single pass-through call.
  std::vector<Position> only9 = {At(9, 6), At(9, 7)};
  std::vector<EvalResult> out9(2);
  router.Evaluate(only9, out9);
  CHECK(calls9.size() == 2);
  CHECK(calls7.size() == 1);
  CHECK(out9[1].value == Approx(0.09 + 0.0007));
}

TEST_CASE("SizeRouter: a size with no evaluator is an error naming it, and nothing is evaluated") {
  std::vector<std::vector<int>> calls;
  SizeRouter router;
  router.Add(7, std::make_unique<SizeEcho>(&calls));
  std::vector<Position> bad = {At(7, 1), At(11, 2)};
  std::vector<EvalResult> out(bad.size());
  try {
    router.Evaluate(bad, out);
    FAIL("no error");
  } catch (const GomokuError& e) {
    CHECK(std::string(e.what()).find("board size 11") != std::string::npos);
  }
  CHECK(calls.empty());
  CHECK_THROWS_AS(router.Add(7, std::make_unique<SizeEcho>(&calls)), GomokuError);
  CHECK(router.Describe().find("7x7") != std::string::npos);
}

TEST_CASE("DrawBoardSize: no shares draws nothing; shares are drawn in proportion, per game seed") {
  CHECK(DrawBoardSize({}, 15, 123) == 15);
  const std::vector<std::pair<int, double>> shares = {{15, 6}, {13, 1}, {20, 3}};
  std::map<int, int> count;
  const int n = 20000;
  for (int g = 0; g < n; ++g) {
    const uint64_t seed = GameSeed(7, 2, 3, g);
    const int size = DrawBoardSize(shares, 15, seed);
    CHECK(size == DrawBoardSize(shares, 15, seed));  // a function of the seed alone
    ++count[size];
  }
  REQUIRE(count.size() == 3);
  CHECK(count[15] / double(n) == Approx(0.6).margin(0.02));
  CHECK(count[13] / double(n) == Approx(0.1).margin(0.02));
  CHECK(count[20] / double(n) == Approx(0.3).margin(0.02));
  CHECK(DrawBoardSize({{9, 1}}, 15, 5) == 9);
}
