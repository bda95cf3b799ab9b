// The player seam: what the Gomocup session, `play`, the Yixin analysis and
// the match referee (through InProcessMatchPlayer, common/match/player.h) ask
// of whatever chooses their moves.  Two players implement it: SearchPlayer
// (MCTS over a net or the rollout baseline, search_player.h) and
// ClassicalPlayer (the classical alpha-beta player, no net,
// classical_player.h); each plays an immediate win and blocks an immediate
// loss before it searches.  A caller holds one and never knows which.
// Thread-safety: none; one caller.  The limits' stop flags may be raised by
// another thread while ChooseMove runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/game/board.h"
#include "common/match/analysis_report.h"

namespace gz {

struct SearchLimits {
  // No new simulation starts once now + (average simulation time) passes this.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int max_simulations = 200000;            // new simulations this move
  // The tree stops growing before it would exceed tree_memory_bytes (which
  // are reserved up front; see Mcts::ExpansionBytes in common/search/mcts.h).
  int64_t tree_memory_bytes = int64_t{512} << 20;
  const std::atomic<bool>* stop = nullptr;  // raised: finish as soon as possible
  const std::atomic<bool>* interrupt = nullptr;  // the same, a second source (Yixin's YXSTOP)
  // Root moves the search may not play (analysis: YXBLOCK).  Non-empty: the
  // tree is rebuilt for this search and not kept; the tactical shortcuts
  // are skipped when their move is excluded.  Every legal move excluded:
  // ChooseMove throws GomokuError.
  std::vector<int> excluded;
  // Analysis output while a move is searched: what the search sees so far,
  // at most every `progress_every`, from a search thread (SearchPlayer: after
  // a backup, under its tree lock, so keep it short).  A player without
  // intermediate results (ClassicalPlayer) never calls it; the caller reports
  // the final state itself, from Report(), after ChooseMove.
  std::function<void(const TreeReport&)> on_progress;
  std::chrono::milliseconds progress_every{250};
};

// Why a player chose its move.
enum class MoveReason : uint8_t {
  kSearch,  // the search's choice
  kWin,     // an immediate five
  kBlock,   // the point that stops the opponent's immediate five
  kProven,  // a proven win: mcts.solver proved the root, or the classical player's solver or search
};
// "search" | "win" | "block" | "proven": the one spelling of a reason in logs,
// MESSAGE lines and JSON.
const char* MoveReasonName(MoveReason reason);
// The same in JSON (nlohmann's to_json): a record holds the name, never the number.
void to_json(nlohmann::json& j, MoveReason reason);

struct MoveDecision {
  int move = kNoMove;
  MoveReason reason = MoveReason::kSearch;
  float value = 0.0f;      // expected result for the side that plays `move`, [-1, 1]
  int simulations = 0;     // new simulations this move
  int reused_visits = 0;   // root visits inherited from the previous search
  int root_visits = 0;     // after the search
  size_t tree_bytes = 0;   // tree memory after the search
  double best_share = 0.0; // share of the root's child visits on `move`
  double seconds = 0.0;
  double longest_simulation_ms = 0.0;  // slowest single simulation (tree growth shows up here)
  std::vector<std::pair<int, int>> top;  // (move, visits), most visited first, up to 3
};

class MovePlayer {
 public:
  virtual ~MovePlayer() = default;

  // "" when this player plays boards of `size`, else why not (START's ERROR).
  virtual std::string CheckSize(int size) const = 0;
  // What plays, for logs (the net and its forward, or classical:N).
  virtual std::string Describe() const = 0;
  // Chooses a move for board.to_move() before limits.deadline (a player may
  // overrun it by one unit of work: a simulation, 256 alpha-beta nodes, the
  // root threat solver).  Preconditions: !board.terminal() and
  // CheckSize(board.size()) is "".  Throws GomokuError when it cannot (every
  // legal move excluded, the evaluator failed).
  virtual MoveDecision ChooseMove(const Board& board, const SearchLimits& limits) = 0;
  // What the last ChooseMove saw of its position, in analysis terms (the
  // Yixin lines; analysis_report.h).  Before any move: an empty report.
  virtual TreeReport Report() const = 0;
  // Forget whatever is kept between moves (new game, rule change, a new root).
  virtual void ClearTree() = 0;
  // Search threads (Yixin's INFO thread_num); a single-threaded player keeps 1.
  virtual void set_threads(int threads) = 0;
  virtual int threads() const = 0;
};

// "+0.31" style, for messages.
std::string FormatValue(float v);

// "" when `size` is in kMinBoardSize..kMaxBoardSize (what every player can
// play at most), else why not: CheckSize's answer for a size out of range.
std::string BoardSizeOutOfRange(int size);

}  // namespace gz
