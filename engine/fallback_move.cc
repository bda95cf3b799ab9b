#include "engine/fallback_move.h"

#include <algorithm>
#include <cstdlib>

#include "common/game/renju.h"
#include "common/game/tactics.h"

namespace gz {

int FallbackMove(const Board& board, const std::vector<int>& excluded) {
  auto allowed = [&](int p) {
    if (p == kNoMove || board.at(p) != kEmpty) return false;
    if (std::find(excluded.begin(), excluded.end(), p) != excluded.end()) return false;
    return board.rule() != Rule::kRenju || board.to_move() != kBlack || !IsForbiddenForBlack(board, p);
  };
  if (!board.terminal()) {
    if (const int win = FindWinningMove(board); allowed(win)) return win;
    if (const int block = FindForcedBlock(board); allowed(block)) return block;
  }
  const int n = board.size();
  const int c = n / 2;
  int best = kNoMove, best_distance = 0;
  for (int p = 0; p < board.num_points(); ++p) {
    if (!allowed(p)) continue;
    const int distance = std::max(std::abs(p % n - c), std::abs(p / n - c));
    if (best == kNoMove || distance < best_distance) {
      best = p;
      best_distance = distance;
    }
  }
  return best;
}

Board PlaceStone(const Board& board, int move) {
  std::vector<int8_t> cells = board.cells();
  cells[move] = board.to_move();
  return Board::FromStones(board.size(), board.rule(), cells, Opponent(board.to_move()), move);
}

}  // namespace gz
