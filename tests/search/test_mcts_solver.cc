// mcts.solver: the threat solver at expansion inside MCTS (proven roots,
// restricted children, MCTS-solver backup) and self-play adjudication
// (selfplay.adjudicate_proven), with the uniform evaluator (deterministic).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/search/mcts.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"
#include "tests/search/search_test_util.h"
#include "tests/search/solver_positions.h"
#include "tests/support/play_games.h"

using namespace gz;
using gz::testing::P, gz::testing::Picture, gz::testing::kFourThree, gz::testing::kOpenFour;
using gz::testing::SolverParams, gz::testing::VisitedMoves;

namespace {

Mcts Searched(const MctsParams& p, const Board& b) {
  Mcts m(p, 1);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, false);
  return m;
}

}  // namespace

TEST_CASE("solver: a five point is played at once and the root is proven won") {
  const Board b = Picture(Rule::kFreestyle, kBlack, kOpenFour);
  Mcts on = Searched(SolverParams(500), b);
  CHECK(on.RootProven() == Proven::kWin);
  CHECK(on.ProvenMove() == P(9, 4, 0));
  CHECK(on.RootVisits() == 1);  // the root's own expansion, then MoveDone
  CHECK(VisitedMoves(on.VisitCounts()) == std::vector<int>{P(9, 4, 0)});
  CHECK(on.RootValue() == 1.0f);
  REQUIRE(on.solver_stats() != nullptr);
  CHECK(on.solver_stats()->proven_wins >= 1);

  Mcts off = Searched(SolverParams(500, false), b);
  CHECK(off.RootProven() == Proven::kNone);
  CHECK(off.ProvenMove() == kNoMove);
  CHECK(off.RootVisits() == 500);
  CHECK(off.solver_stats() == nullptr);
}

TEST_CASE("solver: facing an open four the root is proven lost; the search goes on among the blocks") {
  Board b = Picture(Rule::kFreestyle, kWhite, kOpenFour);
  Mcts m = Searched(SolverParams(300), b);
  CHECK(m.RootProven() == Proven::kLoss);
  CHECK(m.RootValue() == -1.0f);
  CHECK(m.RootVisits() == 300);
  const std::vector<int> visited = VisitedMoves(m.VisitCounts());
  REQUIRE_FALSE(visited.empty());
  for (int v : visited) CHECK((v == P(9, 4, 0) || v == P(9, 4, 5)));
}

TEST_CASE("solver: facing a four-three only refutations are searched") {
  const Board w = Picture(Rule::kFreestyle, kWhite, kFourThree);
  NodeSolver s(1000);
  const NodeVerdict v = s.Analyse(w);
  REQUIRE(v.restricted);
  Mcts m = Searched(SolverParams(400), w);
  CHECK(m.RootProven() == Proven::kNone);
  for (int x : VisitedMoves(m.VisitCounts())) CHECK(std::find(v.moves.begin(), v.moves.end(), x) != v.moves.end());
  // Without the solver the search wanders over the whole board.
  Mcts off = Searched(SolverParams(400, false), w);
  CHECK(VisitedMoves(off.VisitCounts()).size() > v.moves.size());
}

TEST_CASE("MCTS-solver backup: a proven-lost child proves its parent won; all children proven won: lost") {
  // VCF budget 1: the root's four-three (two moves deep) is beyond the
  // solver, but after (5,6) and the forced block (5,7) black has an open four
  // in one, which budget 1 sees.  The proof must come up the tree.
  const Board b = Picture(Rule::kFreestyle, kBlack, kFourThree);
  NodeSolver shallow(1);
  REQUIRE(shallow.Analyse(b).proven == Proven::kNone);
  Mcts m = Searched(SolverParams(5000, true, 1), b);
  REQUIRE(m.RootProven() == Proven::kWin);
  CHECK(m.ProvenMove() == P(11, 5, 6));
  CHECK(m.RootVisits() < 5000);  // the proven win ended the search
  CHECK(VisitedMoves(m.VisitCounts()) == std::vector<int>{P(11, 5, 6)});
  // (5,6)'s only child (the block) is proven won for black, so (5,6) is lost for white.
  m.Advance(P(11, 5, 6));
  CHECK(m.RootProven() == Proven::kLoss);
  m.Advance(P(11, 5, 7));
  CHECK(m.RootProven() == Proven::kWin);

  // Solver off on the same position: nothing is ever proven.
  Mcts off = Searched(SolverParams(2000, false, 1), b);
  CHECK(off.RootProven() == Proven::kNone);
  CHECK(off.RootVisits() == 2000);
}

