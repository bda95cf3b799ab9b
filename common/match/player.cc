#include "common/match/player.h"

#include <random>

#include "common/game/tactics.h"

namespace gz {

SearchMatchPlayer::SearchMatchPlayer(std::string name, std::unique_ptr<Evaluator> evaluator, int simulations,
                                     const MctsParams& params, uint64_t seed)
    : MatchPlayer(std::move(name)), evaluator_(std::move(evaluator)), params_(params), seed_(seed) {
  params_.simulations = simulations;
  params_.dirichlet_alpha = 0.0f;  // never noise
  params_.dirichlet_epsilon = 0.0f;
  params_.tree_reuse = false;
}

MoveReply SearchMatchPlayer::Move(const Board& board, const std::vector<int>& history) {
  MoveReply r;
  if (int win = FindWinningMove(board); win != kNoMove) {
    r.move = win;
    return r;
  }
  if (int block = FindForcedBlock(board); block != kNoMove) {
    r.move = block;
    return r;
  }
  // The seed depends on the position's length only, so a replayed game is
  // replayed move for move.
  Mcts mcts(params_, seed_ * 1000003ULL + history.size());
  mcts.Reset(board);
  mcts.Search(*evaluator_, /*add_noise=*/false);
  std::mt19937_64 unused(0);
  r.move = PickMove(mcts.VisitCounts(), 0.0f, unused);
  return r;
}

ClassicalMatchPlayer::ClassicalMatchPlayer(std::string name, int64_t node_limit)
    : MatchPlayer(std::move(name)), search_(ClassicalOptions{node_limit}) {}

MoveReply ClassicalMatchPlayer::Move(const Board& board, const std::vector<int>& /*history*/) {
  const ClassicalResult r = search_.Search(board);
  total_nodes_ += r.nodes;
  total_solver_nodes_ += r.solver_nodes;
  ++moves_;
  MoveReply reply;
  reply.move = r.move;
  return reply;
}

}  // namespace gz
