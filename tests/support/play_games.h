// Plays self-play games to the end for tests, through the production driver
// (PlayGamesStreaming) so that tests exercise the code the worker runs.
//
// Header-only: a test that includes it links gomoku_search.
// Thread-safety: none; one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/search/evaluator.h"
#include "common/search/selfplay.h"

namespace gz {

// Plays every game of `games` to the end, all in flight together (one
// Evaluate call per round), and puts each back in its slot of `games`.
// Returns the number of Evaluate calls.  Games left unfinished by a stop are
// dropped by the driver, so their slots come back empty.
inline int64_t PlayTogether(std::vector<std::unique_ptr<SelfPlayGame>>& games, Evaluator& evaluator) {
  std::vector<std::unique_ptr<SelfPlayGame>> in = std::move(games);
  games.clear();
  games.resize(in.size());
  std::map<const SelfPlayGame*, size_t> slot;
  for (size_t i = 0; i < in.size(); ++i) slot[in[i].get()] = i;
  size_t next = 0;
  return PlayGamesStreaming(
      static_cast<int>(std::max<size_t>(in.size(), 1)),
      [&]() -> std::unique_ptr<SelfPlayGame> { return next < in.size() ? std::move(in[next++]) : nullptr; },
      [&](std::unique_ptr<SelfPlayGame> g) { games[slot.at(g.get())] = std::move(g); }, evaluator);
}

// Plays one game to the end, one position per Evaluate call.
inline void PlayToEnd(SelfPlayGame& game, Evaluator& evaluator) {
  EvalResult result;
  while (const Position* leaf = game.Step()) {
    evaluator.Evaluate({leaf, 1}, {&result, 1});
    game.Supply(result);
  }
}

}  // namespace gz
