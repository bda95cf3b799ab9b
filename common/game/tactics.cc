#include "common/game/tactics.h"

namespace gz {
namespace {

int FirstFiveFor(const Board& board, int8_t colour) {
  if (board.terminal()) return kNoMove;
  for (int m = 0; m < board.num_points(); ++m)
    if (board.at(m) == kEmpty && board.MakesFive(m, colour) && board.IsLegal(m)) return m;
  return kNoMove;
}

}  // namespace

int FindWinningMove(const Board& board) { return FirstFiveFor(board, board.to_move()); }

int FindForcedBlock(const Board& board) { return FirstFiveFor(board, Opponent(board.to_move())); }

}  // namespace gz
