// A classical Gomoku player with no network: the
// yardstick outside the self-play family.  `classical:N` in arena, the
// evaluator's ladder and the engine's player specs (docs/ratings.md).
//
// What one Search(board) does, in this order:
//   1. The threat solver at the root (node_solver.h, both sides): a five, a
//      forced block, a VCF or a VCT of the side to move is played at once
//      (proven, reason "five", "block", "vcf", "vct"); the opponent's VCF or
//      VCT threats restrict the root to the moves that refute them (moves
//      left out provably lose).  Each VCF query may examine N/4 attacker
//      nodes, each VCT query N/8 (at least 1); their nodes are counted in
//      `solver_nodes`, not against N.
//   2. Principal-variation alpha-beta with iterative deepening (depth 1, 2,
//      ...) over the remaining moves, until N alpha-beta nodes have been
//      visited.  The move is the best of the last finished iteration (the
//      partly searched one's when its first move was searched to the end and
//      something else beat it; depth 1 unfinished: the best-ordered move).
//   Evaluation: every five-cell window holding stones of one colour only
//   scores for that colour by its stone count (1, 2, 3, 4 stones: open and
//   closed twos, threes and fours arise as the sums of overlapping windows,
//   an open four being two four-windows); the side to move scores its own
//   windows higher (the tempo).  At a leaf a five point of the side to move
//   is a win and two or more of the opponent's a loss.
//   Move generation: empty points within two of a stone, ordered by what the
//   move adds to the mover's windows and takes from the opponent's (attack
//   and defence), the table's move first; only the best 20 at the root and
//   8 below it are searched (forward pruning: a quiet move ranked lower is
//   never looked at).  A side with a five point of the opponent to face
//   may only block it, and that forced block does not use up depth.
//   A transposition table of 2^tt_log2 entries, cleared at every search.
//   Rules: a five is exactly five for standard and for black under renju;
//   black never plays a renju forbidden point (renju.h) in the search; the
//   tree knows fives exactly, threes and fours only through the windows.
//
// Contract: deterministic -- the move depends only on the position (stones,
// side to move, rule, size) and N; no clock, no randomness, no state kept
// between searches.  The one exception is a search given ClassicalLimits with
// a deadline or a stop flag (the engine's turn clock): it ends early, checked
// every 256 alpha-beta nodes, and plays the best move of its last finished
// iteration as above.  The root solver is not cut by the clock (its budgets
// are the N/4 and N/8 above).  At most N alpha-beta nodes (a node: a position entered
// by the search, the root's children included), so nodes <= N always.  The
// move is legal (Board::IsLegal) whenever the board is not terminal.
// Cost: a node costs O(20) window updates plus move generation over the
// nearby empty points (O(20) each); bench/bench_classical prints nodes/s.
// Thread-safety: a ClassicalSearch owns its table and scratch state: one per
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/game/board.h"

namespace gz {

struct ClassicalOptions {
  int64_t node_limit = 1000;  // N >= 1: alpha-beta nodes per search
  int tt_log2 = 16;           // transposition-table entries = 2^tt_log2, 8..24
  int max_depth = 64;         // deepest iteration
};

struct ClassicalResult {
  int move = kNoMove;
  // From the side to move's view: > kClassicWinScore / 2 a win found by the
  // search or the solver, < -kClassicWinScore / 2 a loss, else the evaluation.
  int score = 0;
  int depth = 0;              // last finished iteration (0: none finished / solver)
  int64_t nodes = 0;          // alpha-beta nodes (<= node_limit)
  int64_t solver_nodes = 0;   // the root threat solver's attacker nodes
  std::string reason;         // "five", "block", "vcf", "vct", "search"
  std::vector<int> pv;        // the principal variation of the last finished iteration
};

constexpr int kClassicWinScore = 1000000;

// What may end one search before its node limit, and the root moves it may
// not play.  Default: nothing (the deterministic search).
struct ClassicalLimits {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* stop = nullptr;       // raised: finish as soon as possible
  const std::atomic<bool>* interrupt = nullptr;  // the same, a second source
  // Root moves never played (analysis: YXBLOCK).  A solver win on one of them
  // is ignored; every legal move excluded: Search throws GomokuError.
  std::vector<int> excluded;
};

class ClassicalSearch {
 public:
  // Throws ConfigError for an option out of range.
  explicit ClassicalSearch(ClassicalOptions options);
  ~ClassicalSearch();
  ClassicalSearch(const ClassicalSearch&) = delete;
  ClassicalSearch& operator=(const ClassicalSearch&) = delete;

  // The move for board.to_move().  Throws RulesError on a terminal board.
  ClassicalResult Search(const Board& board) { return Search(board, ClassicalLimits{}); }
  ClassicalResult Search(const Board& board, const ClassicalLimits& limits);

  // The static evaluation (the windows, with the tempo) from the side to
  // move's view, no search: what the opening script and tests read.
  static int StaticEval(const Board& board);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gz
