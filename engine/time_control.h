// Gomocup time and memory limits and how much of them one move may use.
//
// The manager sends limits with INFO (milliseconds / bytes).  A move's
// thinking time is the smaller of the per-turn limit and a share of the match
// time left, minus a safety margin (10% + 50 ms) for process scheduling, I/O
// and the final move selection.  Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>

namespace gz {

// time_left value meaning "the match time is unlimited" (protocol convention).
constexpr int64_t kUnlimitedTimeLeft = 2147483647;

struct TimeControl {
  int64_t timeout_turn_ms = 5000;  // per move; 0 = play as fast as possible
  int64_t timeout_match_ms = 0;    // whole match; 0 = no limit
  int64_t time_left_ms = -1;       // match time left (may be negative); -1 = not told yet
  bool time_left_known = false;    // set by INFO time_left
  int64_t max_memory_bytes = 0;    // 0 = no limit
};

// Match time left in ms, or -1 when the match time is unlimited / unknown.
int64_t MatchTimeLeftMs(const TimeControl& tc);

// The hard per-move bound from the protocol: min(timeout_turn, match time
// left), before the safety margin, in ms (>= 0).
int64_t HardMoveLimitMs(const TimeControl& tc);

// Thinking time for the next move on a board with `empty_points` free points:
//   planned = min(timeout_turn, time_left / clamp(ceil(empty/2), 5, 25))
//   result  = planned - planned/10 - 50 ms, never below 0.
// timeout_turn 0 gives 0 (the search then runs only its minimum).
std::chrono::milliseconds ThinkingTime(const TimeControl& tc, int empty_points);

// limit - limit/10 - 50 ms, floored at 0.
int64_t WithSafetyMargin(int64_t limit_ms);

// Bytes the search tree's nodes may occupy: a third of max_memory, or 512 MiB
// when there is no limit.  Following a move copies the kept subtree while the
// old tree still exists, so the tree can briefly need twice this; the rest is
// for the process and the network.
int64_t TreeMemoryBudget(const TimeControl& tc);

}  // namespace gz
