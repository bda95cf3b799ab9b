// RunBounded (bounded_call.h).
#include "common/base/bounded_call.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace gz {

namespace {

// Shared by the caller and the call's thread, so that either may go first.
struct CallState {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
};

}  // namespace

bool RunBounded(std::function<void()> fn, std::chrono::milliseconds timeout) {
  auto state = std::make_shared<CallState>();
  std::thread([state, fn = std::move(fn)]() mutable {
    std::exception_ptr error;
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    fn = nullptr;  // the captures go with the call, not with the waiter
    std::lock_guard<std::mutex> lock(state->mu);
    state->error = error;
    state->done = true;
    state->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(state->mu);
  if (!state->cv.wait_for(lock, timeout, [&] { return state->done; })) return false;
  if (state->error) std::rethrow_exception(state->error);
  return true;
}

}  // namespace gz
