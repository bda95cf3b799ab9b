// Browser games against the run's newest checkpoint.
//
// Each game owns its engine: the newest complete checkpoint when the game
// starts (loaded through common/match/evaluator_source.h), played by
// common/match/search_player.h as the evaluator plays its player under test: the
// immediate win, else the block, else MCTS with exactly `simulations`
// simulations, no noise, a fresh tree per move.  The run's own config
// (metadata.json) gives board, rule, net and search constants.
//
// Bounds: at most `max_games` games at once (a new one beyond that is a 429);
// a game unused for `idle_timeout_s` is ended and its engine freed by a
// reaper thread.  Moves are validated here, never trusted from the page: a
// bad one is a 400 that leaves the game as it was.  Nothing is written to the
// run directory.
// Thread-safety: every method may be called from any thread; calls on one
// game are serialised (a second move waits for the engine's reply to the first).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "common/base/periodic_thread.h"
#include "common/config/config.h"

namespace gz {

class PlayService {
 public:
  // settings: dashboard.max_games, dashboard.idle_timeout_s and
  // dashboard.simulations are used.
  PlayService(std::string run_dir, DashboardConfig settings);
  ~PlayService();
  PlayService(const PlayService&) = delete;
  PlayService& operator=(const PlayService&) = delete;

  // colour: the human's, "black" or "white" (white: the engine moves first).
  // Returns the game's state (State()).  Throws HttpError 400 (bad colour),
  // 429 (max_games reached), 503 (no checkpoint and no shipped net of the
  // run's rule and size / it cannot play).  Before the run's first checkpoint
  // the game is against the newest shipped net (nets/, docs/engine.md).
  nlohmann::json NewGame(const std::string& colour);
  // The human plays (row, col); the engine answers unless the game ended.
  // Throws HttpError 404 (no such game: unknown or ended by the idle
  // timeout), 400 (off the board, occupied, not the human's turn, game over).
  nlohmann::json Move(const std::string& id, int64_t row, int64_t col);
  // {"id","board_size","rule","human","to_move","cells":[H*W 0/1/2],"moves":[points],
  //  "engine":{"point","value","reason","simulations"} of its last move or null,
  //  "over","result":"black"|"white"|"draw"|null,"checkpoint":N (-1: a shipped net),
  //  "net":"checkpoint N"|"shipped net NAME","simulations"}.
  nlohmann::json State(const std::string& id);
  // Ends a game now (frees its slot); unknown ids are a 404.
  void End(const std::string& id);
  // Games alive now, and the bound.
  nlohmann::json Summary();

 private:
  struct Game;
  std::shared_ptr<Game> Find(const std::string& id);
  void Reap();  // on reaper_, every idle_timeout_s / 4 (0.05 .. 1 s)

  const std::string run_dir_;
  const DashboardConfig settings_;
  std::mutex mu_;
  int starting_ = 0;                                     // games being set up (slots held); guarded by mu_
  std::map<std::string, std::shared_ptr<Game>> games_;  // guarded by mu_
  PeriodicThread reaper_;
};

}  // namespace gz
