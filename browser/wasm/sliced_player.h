// A MovePlayer that lends the JS event loop a moment every `slice` of search:
// the WebAssembly engine runs on the Web Worker's only thread, so a message
// the page sends while a search runs (stop) is read only when the search
// pauses.  It wraps the engine's player (a SearchPlayer) and chains a progress
// callback into each search's limits: the search calls it after a backup at
// most every `slice`; the callback calls `pause` (which returns to the event
// loop through Asyncify and comes back into the same search, the same tree)
// and raises `interrupt` when `pause` says stop.  The caller's own progress
// callback (Yixin's live analysis lines) still runs at its own period.
//
// The tree budget of every search is capped at `max_tree_bytes`: a wasm
// module's memory is real memory (no lazy pages), and the player reserves the
// whole budget up front.
// Thread-safety: none; the worker's one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "common/match/move_player.h"

namespace gz {

class SlicedPlayer : public MovePlayer {
 public:
  // `pause`: returns to the event loop and back; true when the page asked to
  // stop.  `interrupt`: raised then (the session's interrupt flag, which the
  // search reads before each round).  Both outlive the player.
  SlicedPlayer(MovePlayer& inner, std::function<bool()> pause, std::atomic<bool>& interrupt,
               std::chrono::milliseconds slice, int64_t max_tree_bytes);

  std::string CheckSize(int size) const override { return inner_.CheckSize(size); }
  std::string Describe() const override { return inner_.Describe(); }
  MoveDecision ChooseMove(const Board& board, const SearchLimits& limits) override;
  TreeReport Report() const override { return inner_.Report(); }
  void ClearTree() override { inner_.ClearTree(); }
  void set_threads(int threads) override {}  // one thread in the single-threaded build
  int threads() const override { return 1; }

  // Pauses in the searches so far (a test sees that slicing happened).
  int64_t pauses() const { return pauses_; }

 private:
  MovePlayer& inner_;
  std::function<bool()> pause_;
  std::atomic<bool>& interrupt_;
  std::chrono::milliseconds slice_;
  int64_t max_tree_bytes_;
  int64_t pauses_ = 0;
};

}  // namespace gz
