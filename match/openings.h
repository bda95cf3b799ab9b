// The fixed, balanced opening set shared by arena and the evaluator.
//
// Deterministic: the set depends only on (board size, opening length).  How it
// is made (docs/ratings.md): candidates of `length` alternating stones (black
// first) in the central 5x5 square are drawn from SplitMix64 seeded with
// size*1000 + length; a candidate is kept when it differs from every kept one
// under the 8 board symmetries and the side to move has neither an immediate
// win nor a forced block; at most 64 are kept (20000 draws at most).  Each
// opening is meant to be played twice with colours swapped.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "common/game/board.h"

namespace gz {

using Opening = std::vector<int>;  // points in the order played

// length 0 gives one empty opening.  Throws ConfigError when length does not
// fit the central square (length >= 25 or > the board).
std::vector<Opening> OpeningSet(int size, Rule rule, int length);

// The opening of game `game` of a pairing: games 2k and 2k+1 share opening
// k mod count.
const Opening& OpeningForGame(const std::vector<Opening>& set, int game);

}  // namespace gz
