#include "match/head_to_head.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"

namespace gz {

nlohmann::json ArenaResult::ToJson() const {
  return {{"games", games}, {"wins", wins},   {"draws", draws},     {"losses", losses},    {"score", score},
          {"elo", elo},     {"elo_low", elo_low}, {"elo_high", elo_high}, {"forfeits", forfeits}};
}

void ComputeElo(ArenaResult* r) {
  auto to_elo = [](double s) {
    s = std::clamp(s, 1e-4, 1 - 1e-4);
    return 0.0 - 400.0 * std::log10(1.0 / s - 1.0);  // 0.0 - x: no "-0" for an even score
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

PlayerOptions ArenaPlayerOptions(const Config& cfg, uint64_t seed) {
  return PlayerOptions::FromConfig(cfg, seed, cfg.inference.threads);
}

ArenaResult PlayMatch(MatchPlayer& a, MatchPlayer& b, const Config& cfg, int games, int openings) {
  ArenaResult r;
  const std::vector<Opening> set = OpeningSet(cfg.board.size, cfg.rule(), openings);
  for (int g = 0; g < games; ++g) {
    const bool a_black = g % 2 == 0;
    GameResult game = a_black ? PlayGame(a, b, cfg.board.size, cfg.rule(), OpeningForGame(set, g))
                              : PlayGame(b, a, cfg.board.size, cfg.rule(), OpeningForGame(set, g));
    const int8_t a_colour = a_black ? kBlack : kWhite;
    ++r.games;
    if (game.winner == 0) ++r.draws;
    else if (game.winner == a_colour) ++r.wins;
    else ++r.losses;
    if (game.end == "forfeit") r.forfeits.push_back(game.reason);
    spdlog::info("game {}/{}: A ({}) as {} -> {} ({}); A so far +{} ={} -{}", g + 1, games, a.name(),
                 a_black ? "black" : "white",
                 game.winner == 0 ? "draw" : (game.winner == a_colour ? "A wins" : "B wins"), game.reason, r.wins,
                 r.draws, r.losses);
  }
  ComputeElo(&r);
  return r;
}

}  // namespace gz
