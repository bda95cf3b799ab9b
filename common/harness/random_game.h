// Random finished games for tests and benches that need game records without
// self-play (replay buffers, game files, collectors).
#pragma once

#include <cstdint>

#include "common/data/game_record.h"

namespace gz::testing {

// A random legal freestyle game on a size x size board: uniform visit policy
// over the legal moves, uniformly random moves, played to the end or to
// `max_moves` moves (0: no limit).  The same arguments give the same game.
GameRecord RandomGame(int size, int64_t iteration, uint64_t seed, int64_t generation = 0, int max_moves = 0);

}  // namespace gz::testing
