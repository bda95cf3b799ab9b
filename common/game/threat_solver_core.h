// Internal to the threat solvers (threats.cc, vct.cc): what ThreatSolver and
// VctSolver share around their different searches.  Not a public API.
//
// SolverCore: the scratch grid, a transposition table of the solver's own
// `Entry` (2^tt_log2 slots, keyed by grid hash ^ salt), and the current
// query's attacker, salt and node count against its budget; DecidedAtRoot
// starts a query and settles the cases no search is needed for.
// Thread-safety: owned by one solver, one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/threat_grid.h"

namespace gz::threat_detail {

// Throws ConfigError naming the solver when tt_log2 is outside [4, 26].
inline void CheckTableLog2(const char* solver, int tt_log2) {
  if (tt_log2 < 4 || tt_log2 > 26)
    GOMOKU_THROW(ConfigError, solver << " tt_log2 " << tt_log2 << " out of range [4, 26]");
}

template <class Entry>
struct SolverCore {
  explicit SolverCore(int tt_log2) : table(size_t{1} << tt_log2), mask((uint64_t{1} << tt_log2) - 1) {}

  void ClearTable() { std::fill(table.begin(), table.end(), Entry{}); }

  // Starts `attacker`'s query on `board` (the table salt mixes size, rule,
  // attacker and the solver's `salt_tag`) after checking the colour and the
  // budget (GomokuError naming `query`).  True when the root decides it, with
  // `*res` filled (status, line, nodes): a terminal board (loss, 0 nodes); the
  // attacker has a five point (kWin, the lowest, 1 node); either caro rule
  // (kUnknown, see threats.h "Caro"); the defender has two five points (loss).  Otherwise
  // false and `*forced` is the defender's single five point (padded) or -1.
  template <class Result, class Status>
  bool DecidedAtRoot(const char* query, const Board& board, int8_t who, int64_t node_budget, uint64_t salt_tag,
                     Status loss, Result* res, int* forced) {
    CheckColour(who);
    GOMOKU_CHECK(node_budget >= 1, query << " node budget must be >= 1, got " << node_budget);
    if (board.terminal()) {
      res->status = loss;
      return true;
    }
    grid.Load(board);
    attacker = who;
    uint64_t seed = salt_tag ^ (static_cast<uint64_t>(board.size()) << 16) ^
                    (static_cast<uint64_t>(board.rule()) << 8) ^ static_cast<uint64_t>(who);
    salt = SplitMix64(seed);
    nodes = 0;
    budget = node_budget;
    res->nodes = 1;
    grid.AllFives(who, &root_fives);
    if (!root_fives.empty()) {
      res->status = Status::kWin;
      res->line = {grid.geo().to_board[*std::min_element(root_fives.begin(), root_fives.end())]};
      return true;
    }
    if (IsCaro(board.rule())) {
      res->status = Status::kUnknown;
      return true;
    }
    grid.AllFives(Opponent(who), &root_fives);
    if (root_fives.size() >= 2) {
      res->status = loss;
      return true;
    }
    res->nodes = 0;
    *forced = root_fives.empty() ? -1 : root_fives[0];
    return false;
  }

  std::vector<Entry> table;
  uint64_t mask;
  Grid grid;
  int8_t attacker = kBlack;
  uint64_t salt = 0;
  int64_t nodes = 0;
  int64_t budget = 0;
  std::vector<int> root_fives;
};

}  // namespace gz::threat_detail
