// PeriodicThread: the first tick comes at once or after a period, Stop() wakes
// the wait instead of sleeping out the period, and a second Start is refused.
// The periods are an hour, so a Stop() that slept them out would hang the test
// into its ctest timeout instead of passing.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <mutex>

#include "common/base/errors.h"
#include "common/base/periodic_thread.h"

namespace gz {
namespace {

constexpr double kHour = 3600.0;

TEST_CASE("PeriodicThread ticks at once with kNow and stops without sleeping out the period") {
  std::mutex mu;
  std::condition_variable cv;
  int ticks = 0;
  PeriodicThread t;
  t.Start("test thread", kHour, PeriodicThread::FirstTick::kNow, [&] {
    std::lock_guard<std::mutex> lock(mu);
    ++ticks;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return ticks >= 1; });
  }
  t.Stop();  // the thread now waits an hour for its second tick: Stop must wake it
  CHECK(ticks == 1);
  t.Stop();  // idempotent
}

TEST_CASE("PeriodicThread with kAfterPeriod does not tick before its period") {
  int ticks = 0;
  {
    PeriodicThread t;
    t.Start("test thread", kHour, PeriodicThread::FirstTick::kAfterPeriod, [&] { ++ticks; });
  }  // the destructor stops it
  CHECK(ticks == 0);
}

TEST_CASE("PeriodicThread refuses a second Start by name") {
  PeriodicThread t;
  t.Start("the sampler", kHour, PeriodicThread::FirstTick::kAfterPeriod, [] {});
  CHECK_THROWS_WITH(t.Start("the sampler", kHour, PeriodicThread::FirstTick::kAfterPeriod, [] {}),
                    Catch::Contains("the sampler started twice"));
}

TEST_CASE("PeriodicThread Stop before Start is a no-op") {
  PeriodicThread t;
  t.Stop();
}

}  // namespace
}  // namespace gz
