#include "engine/search_player.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <new>
#include <cstdio>

#include "common/base/errors.h"
#include "common/game/tactics.h"

namespace gz {
namespace {

MctsParams EngineMctsParams(const Config& config) {
  MctsParams p = config.mcts;
  p.dirichlet_alpha = 0.0f;  // the engine never adds noise
  p.dirichlet_epsilon = 0.0f;
  p.simulations = INT_MAX;   // the engine stops the search itself
  return p;
}

}  // namespace

std::string FormatValue(float v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%+.2f", static_cast<double>(v));
  return buf;
}

SearchPlayer::SearchPlayer(EvaluatorSource& source, const Config& config)
    : source_(source), params_(EngineMctsParams(config)), mcts_(params_, config.run.seed) {}

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
    SyncTree(board);
    const auto synced = std::chrono::steady_clock::now();
    if (int win = FindWinningMove(board); win != kNoMove) {
      d.move = win;
      d.reason = "win";
      d.value = 1.0f;
    } else if (int block = FindForcedBlock(board); block != kNoMove) {
      d.move = block;
      d.reason = "block";
    } else {
      RunSearch(board, limits, d);
    }
    // The tree follows our move at the start of the next search, so the reply
    // is not delayed by discarding the rest of the tree.
    pending_own_move_ = d.move;
    spdlog::debug("engine: tree sync {:.1f} ms, search {:.1f} ms",
                  std::chrono::duration<double, std::milli>(synced - start).count(),
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - synced).count());
  } catch (...) {
    tree_valid_ = false;
    throw;
  }
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return d;
}

void SearchPlayer::RunSearch(const Board& board, const SearchLimits& limits, MoveDecision& d) {
  using Clock = std::chrono::steady_clock;
  Evaluator& evaluator = source_.ForGame(board.size(), board.rule());
  d.reason = "search";
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

  mcts_.StartMove(/*add_noise=*/false);
  EvalResult result;
  const auto start = Clock::now();
  auto previous = start;
  Clock::duration longest{};
  int sims = 0;
  for (;;) {
    const auto now = Clock::now();
    longest = std::max(longest, now - previous);
    previous = now;
    // mcts.solver: a proven-won root is played at once (its one-hot visits).
    if (mcts_.MoveDone()) break;
    // A root child must have a visit before we may stop (RootVisits counts the
    // root's own expansion).
    if (mcts_.RootVisits() >= 2) {
      if (sims >= limits.max_simulations) break;
      if (mcts_.TreeBytes() + expansion_bytes > budget_bytes) break;  // the next expansion could exceed the budget
      if (limits.stop && limits.stop->load(std::memory_order_relaxed)) break;
      const auto average = sims > 0 ? (now - start) / sims : Clock::duration::zero();
      if (now + average > limits.deadline) break;
    }
    if (const Position* leaf = mcts_.SelectLeaf()) {
      evaluator.Evaluate(std::span<const Position>(leaf, 1), std::span<EvalResult>(&result, 1));
      mcts_.ExpandAndBackup(result);
    }
    ++sims;
  }
  d.longest_simulation_ms = std::chrono::duration<double, std::milli>(longest).count();
  d.simulations = sims;
  d.tree_bytes = mcts_.TreeBytes();
  d.root_visits = mcts_.RootVisits();
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
  if (mcts_.RootProven() == Proven::kWin) d.reason = "proven";
  ranked.resize(std::min<size_t>(ranked.size(), 3));
  d.top = ranked;
}

}  // namespace gz
