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
#include "common/match/move_player.h"

namespace gz {

class SearchPlayer : public MovePlayer {
 public:
  // Reads mcts.c_puct, mcts.fpu_value, mcts.tree_reuse, mcts.solver,
  // mcts.solver_vcf_nodes, engine.batch, engine.threads and
  // run.seed from `config`.
  SearchPlayer(EvaluatorSource& source, const Config& config);

  // MovePlayer: the evaluator source's sizes and description.
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
  // CheckSize(board.size()) of the source is "".  Throws GomokuError if the
  // evaluator fails (the tree is then discarded).
  MoveDecision ChooseMove(const Board& board, const SearchLimits& limits) override;
  // The tree of the last search (its root is the position searched until
  // the next ChooseMove), for analysis reports (common/match/analysis_report.h).
  const Mcts& tree() const { return mcts_; }
  // Search threads from now on (Yixin's INFO thread_num); clamped to >= 1.
  void set_threads(int threads) override { threads_ = threads < 1 ? 1 : threads; }
  int threads() const override { return threads_; }

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
  MoveDecision last_;               // the last ChooseMove's decision (Report)
};

}  // namespace gz
