// A call with a deadline, for library calls that can block for good: c10d's
// TCPStore serves every client from one thread with blocking reads, so a peer
// stopped in the middle of a request wedges it, and then every store call of
// the other ranks and the store's own teardown (which joins that thread) never
// return (docs/trainer.md "Data-parallel training", docs/reliability.md).
//
// RunBounded(fn, timeout) runs fn on a new thread and waits at most `timeout`:
//   * fn returned: true (fn's exception, if it threw, is rethrown here);
//   * still running: false, and the thread is detached and abandoned.
// Precondition, because of the second case: fn owns everything it touches
// (captures by value: shared or intrusive pointers), never the caller's stack.
// An abandoned call keeps its captures alive until it returns, if ever; the
// process may exit with it still blocked.
// Thread-safety: any thread; calls are independent.
#pragma once

#include <chrono>
#include <functional>

namespace gz {

bool RunBounded(std::function<void()> fn, std::chrono::milliseconds timeout);

}  // namespace gz
