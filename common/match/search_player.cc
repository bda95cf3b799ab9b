#include "common/match/search_player.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "common/base/errors.h"
#include "common/game/tactics.h"

namespace gz {
namespace {

MctsParams SearchParams(const SearchPlayerSettings& settings) {
  MctsParams p = settings.mcts;
  p.dirichlet_alpha = 0.0f;  // a player never adds noise
  p.dirichlet_epsilon = 0.0f;
  p.simulations = INT_MAX;   // the player stops the search itself
  return p;
}

bool FlagRaised(const std::atomic<bool>* flag) { return flag && flag->load(std::memory_order_relaxed); }

}  // namespace

SearchPlayerSettings SearchPlayerSettings::FromConfig(const Config& config) {
  SearchPlayerSettings s;
  s.mcts = config.mcts;
  s.batch = config.engine.batch;
  s.threads = config.engine.threads;
  s.seed = config.run.seed;
  return s;
}

SearchPlayer::SearchPlayer(EvaluatorProvider& source, const Config& config)
    : SearchPlayer(source, SearchPlayerSettings::FromConfig(config)) {}

SearchPlayer::SearchPlayer(std::unique_ptr<EvaluatorProvider> source, const SearchPlayerSettings& settings)
    : SearchPlayer(*source, settings) {
  owned_source_ = std::move(source);
}

SearchPlayer::SearchPlayer(EvaluatorProvider& source, const SearchPlayerSettings& settings)
    : source_(source),
      params_(SearchParams(settings)),
      batch_(settings.batch),
      threads_(settings.threads),
      replayable_(settings.replayable),
      mcts_(params_, settings.seed),
      seed_(settings.seed) {
  GOMOKU_CHECK(batch_ >= 1 && threads_ >= 1,
               "engine.batch and engine.threads must be >= 1, got " << batch_ << " and " << threads_);
}

void SearchPlayer::PrepareTree(const Board& board) {
  if (!replayable_) {
    SyncTree(board);
    return;
  }
  // Seeded by the position's length only, so a replayed game is replayed move for move.
  mcts_ = Mcts(params_, seed_ * 1000003ULL + static_cast<uint64_t>(board.move_count()));
  mcts_.Reset(board);
  tree_valid_ = true;
  pending_own_move_ = kNoMove;
}

void SearchPlayer::SyncTree(const Board& board) {
  if (tree_valid_ && pending_own_move_ != kNoMove) {
    // Deferred from the previous ChooseMove (freeing the old tree is slow).
    try {
      mcts_.Advance(pending_own_move_);
    } catch (const RulesError&) {
      tree_valid_ = false;
    }
  }
  pending_own_move_ = kNoMove;
  if (tree_valid_) {
    const Board& root = mcts_.root_board();
    if (root.size() == board.size() && root.rule() == board.rule() && !root.terminal()) {
      std::vector<int> added;
      bool removed = false;
      for (int m = 0; m < board.num_points() && !removed; ++m) {
        if (root.at(m) == board.at(m)) continue;
        if (root.at(m) != kEmpty) removed = true;
        else added.push_back(m);
      }
      try {
        if (!removed && added.empty() && root.to_move() == board.to_move() &&
            root.last_move() == board.last_move())
          return;
        if (!removed && added.size() == 1 && board.at(added[0]) == root.to_move() &&
            board.last_move() == added[0]) {
          mcts_.Advance(added[0]);
          return;
        }
        if (!removed && added.size() == 2) {
          int own = board.at(added[0]) == root.to_move() ? added[0] : added[1];
          int reply = own == added[0] ? added[1] : added[0];
          if (board.at(own) == root.to_move() && board.at(reply) == Opponent(root.to_move()) &&
              board.last_move() == reply) {
            mcts_.Advance(own);
            mcts_.Advance(reply);
            return;
          }
        }
      } catch (const RulesError& e) {
        spdlog::debug("engine: tree reuse failed ({}); rebuilding", e.what());
      }
    }
  }
  mcts_.Reset(board);
  tree_valid_ = true;
}

MoveDecision SearchPlayer::ChooseMove(const Board& board, const SearchLimits& limits) {
  GOMOKU_CHECK(!board.terminal(), "ChooseMove on a finished game");
  const auto start = std::chrono::steady_clock::now();
  MoveDecision d;
  try {
    if (!limits.excluded.empty()) ClearTree();  // an analysis tree with moves removed is never reused
    PrepareTree(board);
    const auto synced = std::chrono::steady_clock::now();
    auto allowed = [&](int m) {
      return m != kNoMove && std::find(limits.excluded.begin(), limits.excluded.end(), m) == limits.excluded.end();
    };
    if (int win = FindWinningMove(board); allowed(win)) {
      d.move = win;
      d.reason = MoveReason::kWin;
      d.value = 1.0f;
    } else if (int block = FindForcedBlock(board); allowed(block)) {
      d.move = block;
      d.reason = MoveReason::kBlock;
    } else {
      RunSearch(board, limits, d);
    }
    // The tree follows our move at the start of the next search, so the reply
    // is not delayed by discarding the rest of the tree.
    pending_own_move_ = d.move;
    if (!limits.excluded.empty()) {
      ClearTree();
      mcts_ = Mcts(params_, seed_);  // the search may have dropped the solver
    }
    spdlog::debug("engine: tree sync {:.1f} ms, search {:.1f} ms",
                  std::chrono::duration<double, std::milli>(synced - start).count(),
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - synced).count());
  } catch (...) {
    tree_valid_ = false;
    throw;
  }
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  last_ = d;
  return d;
}

