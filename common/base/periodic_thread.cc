#include "common/base/periodic_thread.h"

#include <chrono>
#include <utility>

#include "common/base/errors.h"

namespace gz {

PeriodicThread::~PeriodicThread() { Stop(); }

void PeriodicThread::Start(const char* what, double period_s, FirstTick first, std::function<void()> tick) {
  GOMOKU_CHECK(!thread_.joinable(), what << " started twice");
  thread_ = std::thread([this, period_s, first, tick = std::move(tick)] { Loop(period_s, first, tick); });
}

void PeriodicThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicThread::Loop(double period_s, FirstTick first, const std::function<void()>& tick) {
  const auto period = std::chrono::duration<double>(period_s);
  std::unique_lock<std::mutex> lk(mu_);
  if (first == FirstTick::kAfterPeriod) cv_.wait_for(lk, period, [&] { return stopping_; });
  while (!stopping_) {
    lk.unlock();
    tick();
    lk.lock();
    cv_.wait_for(lk, period, [&] { return stopping_; });
  }
}

}  // namespace gz
