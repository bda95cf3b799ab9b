// One self-play game as a step machine over Mcts, and a driver that advances
// several games together, batching their leaf evaluations into one Evaluate
// call.  Each game's search is identical whether it runs alone or batched
// (one pending leaf per game, no virtual loss), so the game files match.
//
// Thread-safety: none; a SelfPlayGame belongs to one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>

#include "common/data/game_record.h"
#include "common/search/mcts.h"

namespace gz {

struct SelfPlayParams {
  MctsParams mcts;
  int temperature_moves = 8;
  float final_temperature = 0.0f;
  int random_opening_moves = 0;
  int max_moves = 0;  // 0 = board size squared
  // selfplay.adjudicate_proven (needs mcts.solver to prove anything): the game
  // ends as soon as the root is proven, with the proven result; the record is
  // marked adjudicated.  A proven win is recorded as a last sample (policy on
  // the winning move, q = 1); a proven loss is not.
  bool adjudicate_proven = false;
};

class SelfPlayGame {
 public:
  SelfPlayGame(const SelfPlayParams& params, int board_size, Rule rule, uint64_t seed, int64_t iteration,
               int64_t model_generation);
  bool finished() const { return finished_; }
  // Advances until a leaf needs evaluation (returned) or the game ends (nullptr).
  const Position* Step();
  // Supplies the evaluation of the position last returned by Step().
  void Supply(const EvalResult& result);
  const GameRecord& record() const { return record_; }
  const Board& board() const { return mcts_.root_board(); }

 private:
  void FinishMove();
  void Finish();
  void Adjudicate();

  SelfPlayParams params_;
  Mcts mcts_;
  std::mt19937_64 pick_rng_;
  GameRecord record_;
  bool move_started_ = false;
  bool finished_ = false;
  int max_moves_;
};

// Keeps up to `slots` games in flight (slots >= 1): whenever a slot is free it
// asks `next()` for a game to start (nullptr: none now; it is not asked again
// in this call), and hands each game to `done` the moment it ends, so a long
// game never holds the others' slots idle.  The leaves of all games in flight
// go into one Evaluate call per round.  Returns the number of Evaluate calls
// once no game is in flight and next() gave nullptr, or early when `stop`
// becomes true (games in flight are then dropped unfinished, never passed to
// `done`).  Which games share a round does not change any game's search, so
// the games are the same as if each ran alone.
int64_t PlayGamesStreaming(int slots, const std::function<std::unique_ptr<SelfPlayGame>()>& next,
                           const std::function<void(std::unique_ptr<SelfPlayGame>)>& done, Evaluator& evaluator,
                           const std::atomic<bool>* stop = nullptr);

// Deterministic per-game seed from (run seed, iteration, worker id, game index).
uint64_t GameSeed(uint64_t run_seed, int64_t iteration, int worker_id, int64_t game_index);

}  // namespace gz
