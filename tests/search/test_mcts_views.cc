// The read-only analysis views of Mcts (RootChildren, PrincipalVariation) and
// ExcludeRootMoves (common/match/analysis_report.h, YXBLOCK, avoidMoves).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "common/search/mcts.h"
#include "common/search/simple_evaluators.h"
#include "tests/support/board_points.h"

using namespace gz;
using gz::testing::P;

namespace mcts_views_test {

MctsParams Plain(int sims) {
  MctsParams p;
  p.simulations = sims;
  p.dirichlet_alpha = 0.0f;
  p.dirichlet_epsilon = 0.0f;
  return p;
}

Board Opening(int n) {
  Board b(n, Rule::kFreestyle);
  for (int m : {P(n, 4, 4), P(n, 4, 5), P(n, 5, 4)}) b.Play(m);
  return b;
}

int ChildVisits(const Mcts& m) {
  int sum = 0;
  for (const auto& c : m.RootChildren()) sum += c.visits;
  return sum;
}

}  // namespace mcts_views_test

using namespace mcts_views_test;

TEST_CASE("mcts views: root children carry the tree's visits, values and priors") {
  const Board b = Opening(9);
  Mcts m(Plain(300), 3);
  m.Reset(b);
  CHECK(m.RootChildren().empty());  // not expanded yet
  RolloutEvaluator ev(Rule::kFreestyle, 1, 5);
  m.Search(ev, false);
  const auto children = m.RootChildren();
  CHECK(static_cast<int>(children.size()) == 81 - 3);
  CHECK(ChildVisits(m) == m.RootVisits() - 1);
  double priors = 0;
  for (const auto& c : children) {
    CHECK(b.IsLegal(c.move));
    CHECK(c.q >= -1.0);
    CHECK(c.q <= 1.0);
    CHECK(c.proven == Proven::kNone);
    priors += c.prior;
  }
  CHECK(priors == Approx(1.0).epsilon(1e-4));
}

TEST_CASE("mcts views: the principal variation follows the most visited children and is playable") {
  const Board b = Opening(9);
  Mcts m(Plain(400), 3);
  m.Reset(b);
  RolloutEvaluator ev(Rule::kFreestyle, 1, 5);
  m.Search(ev, false);
  const std::vector<int> visits = m.VisitCounts();
  const int best = static_cast<int>(std::max_element(visits.begin(), visits.end()) - visits.begin());
  const std::vector<int> pv = m.PrincipalVariation(kNoMove, 10);
  REQUIRE(!pv.empty());
  CHECK(pv.front() == best);
  CHECK(pv.size() <= 10);
  Board t = b;
  for (int mv : pv) {
    REQUIRE(t.IsLegal(mv));
    t.Play(mv);
  }
  // A given first move, and a move nobody visited.
  for (const auto& c : m.RootChildren()) {
    const std::vector<int> line = m.PrincipalVariation(c.move, 5);
    if (c.visits > 0) CHECK((!line.empty() && line.front() == c.move));
    else CHECK(line.empty());
  }
}

TEST_CASE("mcts views: excluded root moves leave the tree consistent and are never searched again") {
  const Board b = Opening(9);
  Mcts m(Plain(300), 3);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, false);
  std::vector<int> visits = m.VisitCounts();
  std::vector<int> order(visits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int c) { return visits[a] > visits[c]; });
  // The three most visited moves (root children all).
  const std::vector<int> out = {order[0], order[1], order[2]};
  REQUIRE(visits[order[2]] > 0);
  const int before = static_cast<int>(m.RootChildren().size());
  CHECK(m.ExcludeRootMoves(out) == before - 3);
  CHECK(m.CheckTree() == "");
  CHECK(ChildVisits(m) == m.RootVisits() - 1);
  for (const auto& c : m.RootChildren()) CHECK(std::find(out.begin(), out.end(), c.move) == out.end());
  // More search: the excluded moves stay unvisited.
  m.StartMove(false, 300);
  while (!m.MoveDone())
    if (const Position* leaf = m.SelectLeaf()) {
      EvalResult r;
      ev.Evaluate(std::span<const Position>(leaf, 1), std::span<EvalResult>(&r, 1));
      m.ExpandAndBackup(r);
    }
  visits = m.VisitCounts();
  for (int mv : out) CHECK(visits[mv] == 0);
  CHECK(m.CheckTree() == "");
}

TEST_CASE("mcts views: excluding every move the solver left removes nothing") {
  const int n = 9;
  // Black (to move) has a five point at (4,1): the solver keeps only it.
  Board b(n, Rule::kFreestyle);
  for (int mv : {P(n, 4, 2), P(n, 0, 0), P(n, 4, 3), P(n, 0, 8), P(n, 4, 4), P(n, 8, 0), P(n, 4, 5), P(n, 8, 8)})
    b.Play(mv);
  MctsParams p = Plain(5);
  p.solver = true;
  Mcts m(p, 1);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, false);
  REQUIRE(m.RootProven() == Proven::kWin);
  const auto children = m.RootChildren();
  std::vector<int> all;
  for (const auto& c : children) all.push_back(c.move);
  CHECK(m.ExcludeRootMoves(all) == 0);
  CHECK(m.RootChildren().size() == children.size());
  CHECK(m.RootProven() == Proven::kWin);
}
