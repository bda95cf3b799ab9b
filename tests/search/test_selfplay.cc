#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <map>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"
#include "tests/support/play_games.h"

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
  PlayToEnd(g, ev);
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
  for (uint64_t s = 100; s < 104; ++s)
    games.push_back(std::make_unique<SelfPlayGame>(SmallParams(), 7, Rule::kFreestyle, s, 3, 5));
  UniformEvaluator ev;
  int64_t calls = PlayTogether(games, ev);
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

namespace {
// Counts positions per Evaluate call (to see how full the rounds are).
class RoundRecorder : public Evaluator {
 public:
  void Evaluate(std::span<const Position> p, std::span<EvalResult> r) override {
    sizes.push_back(p.size());
    inner.Evaluate(p, r);
  }
  std::string Describe() const override { return "recorder"; }
  UniformEvaluator inner;
  std::vector<size_t> sizes;
};
}  // namespace

TEST_CASE("streaming keeps every slot busy and plays the same games as alone") {
  const int total = 7, slots = 3;
  int started = 0;
  size_t round_of_last_start = 0;
  std::vector<uint64_t> finished_seeds;
  std::map<uint64_t, std::string> bytes;
  RoundRecorder ev;
  const int64_t calls = PlayGamesStreaming(
      slots,
      [&]() -> std::unique_ptr<SelfPlayGame> {
        if (started == total) return nullptr;
        if (started == total - 1) round_of_last_start = ev.sizes.size();  // index of the round it joins
        return std::make_unique<SelfPlayGame>(SmallParams(), 7, Rule::kFreestyle, 200 + started++, 3, 5);
      },
      [&](std::unique_ptr<SelfPlayGame> g) {
        REQUIRE(g->finished());
        finished_seeds.push_back(g->record().seed);
        bytes[g->record().seed] = g->record().ToNpzBytes();
      },
      ev);
  REQUIRE(finished_seeds.size() == static_cast<size_t>(total));
  for (uint64_t s = 200; s < 200 + total; ++s) CHECK(bytes.at(s) == PlayOne(s).ToNpzBytes());
  CHECK(calls == static_cast<int64_t>(ev.sizes.size()));
  // Until the last game has started every round is full: a finished game's
  // slot is refilled and stepped in the same round.
  REQUIRE(round_of_last_start > 0);
  REQUIRE(round_of_last_start < ev.sizes.size());
  for (size_t i = 0; i <= round_of_last_start; ++i) CHECK(ev.sizes[i] == static_cast<size_t>(slots));
  for (size_t s : ev.sizes) CHECK(s <= static_cast<size_t>(slots));
}

TEST_CASE("streaming: next() returning nullptr ends refills; stop drops games in flight") {
  int asked = 0, done = 0;
  UniformEvaluator ev;
  PlayGamesStreaming(
      4,
      [&]() -> std::unique_ptr<SelfPlayGame> {
        ++asked;
        return asked <= 2 ? std::make_unique<SelfPlayGame>(SmallParams(), 7, Rule::kFreestyle, asked, 3, 5) : nullptr;
      },
      [&](std::unique_ptr<SelfPlayGame>) { ++done; }, ev);
  CHECK(done == 2);
  CHECK(asked == 3);  // never asked again after the first nullptr
  std::atomic<bool> stop{true};
  int done2 = 0;
  CHECK(PlayGamesStreaming(
            2, [&] { return std::make_unique<SelfPlayGame>(SmallParams(), 7, Rule::kFreestyle, 9, 3, 5); },
            [&](std::unique_ptr<SelfPlayGame>) { ++done2; }, ev, &stop) == 0);
  CHECK(done2 == 0);
  CHECK_THROWS_AS(PlayGamesStreaming(0, [] { return std::unique_ptr<SelfPlayGame>(); },
                                     [](std::unique_ptr<SelfPlayGame>) {}, ev),
                  GomokuError);
}

// Renju self-play.  Every black move of every game is a legal
// (non-forbidden) point, the search never gives a forbidden point a child or
// a visit, the record says renju, and the encoder saw the renju rule.
namespace {
class RuleRecorder : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    for (const Position& p : positions) renju_positions += p.rule == Rule::kRenju;
    inner.Evaluate(positions, results);
  }
  std::string Describe() const override { return "rule recorder"; }
  RolloutEvaluator inner{Rule::kRenju, 1, 5};
  int renju_positions = 0;
};
}  // namespace

TEST_CASE("renju self-play on 9x9: black never plays or searches a forbidden point") {
  SelfPlayParams p = SmallParams();
  p.mcts.simulations = 80;
  int black_moves = 0, forbidden_avoided = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SelfPlayGame g(p, 9, Rule::kRenju, seed, 0, 0);
    RuleRecorder ev;
    PlayToEnd(g, ev);
    REQUIRE(g.finished());
    CHECK(ev.renju_positions > 0);
    const GameRecord& r = g.record();
    CHECK(r.rule == Rule::kRenju);
    CHECK(GameRecord::FromNpzBytes(r.ToNpzBytes(), "renju game").rule == Rule::kRenju);
    Board b(9, Rule::kRenju);
    for (int m : r.opening) b.Play(m);
    for (int t = 0; t < r.num_moves(); ++t) {
      if (b.to_move() == kBlack) {
        ++black_moves;
        for (int f : ForbiddenPoints(b)) {
          CHECK(r.policy[t * 81 + f] == 0.0f);  // never searched
          ++forbidden_avoided;
        }
      }
      REQUIRE(b.IsLegal(r.moves[t]));
      b.Play(r.moves[t]);  // would throw on a forbidden point
    }
    CHECK(b.terminal());
  }
  INFO(black_moves << " black moves, " << forbidden_avoided << " forbidden points avoided");
  CHECK(black_moves > 30);
}

TEST_CASE("renju rollouts: black's random playouts never hit a forbidden point") {
  // A position with a forbidden point for black (X X X . X X): rollouts must
  // not throw, and freestyle rollouts of the same stones are unchanged.
  Board b(9, Rule::kRenju);
  for (int m : {0, 80, 1, 78, 2, 76, 4, 74, 5, 60}) b.Play(m);
  REQUIRE(b.to_move() == kBlack);
  REQUIRE(!b.IsLegal(3));
  RolloutEvaluator rj(Rule::kRenju, 200, 3);
  std::vector<Position> pos = {b.ToPosition()};
  std::vector<EvalResult> res(1);
  rj.Evaluate(pos, res);
  CHECK(std::isfinite(res[0].value));
}
