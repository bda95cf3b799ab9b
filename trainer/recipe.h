// The training side of the self-play recipe (docs/trainer.md "Self-play recipe"): the power-law replay window, the cap
// on training samples per new sample, and the resignation false-positive
// report.  Pure functions of the config and the records.
// Thread-safety: free functions, no state.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config/config.h"
#include "common/data/game_record.h"

namespace gz {

// The power-law window (KataGo) over the run's self-play samples so far N
// (train.window_power_alpha > 0): with c = window_min_samples,
//   N <= c:  N (everything)
//   N >  c:  c * (1 + beta * ((N / c)^alpha - 1) / alpha)
// rounded down.  0 when the window is off (no cap in samples).
int64_t PowerLawWindowSamples(const TrainConfig& c, int64_t run_samples);

// Training steps of an iteration that brought `new_samples` samples:
// train_batches, reduced (train.max_samples_per_new_sample > 0) so that
// steps * batch_size <= cap * new_samples, but never below 1.
int CappedTrainSteps(const TrainConfig& c, int64_t new_samples);

// lc0's resign_report over one iteration's games.  A false positive is a game
// that never resigns (resign_disabled) in which the resignation rule held
// (would_resign_move >= 0) but the side that would have resigned did not lose.
struct ResignReport {
  int64_t games = 0;             // games with resignation on
  int64_t resigned = 0;
  int64_t disabled = 0;          // games that never resign
  int64_t disabled_would_resign = 0;
  int64_t false_positives = 0;
  // false_positives / disabled_would_resign (0 when none would have resigned).
  double false_positive_rate() const {
    return disabled_would_resign > 0 ? static_cast<double>(false_positives) / disabled_would_resign : 0.0;
  }
  nlohmann::json ToJson() const;
};
ResignReport MakeResignReport(const std::vector<const GameRecord*>& games);

}  // namespace gz
