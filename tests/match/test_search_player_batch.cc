// The engine's batched, multi-threaded search (common/match/search_player.h;
// engine.batch, engine.threads): batch 1 on one thread is the single-leaf search; more
// threads and larger batches keep the tree consistent (every simulation
// counted once, reused visits kept) and play legal moves, with the rollout
// baseline (thread-safe, evaluated concurrently) and with a network
// (serialised evaluator).  No timing is asserted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/net/net_api.h"
#include "common/search/mcts.h"
#include "common/search/simple_evaluators.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"
#include "tests/support/board_points.h"

using namespace gz;
using gz::testing::P;

namespace {


// What an EvaluatorSource and a SearchPlayer are made from ("" = the rollout baseline).
struct PlayerSetup {
  std::string weights;
  Config config;
};

PlayerSetup Settings(int batch, int threads, bool solver = false) {
  PlayerSetup s;
  s.config.engine.batch = batch;
  s.config.engine.threads = threads;
  s.config.mcts.solver = solver;
  s.config.inference.threads = 1;
  return s;
}

Board OpeningBoard(int n) {
  Board b(n);
  b.Play(P(n, n / 2, n / 2));
  b.Play(P(n, n / 2, n / 2 + 1));
  b.Play(P(n, n / 2 + 1, n / 2 + 1));
  return b;
}

// `moves` moves of `player` from `b`, each answered by a fixed opponent: the
// legal move at index pick(number of legal moves).  Every move must be legal,
// and every searched one must run exactly max_simulations and count the
// visits it reused.
void PlayAgainstFixedOpponent(SearchPlayer& player, Board b, int moves, int max_simulations,
                              const std::function<size_t(size_t)>& pick) {
  SearchLimits limits;
  limits.max_simulations = max_simulations;
  for (int move = 0; move < moves && !b.terminal(); ++move) {
    const MoveDecision d = player.ChooseMove(b, limits);
    REQUIRE(b.IsLegal(d.move));
    if (d.reason == MoveReason::kSearch) {
      CHECK(d.simulations == max_simulations);
      CHECK(d.root_visits == d.simulations + d.reused_visits);
    }
    b.Play(d.move);
    if (b.terminal()) break;
    const std::vector<int> legal = b.LegalMoves();
    b.Play(legal[pick(legal.size())]);
  }
}

// The top-3 (move, visits) the engine reports, from a visit vector.
std::vector<std::pair<int, int>> Top3(const std::vector<int>& visits) {
  std::vector<std::pair<int, int>> ranked;
  for (int m = 0; m < static_cast<int>(visits.size()); ++m)
    if (visits[m] > 0) ranked.emplace_back(m, visits[m]);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second > b.second; });
  ranked.resize(std::min<size_t>(ranked.size(), 3));
  return ranked;
}

}  // namespace

TEST_CASE("engine batch 1, one thread: the single-leaf search, bit for bit") {
  for (bool solver : {false, true}) {
    INFO("solver " << solver);
    PlayerSetup s = Settings(1, 1, solver);
    EvaluatorSource source(s.weights, s.config);
    SearchPlayer player(source, s.config);
    SearchLimits limits;
    limits.max_simulations = 700;
    const Board b = OpeningBoard(9);
    const MoveDecision d = player.ChooseMove(b, limits);
    REQUIRE(d.reason == MoveReason::kSearch);
    // The same search through Mcts::Search: the engine's parameters (no
    // noise), the same seed and evaluator, 700 simulations.
    MctsParams p = s.config.mcts;
    p.dirichlet_alpha = 0;
    p.dirichlet_epsilon = 0;
    p.simulations = 700;
    Mcts m(p, s.config.run.seed);
    m.Reset(b);
    RolloutEvaluator rollout(b.rule(), 1, s.config.run.seed);
    m.Search(rollout, false);
    CHECK(d.simulations == 700);
    CHECK(d.root_visits == m.RootVisits());
    CHECK(d.value == m.RootValue());
    CHECK(d.top == Top3(m.VisitCounts()));
    CHECK(d.move == Top3(m.VisitCounts()).front().first);
    // A larger batch searches another tree (the comparison can fail).
    PlayerSetup s8 = Settings(8, 1, solver);
    EvaluatorSource source8(s8.weights, s8.config);
    SearchPlayer player8(source8, s8.config);
    const MoveDecision d8 = player8.ChooseMove(b, limits);
    CHECK(d8.simulations == 700);
    CHECK_FALSE((d8.top == d.top && d8.value == d.value));
  }
}

TEST_CASE("engine threads x batch with the rollout baseline: every simulation counted, reuse kept, legal moves") {
  for (int threads : {1, 2, 4}) {
    for (int batch : {1, 8}) {
      INFO(threads << " threads, batch " << batch);
      PlayerSetup s = Settings(batch, threads, /*solver=*/true);
      EvaluatorSource source(s.weights, s.config);
      SearchPlayer player(source, s.config);
      // The opponent: the first legal move next to the centre.
      PlayAgainstFixedOpponent(player, OpeningBoard(11), 4, 1500, [](size_t legal) { return legal / 2; });
    }
  }
}

TEST_CASE("engine threads with a network: the evaluator is serialised; tree consistent, legal moves") {
  std::filesystem::create_directories(GZ_TEST_TMP);
  const std::string ckpt = std::string(GZ_TEST_TMP) + "/engine_batch_9x9.gzck";
  CreateRandomCheckpoint(ckpt, 9, Rule::kFreestyle, 8, 1, /*seed=*/5, /*iteration=*/1, /*model_generation=*/1);
  for (int threads : {1, 3}) {
    INFO(threads << " threads");
    PlayerSetup s = Settings(4, threads, /*solver=*/true);
    s.weights = ckpt;
    s.config.inference.symmetry = "random";
    EvaluatorSource source(s.weights, s.config);
    REQUIRE(source.CheckSize(9) == "");
    SearchPlayer player(source, s.config);
    PlayAgainstFixedOpponent(player, OpeningBoard(9), 3, 400, [](size_t) { return size_t{0}; });
  }
}

TEST_CASE("engine batch: a search past its deadline still costs at most two evaluations, and the stop flag") {
  PlayerSetup s = Settings(16, 1);
  EvaluatorSource source(s.weights, s.config);
  SearchPlayer player(source, s.config);
  SearchLimits limits;
  limits.deadline = std::chrono::steady_clock::now();  // already over
  const Board b(15);
  MoveDecision d = player.ChooseMove(b, limits);
  CHECK(b.IsLegal(d.move));
  CHECK(d.simulations <= 2);
  // The memory budget caps a batched tree as it does a single-leaf one.
  limits.deadline = std::chrono::steady_clock::time_point::max();
  const size_t expansion = Mcts::ExpansionBytes(225);
  limits.tree_memory_bytes = static_cast<int64_t>(expansion * 10);
  player.ClearTree();
  d = player.ChooseMove(b, limits);
  CHECK(d.simulations >= 2);
  CHECK(d.tree_bytes <= expansion * 10);
  CHECK(d.tree_bytes + 2 * expansion > expansion * 10);
}
