#include "common/harness/wait_until.h"

#include <thread>

namespace gz::testing {

bool WaitUntil(const std::function<bool()>& condition, double limit_s, std::chrono::milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(poll);
  }
  return condition();
}

}  // namespace gz::testing
