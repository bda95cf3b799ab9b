// A player of a match game: an in-process search (networks, baselines) or an
// external Gomocup brain (common/match/engine_player.h).  The referee
// (common/match/game.h) owns the board; a player is only asked for moves.
//
// Thread-safety: none; a player is used by one game at a time on one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/search/classical.h"
#include "common/search/evaluator.h"
#include "common/search/mcts.h"

namespace gz {

// Why a player lost without finishing the game.  kind: "illegal",
// "malformed", "timeout", "crash" or "start" (docs/ratings.md).
struct Forfeit {
  std::string kind;
  std::string reason;  // one line for logs and results
};

struct MoveReply {
  int move = kNoMove;
  std::optional<Forfeit> forfeit;  // set: the player loses; move is ignored
};

class MatchPlayer {
 public:
  explicit MatchPlayer(std::string name) : name_(std::move(name)) {}
  virtual ~MatchPlayer() = default;
  MatchPlayer(const MatchPlayer&) = delete;
  MatchPlayer& operator=(const MatchPlayer&) = delete;

  // The rating name ("checkpoint:12", "rollout:1000", "engine:...").
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  // The network forward that plays ("native" | "torch": ChooseForward,
  // common/net/forward_choice.h); "" for a player without a network, or an
  // external engine (whose forward is its own).  Match records state it.
  const std::string& forward() const { return forward_; }
  void set_forward(std::string f) { forward_ = std::move(f); }

  // A new game on an empty size x size board.  A forfeit here loses the game
  // before any move.
  virtual std::optional<Forfeit> NewGame(int size, Rule rule) = 0;
  // The move for board.to_move().  `history` is every point played so far
  // (the opening included), in order; board is the resulting position (not
  // terminal).  The referee checks legality of the answer.
  virtual MoveReply Move(const Board& board, const std::vector<int>& history) = 0;
  // The game is over (any outcome).  Must not throw.
  virtual void EndGame() noexcept {}

 private:
  std::string name_;
  std::string forward_;
};

// The engine's move choice at a fixed simulation count: an immediate win,
// else a block of the opponent's immediate win (common/game/tactics.h), else
// MCTS with `simulations` simulations, no noise, a fresh tree, and the most
// visited move (ties to the lowest point).  Deterministic for a given
// evaluator and seed.  Owns its evaluator.
class SearchMatchPlayer : public MatchPlayer {
 public:
  SearchMatchPlayer(std::string name, std::unique_ptr<Evaluator> evaluator, int simulations,
                    const MctsParams& params, uint64_t seed);
  std::optional<Forfeit> NewGame(int size, Rule rule) override { return std::nullopt; }
  MoveReply Move(const Board& board, const std::vector<int>& history) override;

 private:
  std::unique_ptr<Evaluator> evaluator_;
  MctsParams params_;
  uint64_t seed_;
};

// `classical:N`: the classical alpha-beta player (common/search/classical.h)
// with N alpha-beta nodes a move, no net.  Deterministic: the move depends
// only on the position and N.
class ClassicalMatchPlayer : public MatchPlayer {
 public:
  ClassicalMatchPlayer(std::string name, int64_t node_limit);
  std::optional<Forfeit> NewGame(int size, Rule rule) override { return std::nullopt; }
  MoveReply Move(const Board& board, const std::vector<int>& history) override;
  // Totals over every move played so far (nodes/s for the reports).
  int64_t total_nodes() const { return total_nodes_; }
  int64_t total_solver_nodes() const { return total_solver_nodes_; }
  int64_t moves() const { return moves_; }

 private:
  ClassicalSearch search_;
  int64_t total_nodes_ = 0;
  int64_t total_solver_nodes_ = 0;
  int64_t moves_ = 0;
};

}  // namespace gz