TEST_CASE("solver on, nothing to prove: the search is the solver-off search") {
  for (int n : {9, 15}) {
    Board b(n);
    b.Play(P(n, n / 2, n / 2));
    b.Play(P(n, n / 2, n / 2 + 1));
    Mcts on = Searched(SolverParams(300), b);
    Mcts off = Searched(SolverParams(300, false), b);
    CHECK(on.VisitCounts() == off.VisitCounts());
    CHECK(on.RootValue() == off.RootValue());
    CHECK(on.RootProven() == Proven::kNone);
  }
}

namespace {

SelfPlayParams GameParams(bool adjudicate) {
  SelfPlayParams p;
  p.mcts.simulations = 80;
  p.mcts.solver = true;
  p.temperature_moves = 6;
  p.random_opening_moves = 2;
  p.adjudicate_proven = adjudicate;
  return p;
}

std::unique_ptr<SelfPlayGame> Game(bool adjudicate, uint64_t seed) {
  return std::make_unique<SelfPlayGame>(GameParams(adjudicate), 9, Rule::kFreestyle, seed, 1, 2);
}

}  // namespace

TEST_CASE("adjudication: the game ends when the root is proven, with the result the full game reaches") {
  std::vector<std::unique_ptr<SelfPlayGame>> adj, full;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    adj.push_back(Game(true, seed));
    full.push_back(Game(false, seed));
  }
  UniformEvaluator ev;
  PlayTogether(adj, ev);  // the production driver (PlayGamesStreaming), all games in flight
  PlayTogether(full, ev);
  int adjudicated = 0, wins = 0;
  for (size_t i = 0; i < adj.size(); ++i) {
    INFO("game " << i);
    REQUIRE(adj[i]->finished());
    REQUIRE(full[i]->finished());
    const GameRecord& a = adj[i]->record();
    const GameRecord& f = full[i]->record();
    CHECK_FALSE(f.adjudicated);
    CHECK(a.opening == f.opening);
    if (!a.adjudicated) {
      CHECK(a.ToNpzBytes() == f.ToNpzBytes());
      continue;
    }
    ++adjudicated;
    // The same game up to the adjudication, then the same result.
    REQUIRE(a.num_moves() <= f.num_moves());
    CHECK(std::equal(a.moves.begin(), a.moves.end(), f.moves.begin()));
    CHECK(std::equal(a.boards.begin(), a.boards.end(), f.boards.begin()));
    CHECK(std::equal(a.policy.begin(), a.policy.end(), f.policy.begin()));
    CHECK(a.winner == f.winner);
    CHECK(a.winner != 0);
    CHECK(f.num_moves() > a.num_moves());
    // The board where the game stopped is not over, and (a proven win) the
    // last sample is the winner's one-hot proven move.
    CHECK_FALSE(adj[i]->board().terminal());
    const int pts = 81, t = a.num_moves() - 1;
    if (t >= 0 && a.to_move[t] == a.winner && adj[i]->board().to_move() == a.winner) {
      ++wins;
      CHECK(a.q[t] == 1.0f);
      CHECK(a.policy[t * pts + a.moves[t]] == 1.0f);
    }
    // The file says so, and reads back.
    GameRecord back = GameRecord::FromNpzBytes(a.ToNpzBytes(), "adjudicated");
    CHECK(back.adjudicated);
    CHECK(back.winner == a.winner);
  }
  CHECK(adjudicated >= 4);
  CHECK(wins >= 1);
  // A game that was not adjudicated writes today's arrays only.
  const std::string plain = full[0]->record().ToNpzBytes();
  CHECK(plain.find("adjudicated") == std::string::npos);
  CHECK_FALSE(GameRecord::FromNpzBytes(plain, "plain").adjudicated);
}

