// The opening sets shared by arena and the evaluator.
//
// The default (DefaultOpeningSet) is the even set where the board has one
// (15x15 freestyle, 20x20 freestyle, 15x15 renju: openings of 3 stones that the
// classical player at 100,000 nodes rates nearest even, common/game/
// even_openings_*.inc made by tools/even_openings.py; docs/ratings.md
// "Openings").  Elsewhere it is the random set of 2 stones below.
//
// The random set (OpeningSet) is deterministic: the set depends only on (board size, opening length).  How it
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

// The set arena and the evaluator play when not told otherwise: the even set
// where there is one (EvenOpenings, common/game/even_openings.h), else
// OpeningSet(size, rule, 2).
std::vector<Opening> DefaultOpeningSet(int size, Rule rule);

// The smallest image of the stones (a sorted list of point*2 + colour) over the
// 8 symmetries: equal keys = the same position up to symmetry.
std::vector<int> CanonicalOpeningKey(const Opening& o, int size);

// The opening of game `game` of a pairing: games 2k and 2k+1 share opening
// k mod count.
const Opening& OpeningForGame(const std::vector<Opening>& set, int game);

}  // namespace gz
