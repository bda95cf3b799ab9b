// Random 15x15 positions for the search benches (bench_mcts, bench_threats).
// Header-only; no state.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/game/board.h"
#include "common/game/threats.h"

namespace gz::bench {

// `stones` stones played alternately at random in the central 11x11, never a
// five on the board.  quiet: also no five point for either side, as MCTS
// mostly sees after one-ply tactics (a query there would end at the root).
inline std::vector<Board> RandomPositions(int count, int stones, uint64_t seed, bool quiet,
                                          Rule rule = Rule::kFreestyle) {
  std::mt19937_64 rng(seed);
  std::vector<Board> out;
  while (static_cast<int>(out.size()) < count) {
    Board b(15, rule);
    int misses = 0;
    while (b.move_count() < stones && misses < 1000) {
      const int m = (2 + static_cast<int>(rng() % 11)) * 15 + 2 + static_cast<int>(rng() % 11);
      if (!b.IsLegal(m) || b.MakesFive(m, b.to_move())) {
        ++misses;
        continue;
      }
      b.Play(m);
    }
    if (b.move_count() == stones && (!quiet || (FivePoints(b, kBlack).empty() && FivePoints(b, kWhite).empty())))
      out.push_back(b);
  }
  return out;
}

}  // namespace gz::bench
