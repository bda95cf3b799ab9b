#include "trainer/recipe.h"

#include <algorithm>
#include <cmath>

namespace gz {

int64_t PowerLawWindowSamples(const TrainConfig& c, int64_t run_samples) {
  if (c.window_power_alpha <= 0) return 0;
  const double cmin = c.window_min_samples;
  const double n = static_cast<double>(std::max<int64_t>(run_samples, 0));
  if (n <= cmin) return std::max<int64_t>(run_samples, 1);
  const double a = c.window_power_alpha;
  return static_cast<int64_t>(std::floor(cmin * (1.0 + c.window_power_beta * (std::pow(n / cmin, a) - 1.0) / a)));
}

int CappedTrainSteps(const TrainConfig& c, int64_t new_samples) {
  if (c.max_samples_per_new_sample <= 0) return c.train_batches;
  const double allowed = c.max_samples_per_new_sample * static_cast<double>(std::max<int64_t>(new_samples, 0));
  const int64_t steps = static_cast<int64_t>(std::floor(allowed / c.batch_size));
  return static_cast<int>(std::clamp<int64_t>(steps, 1, c.train_batches));
}

ResignReport MakeResignReport(const std::vector<const GameRecord*>& games) {
  ResignReport r;
  for (const GameRecord* g : games) {
    if (!g->resign_on) continue;
    ++r.games;
    r.resigned += g->resigned;
    if (!g->resign_disabled) continue;
    ++r.disabled;
    if (g->would_resign_move < 0 || g->would_resign_move >= g->num_moves()) continue;
    ++r.disabled_would_resign;
    const int8_t side = g->to_move[g->would_resign_move];
    if (g->winner != Opponent(side)) ++r.false_positives;  // it won or drew: resigning would have been wrong
  }
  return r;
}

nlohmann::json ResignReport::ToJson() const {
  return {{"games", games},
          {"resigned", resigned},
          {"disabled", disabled},
          {"disabled_would_resign", disabled_would_resign},
          {"false_positives", false_positives},
          {"false_positive_rate", false_positive_rate()}};
}

}  // namespace gz
