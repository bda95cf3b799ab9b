// The engine's move choice: tactical safety net, then a time-managed MCTS.
//
//   1. an immediate win is played;
//   2. else an immediate opponent win is blocked;
//   3. else MCTS (no Dirichlet noise) runs round by round through the batch
//      API (StartMove / SelectLeaves / ExpandAndBackupBatch): each round
//      gathers up to engine.batch leaves (virtual loss) for one
//      evaluation, on engine.threads threads sharing the tree (one mutex
//      around the tree; evaluations outside it, serialised for a network
//      evaluator, concurrent for the thread-safe rollout baseline).  Before
//      each round a thread checks the clock, the stop flag, the simulation
//      cap and the tree budget; the player plays the most visited move (ties
//      to the lowest point).  Batch 1 and 1 thread is the single-leaf search
//      bit for bit.  With mcts.solver on, the
//      search uses the threat solver (common/search/node_solver.h) and plays a
//      proven win as soon as the root is proven (reason "proven").
//
// Replayable play (SearchPlayerSettings::replayable: arena's and the
// evaluator's fixed-simulation players) builds a fresh tree for every move
// instead, seeded by the position, and runs exactly
// SearchLimits::max_simulations simulations: a replayed game is replayed move
// for move.
//
// Otherwise the tree is kept between moves: before a search the player
// follows the moves that separate its tree's root from the new position (its
// own move and the opponent's reply) and only rebuilds when it cannot (BOARD,
// TAKEBACK, a new game).  Applying its own move to the tree is deferred to
// the next call (discarding the unused part of a large tree takes tens of
// milliseconds that would otherwise delay the reply).  The search always runs at least until
// one root child has been visited, even past the deadline (two evaluations at
// most), so it always returns a legal move.
// Thread-safety: none; one caller (ChooseMove starts and joins its own
// search threads).  The stop flag may be raised by another thread.
// Ownership: the player refers to its EvaluatorProvider, which outlives it,
// or owns it (the constructor taking a unique_ptr; a copy of the player
// shares it).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/config/config.h"
#include "common/game/board.h"
#include "common/search/mcts.h"
#include "common/match/evaluator_source.h"
#include "common/match/move_player.h"

namespace gz {

// How a SearchPlayer searches.
struct SearchPlayerSettings {
  MctsParams mcts;    // the player switches noise off and counts the simulations itself
  int batch = 1;      // leaves per evaluation (engine.batch)
  int threads = 1;    // search threads (engine.threads)
  uint64_t seed = 1;  // run.seed
  // A fresh tree for every move, its Mcts seeded by seed and the stones on
  // the board, and exactly SearchLimits::max_simulations simulations (one
  // simulation plays the best prior: no floor of one visited root child).
  // With batch 1 and one thread: arena's fixed-simulation search.
  bool replayable = false;

  // `config`'s mcts (c_puct, fpu_value, tree_reuse, solver, ...),
  // engine.batch, engine.threads and run.seed; not replayable.
  static SearchPlayerSettings FromConfig(const Config& config);
};

class SearchPlayer : public MovePlayer {
 public:
  // SearchPlayerSettings::FromConfig(config).
  SearchPlayer(EvaluatorProvider& source, const Config& config);
  // Throws GomokuError unless batch and threads are >= 1.
  SearchPlayer(EvaluatorProvider& source, const SearchPlayerSettings& settings);
  SearchPlayer(std::unique_ptr<EvaluatorProvider> source, const SearchPlayerSettings& settings);

  // MovePlayer: the evaluator provider's sizes and description.
  std::string CheckSize(int size) const override { return source_.CheckSize(size); }
  std::string Describe() const override { return source_.Describe(); }
  // The last search's tree (ReportTree), or the tactical shortcut's move.
  TreeReport Report() const override;

  // Forget the tree (new game, rule change).  Cheap.
  void ClearTree() override {
    tree_valid_ = false;
    pending_own_move_ = kNoMove;
  }

  // Chooses a move for board.to_move().  Preconditions: !board.terminal() and
  // CheckSize(board.size()) is "" (replayable: limits.max_simulations >= 1).
  // Throws GomokuError if the evaluator fails (the tree is then discarded).
  MoveDecision ChooseMove(const Board& board, const SearchLimits& limits) override;
  // The tree of the last search (its root is the position searched until
  // the next ChooseMove), for analysis reports (common/match/analysis_report.h).
  const Mcts& tree() const { return mcts_; }
  // Search threads from now on (Yixin's INFO thread_num); clamped to >= 1.
  void set_threads(int threads) override { threads_ = threads < 1 ? 1 : threads; }
  int threads() const override { return threads_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct SearchShared;

  // The tree this move searches: the kept one brought to `board` (SyncTree),
  // or a fresh one when replayable.
  void PrepareTree(const Board& board);
  void SyncTree(const Board& board);
  void RunSearch(const Board& board, const SearchLimits& limits, MoveDecision& d);
  // One search thread's loop (the calling thread's too): gather, evaluate,
  // back up.  Its steps below are called with `shared.tree` held.
  void SearchThread(SearchShared& shared);
  // Applies limits.excluded once the root is expanded; false when this round
  // must start over (another thread's leaves are pending, or the solver was dropped).
  bool ExcludeRootMoves(SearchShared& shared, std::unique_lock<std::mutex>& lock);
  // Leaves to gather this round; 0 when the search stops.
  int LeavesThisRound(const SearchShared& shared, Clock::time_point now, Clock::duration average) const;
  // Waits (at most 5 ms) for another thread's backup or the end of the search.
  static void WaitForBackup(SearchShared& shared, std::unique_lock<std::mutex>& lock);
  // Evaluates the batch with the tree unlocked, then backs it up.
  void EvaluateAndBackUp(SearchShared& shared, Mcts::LeafBatch& batch, std::vector<EvalResult>& results,
                         std::unique_lock<std::mutex>& lock);
  // The move, its share and the top moves from the root's visits.
  void Decide(MoveDecision& d) const;

  // Null when the source is the caller's; shared by copies of the player.
  std::shared_ptr<EvaluatorProvider> owned_source_;
  EvaluatorProvider& source_;
  MctsParams params_;
  int batch_ = 1;    // engine.batch
  int threads_ = 1;  // engine.threads
  bool replayable_ = false;
  Mcts mcts_;
  uint64_t seed_;
  bool tree_valid_ = false;
  int pending_own_move_ = kNoMove;  // chosen last time, not yet applied to the tree
  MoveDecision last_;               // the last ChooseMove's decision (Report)
};

}  // namespace gz
