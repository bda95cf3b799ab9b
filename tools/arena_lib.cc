#include "tools/arena_lib.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/search/mcts.h"
#include "common/net/net_api.h"
#include "common/search/simple_evaluators.h"

namespace gz {

ArenaPlayer MakeArenaPlayer(const std::string& spec, const Config& cfg, uint64_t seed) {
  ArenaPlayer p;
  p.spec = spec;
  auto colon = spec.find(':');
  if (colon == std::string::npos) GOMOKU_THROW(ConfigError, "player spec '" << spec << "': expected kind:ARG");
  std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  auto parse_int = [&](const std::string& s) {
    try {
      size_t pos = 0;
      int v = std::stoi(s, &pos);
      if (pos != s.size() || v < 1) throw std::invalid_argument("x");
      return v;
    } catch (const std::exception&) {
      GOMOKU_THROW(ConfigError, "player spec '" << spec << "': '" << s << "' is not a positive integer");
    }
  };
  if (kind == "rollout") {
    p.simulations = parse_int(rest);
    p.evaluator = std::make_unique<RolloutEvaluator>(cfg.rule(), 1, seed);
  } else if (kind == "uniform") {
    p.simulations = parse_int(rest);
    p.evaluator = std::make_unique<UniformEvaluator>();
  } else if (kind == "net") {
    std::string path = rest;
    p.simulations = cfg.mcts.simulations;
    auto c2 = rest.rfind(':');
    if (c2 != std::string::npos && c2 + 1 < rest.size() &&
        rest.find_first_not_of("0123456789", c2 + 1) == std::string::npos) {
      path = rest.substr(0, c2);
      p.simulations = parse_int(rest.substr(c2 + 1));
    }
    CheckpointExpect expect;
    expect.board_size = cfg.board.size;
    p.evaluator = LoadLocalEvaluator(path, cfg.inference.device, cfg.inference.threads,
                                     ParseSymmetryMode(cfg.inference.symmetry), expect);
  } else {
    GOMOKU_THROW(ConfigError, "player spec '" << spec << "': unknown kind '" << kind << "' (net, rollout, uniform)");
  }
  return p;
}

nlohmann::json ArenaResult::ToJson() const {
  return {{"games", games}, {"wins", wins},   {"draws", draws},       {"losses", losses},
          {"score", score}, {"elo", elo},     {"elo_low", elo_low},   {"elo_high", elo_high}};
}

void ComputeElo(ArenaResult* r) {
  auto to_elo = [](double s) {
    s = std::clamp(s, 1e-4, 1 - 1e-4);
    return -400.0 * std::log10(1.0 / s - 1.0);
  };
  const double g = std::max(1, r->games);
  r->score = (r->wins + 0.5 * r->draws) / g;
  // Per-game variance of the score; normal approximation for the mean.
  double var = (r->wins * std::pow(1 - r->score, 2) + r->draws * std::pow(0.5 - r->score, 2) +
                r->losses * std::pow(r->score, 2)) / g;
  double half = 1.96 * std::sqrt(var / g);
  // Keep the interval finite at 0% / 100% scores: shrink toward 0.5 by half a game.
  double s = std::clamp(r->score, 0.5 / g, 1 - 0.5 / g);
  r->elo = to_elo(s);
  r->elo_low = to_elo(std::max(s - half, 0.5 / g / 2));
  r->elo_high = to_elo(std::min(s + half, 1 - 0.5 / g / 2));
}

namespace {
// Returns the winner colour (0 draw).
int8_t PlayOne(ArenaPlayer& black, ArenaPlayer& white, const Config& cfg, const std::vector<int>& opening,
               uint64_t seed) {
  Board board(cfg.board.size, cfg.rule());
  for (int m : opening) board.Play(m);
  MctsParams params = cfg.mcts;
  params.dirichlet_alpha = 0;
  params.tree_reuse = false;
  std::mt19937_64 rng(seed);
  while (!board.terminal()) {
    ArenaPlayer& p = board.to_move() == kBlack ? black : white;
    params.simulations = p.simulations;
    Mcts mcts(params, rng());
    mcts.Reset(board);
    mcts.Search(*p.evaluator, /*add_noise=*/false);
    board.Play(PickMove(mcts.VisitCounts(), 0.0f, rng));
  }
  Outcome o = board.outcome();
  return o == Outcome::kBlackWins ? kBlack : o == Outcome::kWhiteWins ? kWhite : 0;
}
}  // namespace

ArenaResult PlayMatch(ArenaPlayer& a, ArenaPlayer& b, const Config& cfg, int games, int openings, uint64_t seed) {
  ArenaResult r;
  std::mt19937_64 rng(seed);
  std::vector<int> opening;
  for (int g = 0; g < games; ++g) {
    if (g % 2 == 0) {  // a new opening for each pair of games
      Board b0(cfg.board.size, cfg.rule());
      opening.clear();
      for (int i = 0; i < openings; ++i) {
        auto legal = b0.LegalMoves();
        int m = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
        b0.Play(m);
        opening.push_back(m);
      }
    }
    bool a_black = g % 2 == 0;
    int8_t w = a_black ? PlayOne(a, b, cfg, opening, rng()) : PlayOne(b, a, cfg, opening, rng());
    ++r.games;
    if (w == 0) ++r.draws;
    else if ((w == kBlack) == a_black) ++r.wins;
    else ++r.losses;
    spdlog::info("game {}/{}: A ({}) as {} -> {}; A so far +{} ={} -{}", g + 1, games, a.spec,
                 a_black ? "black" : "white", w == 0 ? "draw" : ((w == kBlack) == a_black ? "A wins" : "B wins"),
                 r.wins, r.draws, r.losses);
  }
  ComputeElo(&r);
  return r;
}

}  // namespace gz
