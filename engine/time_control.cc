#include "engine/time_control.h"

#include <algorithm>

namespace gz {

int64_t WithSafetyMargin(int64_t limit_ms) { return std::max<int64_t>(0, limit_ms - limit_ms / 10 - 50); }

int64_t MatchTimeLeftMs(const TimeControl& tc) {
  if (tc.time_left_known && tc.time_left_ms < kUnlimitedTimeLeft) return std::max<int64_t>(0, tc.time_left_ms);
  if (!tc.time_left_known && tc.timeout_match_ms > 0) return tc.timeout_match_ms;
  return -1;
}

int64_t HardMoveLimitMs(const TimeControl& tc) {
  int64_t limit = std::max<int64_t>(0, tc.timeout_turn_ms);
  int64_t left = MatchTimeLeftMs(tc);
  if (left >= 0) limit = std::min(limit, left);
  return limit;
}

std::chrono::milliseconds ThinkingTime(const TimeControl& tc, int empty_points) {
  int64_t planned = HardMoveLimitMs(tc);
  int64_t left = MatchTimeLeftMs(tc);
  if (left >= 0) {
    int64_t own_moves_left = std::clamp<int64_t>((empty_points + 1) / 2, 5, 25);
    planned = std::min(planned, left / own_moves_left);
  }
  return std::chrono::milliseconds(WithSafetyMargin(planned));
}

int64_t TreeMemoryBudget(const TimeControl& tc) {
  if (tc.max_memory_bytes <= 0) return int64_t{512} << 20;
  return tc.max_memory_bytes / 3;
}

}  // namespace gz
