#include "common/match/player.h"

#include <algorithm>

#include "common/search/mcts.h"

namespace gz {

InProcessMatchPlayer::InProcessMatchPlayer(std::string name, std::unique_ptr<MovePlayer> player, int simulations)
    : MatchPlayer(std::move(name)), player_(std::move(player)), simulations_(simulations) {}

std::optional<Forfeit> InProcessMatchPlayer::NewGame(int size, Rule /*rule*/) {
  if (std::string why = player_->CheckSize(size); !why.empty()) return Forfeit{"start", why};
  player_->ClearTree();
  return std::nullopt;
}

MoveReply InProcessMatchPlayer::Move(const Board& board, const std::vector<int>& /*history*/) {
  SearchLimits limits;
  limits.max_simulations = simulations_;
  // Room for every simulation's expansion, so that only the count ends the search.
  const int empties = std::max(1, board.num_points() - board.move_count());
  limits.tree_memory_bytes =
      (static_cast<int64_t>(simulations_) + 2) * static_cast<int64_t>(Mcts::ExpansionBytes(empties));
  const MoveDecision d = player_->ChooseMove(board, limits);
  ++moves_;
  total_simulations_ += d.simulations;
  MoveReply reply;
  reply.move = d.move;
  return reply;
}

}  // namespace gz
