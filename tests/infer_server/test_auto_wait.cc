// The adaptive-wait model in process (infer_server/auto_wait.h): the cost
// fit, the budget rule, a measured cost seed, where the ceiling counts from.
// The same model inside a running Batcher: test_batcher.
#include <catch2/catch.hpp>

#include <cstdint>

#include "infer_server/auto_wait.h"

using namespace gz;

TEST_CASE("adaptive wait: the cost model fit and the rule", "[server][autowait]") {
  AutoWaitModel m;
  // Before any forward there is no fixed cost to save: close at once.
  WaitEstimates e0 = m.Estimates(0);
  CHECK(AutoWaitModel::OpenUntil(1, e0, 0, 0) <= 0);

  // Forwards with t(b) = 2 ms + 0.1 ms * b, batch sizes 1..40.
  double now = 1;
  for (int i = 0; i < 400; ++i) {
    const int b = 1 + (i * 7) % 40;
    const double t = 0.002 + 0.0001 * b;
    m.RecordForward(now, now + t, b);
    now += t + 0.0001;
  }
  WaitEstimates e = m.Estimates(now);
  CHECK(e.t0_s == Approx(0.002).epsilon(0.02));
  CHECK(e.c_s == Approx(0.0001).epsilon(0.02));
  CHECK(e.busy > 0.5);

  // Budget formula (docs/protocol.md): (t0 (1 + rho b) - c b) / (b + 1).
  WaitEstimates f;
  f.t0_s = 0.002;
  f.c_s = 0.0001;
  f.busy = 0.5;
  CHECK(AutoWaitModel::Budget(3, f) == Approx((0.002 * 2.5 - 0.0003) / 4));
  f.busy = 0;
  CHECK(AutoWaitModel::Budget(30, f) < 0);  // idle device, big batch: never worth waiting
  f.busy = 1;
  // Arrivals far apart (1/lambda = 10 ms > budget): close now.
  f.arrival_per_s = 100;
  CHECK(AutoWaitModel::OpenUntil(4, f, 5.0, 5.0) <= 5.0);
  // Arrivals 0.1 ms apart: stay open, but only budget(b) past the last growth.
  f.arrival_per_s = 10000;
  const double until = AutoWaitModel::OpenUntil(4, f, 5.0, 4.9995);
  CHECK(until == Approx(4.9995 + AutoWaitModel::Budget(4, f)));
  CHECK(until > 5.0);
  CHECK(AutoWaitModel::OpenUntil(4, f, 5.1, 4.9995) <= 5.1);  // the budget has run out

  // The arrival estimate follows the rate and decays in silence.
  AutoWaitModel r;
  r.RecordForward(0, 0.001, 1);  // tau = clamp(8 ms, 2, 200) = 8 ms
  for (int i = 0; i < 2000; ++i) r.RecordArrival(1 + i * 0.0005, 1);  // 2000 / s
  const double last = 1 + 1999 * 0.0005;
  CHECK(r.Estimates(last).arrival_per_s == Approx(2000).epsilon(0.1));
  CHECK(r.Estimates(last + 0.1).arrival_per_s < 1);
}

TEST_CASE("adaptive wait: a measured cost seed, and where the ceiling counts from", "[server][autowait]") {
  // A measured seed gives the fixed cost before batch sizes vary, and
  // forwards that all have one size afterwards do not erase it.
  AutoWaitModel seeded;
  seeded.SeedCost(1, 0.0007, 8, 0.0021);  // t(b) = 0.5 ms + 0.2 ms * b
  CHECK(seeded.Estimates(0).t0_s == Approx(0.0005));
  CHECK(seeded.Estimates(0).c_s == Approx(0.0002));
  double at = 1;
  for (int i = 0; i < 500; ++i, at += 0.01) seeded.RecordForward(at, at + 0.0045, 20);  // on the same line
  CHECK(seeded.Estimates(at).t0_s == Approx(0.0005).epsilon(0.05));
  AutoWaitModel unseeded;  // the same forwards alone: all charged to t0
  for (int i = 0; i < 500; ++i) unseeded.RecordForward(1 + i * 0.01, 1 + i * 0.01 + 0.0045, 20);
  CHECK(unseeded.Estimates(at).t0_s == Approx(0.0045));

  // The ceiling bounds how long a batch stays open: from its opening, or from
  // its oldest request if that came later.  Time queued behind a forward does
  // not count.
  CHECK(AutoWaitModel::CeilingAt(10.0, 12.0, 0.005) == Approx(12.005));
  CHECK(AutoWaitModel::CeilingAt(12.5, 12.0, 0.005) == Approx(12.505));
}
