// `classical:N` as an engine player (MovePlayer): the classical alpha-beta
// player of common/search/classical.h with no net, so that a Gomocup folder,
// `play` and arena's `engine:` players can field the project's outside
// yardstick under a manager's clock, and arena and the evaluator a
// deterministic one (docs/engine.md "The classical player").
//
// A move is ClassicalSearch::Search with N alpha-beta nodes, ended early by
// the turn's deadline and the stop flags (every 256 nodes; the last finished
// iteration's move), never playing an excluded point.  Not deterministic
// under a clock; with no deadline it is deterministic, and it is arena's
// `classical:N` (through InProcessMatchPlayer, common/match/player.h).  The
// empty board is answered at the centre, without a search.  The root
// threat solver's budgets (N/4, N/8) are not cut by the
// clock: choose N so that they fit the turn (bench/bench_classical).
// Reasons: kWin (a five), kBlock (the only move that stops a five),
// kProven (the solver's VCF / VCT, or a win the search proved), else
// kSearch.  The value is the evaluation squashed to (-1, 1) (score /
// (|score| + 1000), an open three is about 300), +-1 for a proof: a
// confidence, not a win rate.  SearchLimits::max_simulations and
// tree_memory_bytes do not apply (N is the node budget).
// Thread-safety: none; one caller.  Single-threaded (threads() is 1).
#pragma once

#include <cstdint>
#include <string>

#include "common/match/move_player.h"
#include "common/search/classical.h"

namespace gz {

class ClassicalPlayer : public MovePlayer {
 public:
  // Throws ConfigError for node_limit < 1.
  explicit ClassicalPlayer(int64_t node_limit);

  std::string CheckSize(int size) const override;
  std::string Describe() const override;
  MoveDecision ChooseMove(const Board& board, const SearchLimits& limits) override;
  TreeReport Report() const override { return report_; }
  void ClearTree() override {}  // nothing is kept between searches
  void set_threads(int /*threads*/) override {}
  int threads() const override { return 1; }

  const ClassicalResult& last_result() const { return last_; }

 private:
  int64_t node_limit_;
  ClassicalSearch search_;
  ClassicalResult last_;
  TreeReport report_;
};

// The N of "classical:N" (an integer in [1, 10^9]), the one parser of that
// spec (arena's players, the engine's `player` setting); 0 when `spec` does
// not start with "classical:".  Throws ConfigError naming `what` and the spec
// when it does but N is malformed.
int64_t ParseClassicalSpec(const std::string& spec, const std::string& what);

}  // namespace gz
