// Head-to-head matches between two players, for measuring strength.
//
// A player is MCTS (no root noise, argmax moves) over an evaluator:
//   net:PATH[:SIMS]   a checkpoint (SIMS default: config mcts.simulations)
//   rollout:N         pure MCTS baseline: N simulations, one random playout each
//   uniform:N         MCTS with a uniform evaluator (no value information)
// Games alternate colours; each pair of games shares a random opening of
// `openings` moves so that deterministic players do not repeat one game.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "common/config/config.h"
#include "common/search/evaluator.h"

namespace gz {

struct ArenaPlayer {
  std::string spec;
  std::unique_ptr<Evaluator> evaluator;
  int simulations = 0;
};
// Throws ConfigError for a malformed spec, ModelError for a bad checkpoint.
ArenaPlayer MakeArenaPlayer(const std::string& spec, const Config& cfg, uint64_t seed);

struct ArenaResult {
  int games = 0, wins = 0, draws = 0, losses = 0;  // from player A's view
  double score = 0;                                  // (W + D/2) / G
  double elo = 0, elo_low = 0, elo_high = 0;         // 95% interval
  nlohmann::json ToJson() const;
};

// Elo difference and 95% interval from per-game scores (1, 0.5, 0).
void ComputeElo(ArenaResult* r);

// Plays `games` games; progress lines go to spdlog.
ArenaResult PlayMatch(ArenaPlayer& a, ArenaPlayer& b, const Config& cfg, int games, int openings, uint64_t seed);

}  // namespace gz
