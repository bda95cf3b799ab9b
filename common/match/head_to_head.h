// Head-to-head matches between two players, for measuring strength, on the
// match module (common/match/game.h, docs/ratings.md).
//
// Players: net:PATH[:SIMS], rollout:N, classical:N, uniform:N, engine:COMMAND.
// In-process players use the engine's tactics and fixed simulations without
// noise.  Games alternate colours; games 2k and 2k+1 share opening k of the
// opening set (common/match/openings.h: the default set, or the random set of
// `openings` moves).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/config/config.h"
#include "common/match/game.h"

namespace gz {

// One game of a match, as the match's data file records it.
struct ArenaGame {
  Opening opening;
  bool a_black = true;
  GameResult result;
};

struct ArenaResult {
  int games = 0, wins = 0, draws = 0, losses = 0;  // from player A's view
  // The same split by A's colour: [0] A as black, [1] A as white.
  std::array<std::array<int, 3>, 2> by_colour{};   // {wins, draws, losses}
  double score = 0;                                  // (W + D/2) / G
  double elo = 0, elo_low = 0, elo_high = 0;         // 95% interval
  std::vector<std::string> forfeits;                 // one reason per forfeited game
  std::vector<ArenaGame> played;                     // every game, in order
  // The summary (not the games): W/D/L, score, Elo, forfeits and
  // "a_as_black" / "a_as_white" {wins, draws, losses, score}.
  nlohmann::json ToJson() const;
  // Each game: opening, A's colour, black and white names, moves, winner
  // ("black" / "white" / "draw"), end, reason, seconds.
  nlohmann::json GamesJson(const std::string& a_name, const std::string& b_name) const;
};

// Elo difference and 95% interval from per-game scores (1, 0.5, 0).
void ComputeElo(ArenaResult* r);

// The options arena makes players with: engine limits from eval.engine_*,
// networks on inference.device with inference.threads and inference.symmetry.
PlayerOptions ArenaPlayerOptions(const Config& cfg, uint64_t seed);

// Plays `games` games from `set` (games 2k and 2k+1 on opening k mod its
// size); progress lines go to spdlog.
ArenaResult PlayMatch(MatchPlayer& a, MatchPlayer& b, const Config& cfg, int games, const std::vector<Opening>& set);
// The same from the random set of `openings` moves (OpeningSet).
ArenaResult PlayMatch(MatchPlayer& a, MatchPlayer& b, const Config& cfg, int games, int openings);

}  // namespace gz
