// Late games at one training step (docs/trainer.md "Late games"): which of the
// late files a collection returned join the step's replay window, which are
// already older than the window, and the run's ledger of self-play positions
// that were never in any replay window.
//
// The rule is the replay window's (ReplayBuffer::InWindow): a late game counts
// by the iteration it was played for, so it ages out with that iteration's
// on-time games.  Thread-safety: plain values and free functions.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainer/game_collector.h"
#include "trainer/trainer_state.h"

namespace gz {

struct LateSplit {
  std::vector<const LateGame*> used;      // in the window of the step
  std::vector<const LateGame*> aged_out;  // played for an iteration the window has left
  int64_t used_samples = 0;
  int64_t aged_out_samples = 0;
};
// Splits `late` (sorted by (iteration, file)) for training step `step` with a
// window of `window` iterations; the order of `late` is kept.
LateSplit SplitLateGames(const std::vector<LateGame>& late, int64_t step, int window);

LateEntry ToLateEntry(const LateGame& g);

// [{"iteration":L,"model_generation":G,"games":n}] per (L, G), ascending: what
// generations.jsonl's `late_from` shows of the late games a step used.
nlohmann::json LateOrigins(const std::vector<LateEntry>& used);

// Self-play positions (searched moves of usable game files) the trainer
// received over the run, and how many of them never entered a replay window
// (late games that arrived already aged out).  Persisted in each step's game
// manifest (run_positions, run_never_trained) so that a restart goes on
// counting from the last closed step.
struct PositionLedger {
  int64_t received = 0;
  int64_t never_trained = 0;
  double never_trained_share() const { return received > 0 ? static_cast<double>(never_trained) / received : 0.0; }
};

}  // namespace gz
