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
// The tree is kept between moves: before a search the player follows the
// moves that separate its tree's root from the new position (its own move and
// the opponent's reply) and only rebuilds when it cannot (BOARD, TAKEBACK, a
// new game).  Applying its own move to the tree is deferred to the next call
// (discarding the unused part of a large tree takes tens of milliseconds that
// would otherwise delay the reply).  The search always runs at least until
// one root child has been visited, even past the deadline (two evaluations at
// most), so it always returns a legal move.
// Thread-safety: none; one caller (ChooseMove starts and joins its own
// search threads).  The stop flag may be raised by another thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/config/config.h"
#include "common/game/board.h"
#include "common/search/mcts.h"
#include "common/match/evaluator_source.h"

namespace gz {

struct SearchLimits {
  // No new simulation starts once now + (average simulation time) passes this.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int max_simulations = 200000;            // new simulations this move
  // The tree stops growing before it would exceed tree_memory_bytes (which
  // are reserved up front; see Mcts::ExpansionBytes).
  int64_t tree_memory_bytes = int64_t{512} << 20;
  const std::atomic<bool>* stop = nullptr;  // raised: finish as soon as possible
  const std::atomic<bool>* interrupt = nullptr;  // the same, a second source (Yixin's YXSTOP)
  // Root moves the search may not play (analysis: YXBLOCK).  Non-empty: the
  // tree is rebuilt for this search and not kept; the tactical shortcuts
  // are skipped when their move is excluded.  Every legal move excluded:
  // ChooseMove throws GomokuError.
  std::vector<int> excluded;
  // Analysis output: called with the tree, under the tree lock, by a search
  // thread after a backup, at most every `progress_every` (the caller
  // reports the final tree itself, from tree(), after ChooseMove).
  std::function<void(const Mcts&)> on_progress;
  std::chrono::milliseconds progress_every{250};
};

struct MoveDecision {
  int move = kNoMove;
  std::string reason;      // "win", "block", "search" or "proven" (mcts.solver proved the root won)
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

class SearchPlayer {
 public:
  // Reads mcts.c_puct, mcts.fpu_value, mcts.tree_reuse, mcts.solver,
  // mcts.solver_vcf_nodes, engine.batch, engine.threads and
  // run.seed from `config`.
  SearchPlayer(EvaluatorSource& source, const Config& config);

  // Forget the tree (new game, rule change).  Cheap.
  void ClearTree() {
    tree_valid_ = false;
    pending_own_move_ = kNoMove;
  }

  // Chooses a move for board.to_move().  Preconditions: !board.terminal() and
  // CheckSize(board.size()) of the source is "".  Throws GomokuError if the
  // evaluator fails (the tree is then discarded).
  MoveDecision ChooseMove(const Board& board, const SearchLimits& limits);
  // The tree of the last search (its root is the position searched until
  // the next ChooseMove), for analysis reports (common/match/analysis_report.h).
  const Mcts& tree() const { return mcts_; }
  // Search threads from now on (Yixin's INFO thread_num); clamped to >= 1.
  void set_threads(int threads) { threads_ = threads < 1 ? 1 : threads; }
  int threads() const { return threads_; }

 private:
  void SyncTree(const Board& board);
  void RunSearch(const Board& board, const SearchLimits& limits, MoveDecision& d);
  struct SearchShared;
  // One search thread's loop (the calling thread's too): gather, evaluate, back up.
  void SearchThread(SearchShared& shared);

  EvaluatorSource& source_;
  MctsParams params_;
  int batch_ = 1;    // engine.batch
  int threads_ = 1;  // engine.threads
  Mcts mcts_;
  uint64_t seed_;
  bool tree_valid_ = false;
  int pending_own_move_ = kNoMove;  // chosen last time, not yet applied to the tree
};

// "+0.31" style, for messages.
std::string FormatValue(float v);

}  // namespace gz
