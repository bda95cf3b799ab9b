// StopAndJoin: a test's background thread, stopped and joined at scope exit.
// Also when a failed REQUIRE throws out of the test: a still joinable
// std::thread would call std::terminate in its destructor and end the whole
// test executable instead of reporting the failure.
#pragma once

#include <atomic>
#include <thread>

namespace gz::testing {

// Sets `stop` (the flag the thread's loop checks), then joins `thread` unless
// the test joined it already.  Declare it right after the thread.
struct StopAndJoin {
  std::atomic<bool>& stop;
  std::thread& thread;
  ~StopAndJoin() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

}  // namespace gz::testing
