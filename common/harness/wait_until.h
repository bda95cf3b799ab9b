// Waiting for something another process or thread does, without a timing
// assertion: the limit only guards against a hang.
#pragma once

#include <chrono>
#include <functional>

namespace gz::testing {

// Polls `condition` every `poll` until it holds or `limit_s` seconds have
// passed; whether it held (it is checked once more at the deadline, so a slow
// machine that gets there just in time still passes).
bool WaitUntil(const std::function<bool()>& condition, double limit_s = 60.0,
               std::chrono::milliseconds poll = std::chrono::milliseconds(20));

}  // namespace gz::testing
