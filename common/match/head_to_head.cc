#include "common/match/head_to_head.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"

namespace gz {

nlohmann::json ArenaResult::ToJson() const {
  nlohmann::json j = {{"games", games}, {"wins", wins},   {"draws", draws},     {"losses", losses},    {"score", score},
                      {"elo", elo},     {"elo_low", elo_low}, {"elo_high", elo_high}, {"forfeits", forfeits}};
  for (int k = 0; k < 2; ++k) {
    const auto& t = by_colour[static_cast<size_t>(k)];
    const int n = t[0] + t[1] + t[2];
    j[k == 0 ? "a_as_black" : "a_as_white"] = {
        {"wins", t[0]}, {"draws", t[1]}, {"losses", t[2]}, {"score", n ? (t[0] + 0.5 * t[1]) / n : 0.0}};
  }
  return j;
}

nlohmann::json ArenaResult::GamesJson(const std::string& a_name, const std::string& b_name) const {
  nlohmann::json out = nlohmann::json::array();
  for (const ArenaGame& g : played) {
    const GameResult& r = g.result;
    out.push_back({{"opening", g.opening},
                   {"a_colour", g.a_black ? "black" : "white"},
                   {"black", g.a_black ? a_name : b_name},
                   {"white", g.a_black ? b_name : a_name},
                   {"moves", r.moves},
                   {"winner", r.winner == kBlack ? "black" : r.winner == kWhite ? "white" : "draw"},
                   {"end", r.end},
                   {"reason", r.reason},
                   {"seconds", r.seconds}});
  }
  return out;
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
  return PlayMatch(a, b, cfg, games, OpeningSet(cfg.board.size, cfg.rule(), openings));
}

ArenaResult PlayMatch(MatchPlayer& a, MatchPlayer& b, const Config& cfg, int games, const std::vector<Opening>& set) {
  ArenaResult r;
  for (int g = 0; g < games; ++g) {
    const bool a_black = g % 2 == 0;
    GameResult game = a_black ? PlayGame(a, b, cfg.board.size, cfg.rule(), OpeningForGame(set, g))
                              : PlayGame(b, a, cfg.board.size, cfg.rule(), OpeningForGame(set, g));
    const int8_t a_colour = a_black ? kBlack : kWhite;
    ++r.games;
    const int outcome = game.winner == 0 ? 1 : game.winner == a_colour ? 0 : 2;  // W, D, L
    if (outcome == 1) ++r.draws;
    else if (outcome == 0) ++r.wins;
    else ++r.losses;
    ++r.by_colour[a_black ? 0 : 1][static_cast<size_t>(outcome)];
    r.played.push_back({OpeningForGame(set, g), a_black, game});
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
