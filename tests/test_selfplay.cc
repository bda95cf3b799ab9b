#include <catch2/catch.hpp>

#include "common/selfplay.h"
#include "common/simple_evaluators.h"

using namespace gz;

namespace {
SelfPlayParams SmallParams() {
  SelfPlayParams p;
  p.mcts.simulations = 60;
  p.temperature_moves = 4;
  p.random_opening_moves = 1;
  return p;
}
GameRecord PlayOne(uint64_t seed) {
  SelfPlayGame g(SmallParams(), 7, Rule::kFreestyle, seed, 3, 5);
  UniformEvaluator ev;
  PlayGamesBatched({&g}, ev);
  REQUIRE(g.finished());
  return g.record();
}
}  // namespace

TEST_CASE("a self-play game is complete and consistent") {
  GameRecord r = PlayOne(11);
  REQUIRE(r.num_moves() > 0);
  CHECK(r.opening.size() == 1);
  CHECK(r.iteration == 3);
  CHECK(r.model_generation == 5);
  const int pts = 49;
  Board b(7);
  for (int m : r.opening) b.Play(m);
  for (int t = 0; t < r.num_moves(); ++t) {
    CHECK(std::equal(b.cells().begin(), b.cells().end(), r.boards.begin() + t * pts));
    CHECK(r.to_move[t] == b.to_move());
    double s = 0;
    for (int p = 0; p < pts; ++p) s += r.policy[t * pts + p];
    CHECK(s == Approx(1.0).epsilon(1e-4));
    CHECK(r.policy[t * pts + r.moves[t]] > 0.0f);  // the played move was searched
    b.Play(r.moves[t]);
  }
  CHECK(b.terminal());
  Outcome o = b.outcome();
  CHECK(int(r.winner) == (o == Outcome::kDraw ? 0 : o == Outcome::kBlackWins ? 1 : 2));
}

TEST_CASE("same seed -> identical game file bytes; different seed -> different game") {
  CHECK(PlayOne(42).ToNpzBytes() == PlayOne(42).ToNpzBytes());
  CHECK(PlayOne(42).moves != PlayOne(43).moves);
}

TEST_CASE("games batched together equal the same games played alone") {
  std::vector<std::unique_ptr<SelfPlayGame>> games;
  std::vector<SelfPlayGame*> ptrs;
  for (uint64_t s = 100; s < 104; ++s) {
    games.push_back(std::make_unique<SelfPlayGame>(SmallParams(), 7, Rule::kFreestyle, s, 3, 5));
    ptrs.push_back(games.back().get());
  }
  UniformEvaluator ev;
  int64_t calls = PlayGamesBatched(ptrs, ev);
  for (size_t i = 0; i < games.size(); ++i) CHECK(games[i]->record().ToNpzBytes() == PlayOne(100 + i).ToNpzBytes());
  CHECK(calls > 0);
}

TEST_CASE("GameSeed differs across iteration, worker and game index") {
  uint64_t a = GameSeed(1, 1, 0, 0);
  CHECK(a == GameSeed(1, 1, 0, 0));
  CHECK(a != GameSeed(1, 2, 0, 0));
  CHECK(a != GameSeed(1, 1, 1, 0));
  CHECK(a != GameSeed(1, 1, 0, 1));
  CHECK(a != GameSeed(2, 1, 0, 0));
}
