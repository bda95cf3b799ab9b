#include <catch2/catch.hpp>

#include "common/errors.h"
#include "common/mcts.h"
#include "common/simple_evaluators.h"

using namespace gz;

namespace {
int P(int n, int r, int c) { return r * n + c; }
Board Play(int n, const std::vector<int>& moves) {
  Board b(n);
  for (int m : moves) b.Play(m);
  return b;
}
int BestMove(const Board& b, int sims, uint64_t seed = 1) {
  MctsParams p;
  p.simulations = sims;
  p.dirichlet_alpha = 0;
  Mcts m(p, seed);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, false);
  std::mt19937_64 rng(seed);
  return PickMove(m.VisitCounts(), 0.0f, rng);
}
}  // namespace

TEST_CASE("MCTS with the uniform evaluator plays the winning move") {
  const int n = 9;
  // Black has (4,2..5); white scattered.  Black to move; (4,1) or (4,6) wins.
  Board b = Play(n, {P(n, 4, 2), P(n, 0, 0), P(n, 4, 3), P(n, 0, 8), P(n, 4, 4), P(n, 8, 0), P(n, 4, 5), P(n, 8, 8)});
  REQUIRE(b.to_move() == kBlack);
  int m = BestMove(b, 800);
  CHECK((m == P(n, 4, 1) || m == P(n, 4, 6)));
}

TEST_CASE("MCTS with the uniform evaluator blocks the opponent's four") {
  const int n = 7;
  // White has (2,1..4); black holds (2,0), so only (2,5) stops five.
  Board b = Play(n, {P(n, 2, 0), P(n, 2, 1), P(n, 6, 6), P(n, 2, 2), P(n, 6, 0), P(n, 2, 3), P(n, 0, 6),
                     P(n, 2, 4)});
  REQUIRE(b.to_move() == kBlack);
  int m = BestMove(b, 4000);
  CHECK(m == P(n, 2, 5));
}

TEST_CASE("visit distribution sums to one and root value is in range") {
  Board b(7);
  MctsParams p;
  p.simulations = 200;
  Mcts m(p, 3);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, true);
  auto d = m.VisitDistribution();
  double s = 0;
  for (float x : d) s += x;
  CHECK(s == Approx(1.0).epsilon(1e-5));
  CHECK(m.RootVisits() == 200);
  CHECK(m.RootValue() >= -1.0f);
  CHECK(m.RootValue() <= 1.0f);
}

TEST_CASE("search is deterministic for a seed and depends on it (noise)") {
  auto run = [](uint64_t seed) {
    Board b(9);
    MctsParams p;
    p.simulations = 300;
    Mcts m(p, seed);
    m.Reset(b);
    UniformEvaluator ev;
    m.Search(ev, true);
    return m.VisitCounts();
  };
  CHECK(run(7) == run(7));
  CHECK(run(7) != run(8));
}

TEST_CASE("tree reuse keeps the chosen subtree's visits") {
  Board b(7);
  MctsParams p;
  p.simulations = 400;
  p.dirichlet_alpha = 0;
  Mcts m(p, 1);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, false);
  auto counts = m.VisitCounts();
  std::mt19937_64 rng(1);
  int mv = PickMove(counts, 0.0f, rng);
  int child_visits = counts[mv];
  REQUIRE(child_visits > 1);
  m.Advance(mv);
  CHECK(m.RootVisits() == child_visits);
  m.Search(ev, false);
  CHECK(m.RootVisits() == child_visits + 400);
  // Without reuse the tree starts over.
  p.tree_reuse = false;
  Mcts f(p, 1);
  f.Reset(b);
  f.Search(ev, false);
  f.Advance(mv);
  CHECK(f.RootVisits() == 0);
}

TEST_CASE("terminal leaves are scored exactly") {
  const int n = 7;
  // Black to move can win immediately; after search the root value must be high.
  Board b = Play(n, {P(n, 0, 0), P(n, 6, 6), P(n, 0, 1), P(n, 6, 4), P(n, 0, 2), P(n, 4, 6), P(n, 0, 3), P(n, 3, 3)});
  MctsParams p;
  p.simulations = 2000;
  p.dirichlet_alpha = 0;
  Mcts m(p, 1);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, false);
  CHECK(m.RootValue() > 0.8f);
}

TEST_CASE("misuse of the step API is an error, not a crash") {
  MctsParams p;
  p.simulations = 10;
  Mcts m(p, 1);
  m.Reset(Board(7));
  EvalResult r;
  CHECK_THROWS_AS(m.ExpandAndBackup(r), GomokuError);
  m.StartMove(false);
  REQUIRE(m.SelectLeaf() != nullptr);
  CHECK_THROWS_AS(m.SelectLeaf(), GomokuError);
  r.log_policy.assign(10, 0.0f);  // wrong size
  CHECK_THROWS_AS(m.ExpandAndBackup(r), GomokuError);
  CHECK_THROWS_AS(PickMove(std::vector<int>(9, 0), 0.0f, *new std::mt19937_64(1)), GomokuError);
}

TEST_CASE("PickMove: argmax at low temperature, samples only visited moves at tau 1") {
  std::vector<int> v = {0, 5, 9, 0, 1};
  std::mt19937_64 rng(5);
  CHECK(PickMove(v, 0.0f, rng) == 2);
  for (int i = 0; i < 200; ++i) {
    int m = PickMove(v, 1.0f, rng);
    CHECK(v[m] > 0);
  }
}