TEST_CASE("config keys mcts.solver, mcts.solver_vcf_nodes and selfplay.adjudicate_proven reach the search") {
  Config d = Config::Load("", {});
  CHECK_FALSE(d.mcts.solver);
  CHECK_FALSE(d.selfplay_params().adjudicate_proven);
  Config c = Config::Load("", {"mcts.solver=true", "mcts.solver_vcf_nodes=50", "selfplay.adjudicate_proven=true"});
  const SelfPlayParams p = c.selfplay_params();
  CHECK(p.mcts.solver);
  CHECK(p.mcts.solver_vcf_nodes == 50);
  CHECK(p.adjudicate_proven);
  CHECK_THROWS_AS(Config::Load("", {"mcts.solver_vcf_nodes=0"}), ConfigError);
}

TEST_CASE("mcts.solver_vct_nodes: off by default, a play setting, reaches the search; old checkpoints keep the default") {
  Config d = Config::Load("", {});
  CHECK(d.mcts.solver_vct_nodes == 0);
  const auto& keys = Config::PlaySettingKeys();
  CHECK(std::find(keys.begin(), keys.end(), "mcts.solver_vct_nodes") != keys.end());
  // A checkpoint written before the key existed carries no value for it: the default stays.
  Config old = Config::Load("", {});
  old.AdoptPlaySettings({{"mcts.solver", "true"}, {"mcts.solver_vcf_nodes", "1000"}}, "checkpoint old.pt");
  CHECK(old.mcts.solver);
  CHECK(old.mcts.solver_vct_nodes == 0);
  Config c = Config::Load("", {"mcts.solver=true", "mcts.solver_vct_nodes=2000"});
  CHECK(c.selfplay_params().mcts.solver_vct_nodes == 2000);
  CHECK(c.PlaySettings().at("mcts.solver_vct_nodes") == "2000");
  CHECK_THROWS_AS(Config::Load("", {"mcts.solver_vct_nodes=-1"}), ConfigError);

  // In the search: black's walled double three (no VCF) is played at once
  // with VCT on; without it the root is not proven.
  const Board b = Picture(Rule::kFreestyle, kBlack, gz::testing::kDoubleThree);
  MctsParams on = SolverParams(50);
  on.solver_vct_nodes = 10'000;
  Mcts won = Searched(on, b);
  CHECK(won.RootProven() == Proven::kWin);
  CHECK(VisitedMoves(won.VisitCounts()) == std::vector<int>{P(11, 5, 5)});
  // The root's own analysis proves it (one simulation: just the root's
  // expansion); without VCT it does not.
  MctsParams one = on;
  one.simulations = 1;
  CHECK(Searched(one, b).RootProven() == Proven::kWin);
  CHECK(Searched(SolverParams(1), b).RootProven() == Proven::kNone);

  // Tree reuse: a root reached by Advance was analysed as a deeper node (no
  // VCT there); Advance asks it again.  Black's (3,5) is not on the board
  // yet, three more points on the diagonal are open; black plays (3,5),
  // white an irrelevant (7,7), and black has the double three.
  std::vector<std::string> rows = gz::testing::kDoubleThree;
  rows[3][5] = '.';
  rows[6][6] = rows[7][7] = rows[8][8] = '.';
  MctsParams reuse = on;
  reuse.simulations = 400;
  reuse.tree_reuse = true;
  Mcts m(reuse, 1);
  m.Reset(Picture(Rule::kFreestyle, kBlack, rows));
  UniformEvaluator ev;
  m.Search(ev, false);
  m.Advance(P(11, 3, 5));
  m.Advance(P(11, 7, 7));
  m.Search(ev, false);
  CHECK(m.RootProven() == Proven::kWin);
  CHECK(VisitedMoves(m.VisitCounts()) == std::vector<int>{P(11, 5, 5)});
}
