#include "common/harness/random_game.h"

#include <random>
#include <vector>

#include "common/game/board.h"

namespace gz::testing {

GameRecord RandomGame(int size, int64_t iteration, uint64_t seed, int64_t generation, int max_moves) {
  std::mt19937_64 rng(seed);
  Board b(size, Rule::kFreestyle);
  GameRecord rec;
  rec.board_size = size;
  rec.rule = Rule::kFreestyle;
  rec.iteration = iteration;
  rec.model_generation = generation;
  rec.seed = static_cast<int64_t>(seed & 0x7fffffffffffffffULL);
  int limit = max_moves > 0 ? max_moves : size * size;
  while (!b.terminal() && b.move_count() < limit) {
    auto legal = b.LegalMoves();
    std::vector<float> pol(size * size, 0.0f);
    for (int m : legal) pol[m] = 1.0f / legal.size();
    int move = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
    rec.AddMove(b, pol, 0.0f, move, generation);
    b.Play(move);
  }
  Outcome o = b.outcome();
  rec.winner = o == Outcome::kBlackWins ? kBlack : o == Outcome::kWhiteWins ? kWhite : 0;
  return rec;
}

}  // namespace gz::testing