TreeReport SearchPlayer::Report() const {
  if (last_.move == kNoMove) return TreeReport{};
  if (last_.reason == MoveReason::kSearch || last_.reason == MoveReason::kProven) return ReportTree(mcts_);
  return ShortcutReport(last_.move, last_.reason == MoveReason::kWin, last_.value);
}

// What the search threads of one move share.  Everything but the evaluator
// call happens under `tree`.
struct SearchPlayer::SearchShared {
  Evaluator* evaluator = nullptr;
  bool serialize_evaluator = true;      // a network evaluator is not thread-safe
  const SearchLimits* limits = nullptr;
  size_t budget_bytes = 0;
  size_t expansion_bytes = 0;
  std::mutex tree;                      // guards mcts_ and the fields below
  std::mutex evaluate;                  // one Evaluate at a time (serialize_evaluator)
  std::condition_variable backed_up;    // a batch was backed up, or the search stops
  int64_t backups = 0;
  bool done = false;
  bool excluded_done = false;           // limits->excluded applied to the expanded root
  bool solver_dropped = false;          // the root's solver restriction left only excluded moves
  Clock::time_point last_progress;      // of limits->on_progress
  Clock::duration longest{};
  std::exception_ptr error;
};

void SearchPlayer::SearchThread(SearchShared& shared) {
  Mcts::LeafBatch batch;
  std::vector<EvalResult> results;
  std::unique_lock<std::mutex> lock(shared.tree);
  const auto start = Clock::now();
  auto previous = start;
  Clock::duration longest{};
  int rounds = 0;
  try {
    for (;;) {
      const auto now = Clock::now();
      longest = std::max(longest, now - previous);
      previous = now;
      if (shared.done) break;
      if (!shared.excluded_done && mcts_.RootVisits() >= 1 && !ExcludeRootMoves(shared, lock)) continue;
      const auto average = rounds > 0 ? (now - start) / rounds : Clock::duration::zero();
      const int max_leaves = LeavesThisRound(shared, now, average);
      if (max_leaves == 0) {
        shared.done = true;
        shared.backed_up.notify_all();
        break;
      }
      mcts_.SelectLeaves(batch, max_leaves);
      ++rounds;
      if (batch.empty()) {
        // Every descent collided with another thread's pending leaves: wait
        // until one of them is backed up (or the search stops).
        if (batch.exact() == 0) WaitForBackup(shared, lock);
        continue;
      }
      EvaluateAndBackUp(shared, batch, results, lock);
    }
  } catch (...) {
    if (!lock.owns_lock()) lock.lock();
    mcts_.CancelBatch(batch);
    if (!shared.error) shared.error = std::current_exception();
    shared.done = true;
    shared.backed_up.notify_all();
  }
  shared.longest = std::max(shared.longest, longest);
}

