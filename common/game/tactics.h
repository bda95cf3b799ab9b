// One-ply tactical safety net run before the search: take an immediate win,
// otherwise block the opponent's immediate win.  Rule-aware (Board::MakesFive).
// Pure functions; thread-safe.
#pragma once

#include "common/game/board.h"

namespace gz {

// A legal point where the side to move completes a winning line, or kNoMove.
int FindWinningMove(const Board& board);

// A legal point where the opponent would complete a winning line next move,
// or kNoMove (also when the only blocks are illegal: under renju black cannot
// block on a forbidden point).  When there are several the lowest point is returned (the game
// is lost anyway against correct play).
int FindForcedBlock(const Board& board);

}  // namespace gz
