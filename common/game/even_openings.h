// The even opening sets: openings that a strong judge (the classical player at
// 100,000 nodes) rates nearest even, made by tools/even_openings.py (docs/ratings.md
// "Colours and openings").  Three sets: 15x15 freestyle (24 openings), 20x20
// freestyle (48) and 15x15 renju (48), each of 3 stones (black, white, black;
// white to move).  Arena and the evaluator play
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