bool SearchPlayer::ExcludeRootMoves(SearchShared& shared, std::unique_lock<std::mutex>& lock) {
  const SearchLimits& limits = *shared.limits;
  if (limits.excluded.empty()) {
    shared.excluded_done = true;
    return true;
  }
  if (mcts_.pending_leaves() != 0) {  // another thread's leaves are pending: wait for their backup
    WaitForBackup(shared, lock);
    return false;
  }
  if (mcts_.ExcludeRootMoves(limits.excluded) == 0) {
    // The threat solver restricted the root to excluded moves (a VCF's
    // first move, a forced block): search without the solver.
    GOMOKU_CHECK(params_.solver && !shared.solver_dropped, "every move the search may play is blocked");
    MctsParams plain = params_;
    plain.solver = false;
    const Board root = mcts_.root_board();
    mcts_ = Mcts(plain, seed_);
    mcts_.Reset(root);
    mcts_.StartMove(/*add_noise=*/false);
    shared.solver_dropped = true;
    return false;
  }
  shared.excluded_done = true;
  return true;
}

int SearchPlayer::LeavesThisRound(const SearchShared& shared, Clock::time_point now, Clock::duration average) const {
  const SearchLimits& limits = *shared.limits;
  // mcts.solver: a proven-won root is played at once (its one-hot visits);
  // replayable: the move's simulations are spent.
  if (mcts_.MoveDone() && shared.excluded_done) return 0;
  // A root child must have a visit before we may stop (RootVisits counts
  // the root's own expansion); until then one leaf a round, so a search
  // past its deadline still costs at most two evaluations (one thread).
  if (mcts_.RootVisits() < 2) return 1;
  const int pending = mcts_.pending_leaves();
  const size_t tree = mcts_.TreeBytes();
  // Expansions that still fit the budget, less those pending.
  const int64_t memory_room =
      (tree >= shared.budget_bytes ? 0 : static_cast<int64_t>((shared.budget_bytes - tree) / shared.expansion_bytes)) -
      pending;
  const int64_t sims_room = static_cast<int64_t>(limits.max_simulations) - mcts_.simulations_done() - pending;
  if (sims_room <= 0 || memory_room <= 0 || FlagRaised(limits.stop) || FlagRaised(limits.interrupt) ||
      now + average > limits.deadline)
    return 0;
  return static_cast<int>(std::min<int64_t>({batch_, sims_room, memory_room}));
}

void SearchPlayer::WaitForBackup(SearchShared& shared, std::unique_lock<std::mutex>& lock) {
  const int64_t seen = shared.backups;
  shared.backed_up.wait_for(lock, std::chrono::milliseconds(5),
                            [&] { return shared.backups != seen || shared.done; });
}

void SearchPlayer::EvaluateAndBackUp(SearchShared& shared, Mcts::LeafBatch& batch, std::vector<EvalResult>& results,
                                     std::unique_lock<std::mutex>& lock) {
  results.resize(static_cast<size_t>(batch.size()));
  lock.unlock();
  if (shared.serialize_evaluator) {
    std::lock_guard<std::mutex> eval_lock(shared.evaluate);
    shared.evaluator->Evaluate(batch.positions(), results);
  } else {
    shared.evaluator->Evaluate(batch.positions(), results);
  }
  lock.lock();
  mcts_.ExpandAndBackupBatch(batch, results);
  ++shared.backups;
  shared.backed_up.notify_all();
  const SearchLimits& limits = *shared.limits;
  if (limits.on_progress && shared.excluded_done && Clock::now() - shared.last_progress >= limits.progress_every) {
    limits.on_progress(ReportTree(mcts_));
    shared.last_progress = Clock::now();
  }
}

