// Head-to-head matches between two players, for measuring strength, on the
// match module (match/game.h, docs/ratings.md).
//
// Players: net:PATH[:SIMS], rollout:N, uniform:N, engine:COMMAND.  In-process
// players use the engine's tactics and fixed simulations without noise.
// Games alternate colours; games 2k and 2k+1 share opening k of the fixed
// opening set (match/openings.h) of `openings` moves.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/config/config.h"
#include "match/game.h"

namespace gz {

struct ArenaResult {
  int games = 0, wins = 0, draws = 0, losses = 0;  // from player A's view
  double score = 0;                                  // (W + D/2) / G
  double elo = 0, elo_low = 0, elo_high = 0;         // 95% interval
  std::vector<std::string> forfeits;                 // one reason per forfeited game
  nlohmann::json ToJson() const;
};

// Elo difference and 95% interval from per-game scores (1, 0.5, 0).
void ComputeElo(ArenaResult* r);

// The options arena makes players with: engine limits from eval.engine_*,
// networks on inference.device with inference.threads and inference.symmetry.
PlayerOptions ArenaPlayerOptions(const Config& cfg, uint64_t seed);

// Plays `games` games; progress lines go to spdlog.
ArenaResult PlayMatch(MatchPlayer& a, MatchPlayer& b, const Config& cfg, int games, int openings);

}  // namespace gz
