// Shared by the rules tests (tests/game): random mid-game positions for the
// oracle comparisons (and P, tests/support/board_points.h).
#pragma once

#include <random>

#include "common/game/board.h"
#include "tests/support/board_points.h"

namespace gz::testing {

// Random position: stones alternately at random, skipping any that would end
// the game, until `empties` points are left (or 400 draws found no point).
inline Board RandomPosition(std::mt19937_64& rng, int n, Rule rule, int empties) {
  Board b(n, rule);
  int misses = 0;
  while (b.num_points() - b.move_count() > empties && misses < 400) {
    const int m = static_cast<int>(rng() % (n * n));
    if (!b.IsLegal(m) || b.MakesFive(m, b.to_move())) {
      ++misses;
      continue;
    }
    b.Play(m);
  }
  return b;
}

}  // namespace gz::testing
