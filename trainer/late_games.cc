#include "trainer/late_games.h"

#include <map>
#include <utility>

#include "trainer/replay_buffer.h"

namespace gz {

LateSplit SplitLateGames(const std::vector<LateGame>& late, int64_t step, int window) {
  LateSplit s;
  for (const LateGame& g : late) {
    const int64_t n = g.game.record.num_moves();
    if (ReplayBuffer::InWindow(g.iteration, step, window)) {
      s.used.push_back(&g);
      s.used_samples += n;
    } else {
      s.aged_out.push_back(&g);
      s.aged_out_samples += n;
    }
  }
  return s;
}

LateEntry ToLateEntry(const LateGame& g) {
  LateEntry e;
  e.iteration = g.iteration;
  e.file = g.game.file;
  e.model_generation = g.game.record.model_generation;
  e.positions = g.game.record.num_moves();
  return e;
}

nlohmann::json LateOrigins(const std::vector<LateEntry>& used) {
  std::map<std::pair<int64_t, int64_t>, int> count;
  for (const LateEntry& e : used) ++count[{e.iteration, e.model_generation}];
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, n] : count)
    out.push_back({{"iteration", key.first}, {"model_generation", key.second}, {"games", n}});
  return out;
}

}  // namespace gz
