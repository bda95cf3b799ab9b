// The even opening sets: openings that a strong judge (the classical player at
// 100,000 nodes) rates nearest even, made by tools/even_openings.py (docs/ratings.md
// "Colours and openings").  Today only 15x15 freestyle has one: 24 openings of
// 3 stones (black, white, black; white to move).  Arena and the evaluator play
// them (common/match/openings.h); self-play may start a share of its games from
// them (selfplay.even_opening_share).
// Pure function; thread-safe.
#pragma once

#include <vector>

#include "common/game/board.h"

namespace gz {

// The even set of (size, rule), points in the order played; empty where there
// is none.
std::vector<std::vector<int>> EvenOpenings(int size, Rule rule);

}  // namespace gz
