// A player of a match game: an in-process player (InProcessMatchPlayer, over
// the MovePlayer seam of common/match/move_player.h: networks, baselines,
// classical:N) or an external Gomocup brain (common/match/engine_player.h).  The referee
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
#include "common/match/move_player.h"

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

// An in-process player of a match: a MovePlayer (common/match/move_player.h:
// SearchPlayer, ClassicalPlayer) asked for every move with no clock and
// `simulations` simulations (a SearchPlayer's budget; a ClassicalPlayer has
// its own node limit).  The player makes its own tactical shortcuts (an
// immediate win, the block of an immediate loss).  NewGame forfeits ("start")
// a board size the player does not play and forgets any kept tree.  The
// player's exceptions pass through Move (a failed evaluator is not a forfeit).
// Owns its player.
class InProcessMatchPlayer : public MatchPlayer {
 public:
  InProcessMatchPlayer(std::string name, std::unique_ptr<MovePlayer> player, int simulations);
  std::optional<Forfeit> NewGame(int size, Rule rule) override;
  MoveReply Move(const Board& board, const std::vector<int>& history) override;

  const MovePlayer& player() const { return *player_; }
  // Totals over every move played so far (a ClassicalPlayer's simulations
  // are its alpha-beta nodes), for nodes/s in reports.
  int64_t moves() const { return moves_; }
  int64_t total_simulations() const { return total_simulations_; }

 private:
  std::unique_ptr<MovePlayer> player_;
  int simulations_;
  int64_t moves_ = 0;
  int64_t total_simulations_ = 0;
};

}  // namespace gz
