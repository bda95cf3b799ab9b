// The move the engine answers when it cannot search: a Gomocup manager reads
// anything but an `X,Y` line where a move is owed as silence and forfeits the
// game, so every failure inside a move (a throwing search, a broken net or
// settings file, a position our reading of the rule calls finished while the
// manager plays on) still ends in a legal move.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "common/game/board.h"

namespace gz {

// In order: a winning move, else a forced block, else the empty point nearest
// the centre (ties: the lowest point).  Never a point of `excluded`
// (YXBLOCK), a kBlocked cell, or, under renju with black to move, a forbidden
// point.  Works on a board our rules call finished too (the win and block
// shortcuts are skipped there).  kNoMove only when no such point is left.
int FallbackMove(const Board& board, const std::vector<int>& excluded);

// `board` after its side to move places a stone on the empty point `move`,
// also where Board::Play refuses it: a finished position or a point our rule
// forbids (the manager judges the rule, and plays on where ours has ended).
Board PlaceStone(const Board& board, int move);

}  // namespace gz