void SearchPlayer::RunSearch(const Board& board, const SearchLimits& limits, MoveDecision& d) {
  Evaluator& evaluator = source_.ForGame(board.size(), board.rule());
  d.reason = MoveReason::kSearch;
  d.reused_visits = mcts_.RootVisits();
  // Memory: the tree may use budget_bytes.  Reserving it up front (virtual
  // memory; pages are touched as the tree grows) keeps the tree from
  // reallocating mid-search, which would stall one simulation for as long as
  // copying the whole tree takes.
  const int empties = std::max(1, board.num_points() - board.move_count());
  const size_t budget_bytes = static_cast<size_t>(std::max<int64_t>(0, limits.tree_memory_bytes));
  const size_t expansion_bytes = Mcts::ExpansionBytes(empties);
  try {
    mcts_.ReserveTree(budget_bytes / expansion_bytes, empties);
  } catch (const std::bad_alloc&) {
    spdlog::warn("engine: could not reserve {} bytes of tree; the search may pause to grow the tree", budget_bytes);
  }

  if (replayable_) mcts_.StartMove(/*add_noise=*/false, limits.max_simulations);
  else mcts_.StartMove(/*add_noise=*/false);
  SearchShared shared;
  shared.evaluator = &evaluator;
  // A network evaluator (SymmetricEvaluator) is not thread-safe: its calls
  // are serialised, and other threads gather and back up meanwhile.
  shared.serialize_evaluator = !source_.thread_safe();
  shared.limits = &limits;
  shared.budget_bytes = budget_bytes;
  shared.expansion_bytes = expansion_bytes;
  shared.last_progress = Clock::now();
  if (threads_ <= 1) {
    SearchThread(shared);
  } else {
    std::vector<std::thread> helpers;
    helpers.reserve(static_cast<size_t>(threads_ - 1));
    try {
      for (int t = 1; t < threads_; ++t) helpers.emplace_back([this, &shared] { SearchThread(shared); });
    } catch (const std::system_error& e) {  // could not start a thread: search with those that run
      spdlog::warn("engine: started {} of {} search threads: {}", helpers.size() + 1, threads_, e.what());
    }
    SearchThread(shared);
    for (std::thread& t : helpers) t.join();
  }
  if (shared.error) std::rethrow_exception(shared.error);
  GOMOKU_CHECK(mcts_.pending_leaves() == 0, "search ended with " << mcts_.pending_leaves() << " leaves pending");
  d.longest_simulation_ms = std::chrono::duration<double, std::milli>(shared.longest).count();
  d.simulations = mcts_.simulations_done();
  d.tree_bytes = mcts_.TreeBytes();
  d.root_visits = mcts_.RootVisits();
  Decide(d);
  if (mcts_.RootProven() == Proven::kWin) d.reason = MoveReason::kProven;
}

void SearchPlayer::Decide(MoveDecision& d) const {
  std::vector<int> visits = mcts_.VisitCounts();
  std::vector<std::pair<int, int>> ranked;
  int64_t total = 0;
  for (int m = 0; m < static_cast<int>(visits.size()); ++m)
    if (visits[m] > 0) {
      ranked.emplace_back(m, visits[m]);
      total += visits[m];
    }
  GOMOKU_CHECK(!ranked.empty(), "search ended with no visited root move");
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second > b.second; });
  d.move = ranked.front().first;  // most visited, ties to the lowest point (stable sort)
  d.best_share = static_cast<double>(ranked.front().second) / static_cast<double>(total);
  d.value = mcts_.RootValue();
  ranked.resize(std::min<size_t>(ranked.size(), 3));
  d.top = ranked;
}

}  // namespace gz
