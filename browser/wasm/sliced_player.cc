#include "browser/wasm/sliced_player.h"

#include <algorithm>
#include <utility>

namespace gz {

SlicedPlayer::SlicedPlayer(MovePlayer& inner, std::function<bool()> pause, std::atomic<bool>& interrupt,
                           std::chrono::milliseconds slice, int64_t max_tree_bytes)
    : inner_(inner), pause_(std::move(pause)), interrupt_(interrupt), slice_(slice), max_tree_bytes_(max_tree_bytes) {}

MoveDecision SlicedPlayer::ChooseMove(const Board& board, const SearchLimits& limits) {
  using Clock = std::chrono::steady_clock;
  SearchLimits sliced = limits;
  sliced.tree_memory_bytes = std::min(limits.tree_memory_bytes, max_tree_bytes_);
  // The search reads limits.interrupt before each round: the session passes
  // its flag, which is ours; a session without one gets ours anyway.
  if (!sliced.interrupt) sliced.interrupt = &interrupt_;
  const std::function<void(const TreeReport&)> own = limits.on_progress;
  const auto own_every = limits.progress_every;
  Clock::time_point own_last = Clock::now();
  sliced.progress_every = std::min(slice_, own ? own_every : slice_);
  sliced.on_progress = [&](const TreeReport& report) {
    if (own && Clock::now() - own_last >= own_every) {
      own(report);
      own_last = Clock::now();
    }
    ++pauses_;
    if (pause_()) interrupt_.store(true);
  };
  return inner_.ChooseMove(board, sliced);
}

}  // namespace gz
