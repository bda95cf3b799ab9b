// A background thread that calls one function every `period_s` seconds until
// stopped: the heartbeat and polling loops of the multi-host run (the
// server's ReloadFollower, the trainer's HostMonitor).
//
// Stop() wakes the wait at once (it does not sleep out the period), lets a
// tick in progress finish, and joins.  A tick runs without any lock of this
// class held, so it may take its owner's locks freely.
// Thread-safety: Start and Stop from the owning thread; one Start per object.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace gz {

class PeriodicThread {
 public:
  enum class FirstTick { kNow, kAfterPeriod };

  PeriodicThread() = default;
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;
  ~PeriodicThread();  // Stop()s

  // Starts the thread; `what` names it in the error of a second Start.
  void Start(const char* what, double period_s, FirstTick first, std::function<void()> tick);
  void Stop();  // idempotent; a no-op before Start

 private:
  void Loop(double period_s, FirstTick first, const std::function<void()>& tick);

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace gz
