// The pipeline chooser in process (infer_server/pipeline_chooser.h): it
// measures lockstep and two halves, runs the better, explores, and starts
// over when a client joins.  Inside a running Batcher: test_batcher.
#include <catch2/catch.hpp>

#include <cstdint>

#include "infer_server/pipeline_chooser.h"

using namespace gz;

TEST_CASE("pipeline chooser: measures both modes, runs the better, explores, starts over", "[server][autowait]") {
  using Mode = PipelineChooser::Mode;
  PipelineChooser p;
  double now = 0;
  // One epoch in the current mode: forwards of 10 positions every `dt` s
  // (dt * kEpochBatches < kEpochSeconds: the epoch lasts its minimum time).
  auto epoch = [&](double dt, int clients = 20) {
    const int64_t before = p.epochs();
    while (p.epochs() == before) {
      now += dt;
      p.RecordBatch(now, 10, clients);
    }
  };
  CHECK(p.mode() == Mode::kLockstep);
  CHECK(p.GroupSize(20) == 0);
  epoch(0.005);  // lockstep: 2000 positions/s
  CHECK(p.Rate(Mode::kLockstep) == Approx(2000));
  CHECK(p.mode() == Mode::kHalves);  // no figure for halves yet: try it
  CHECK(p.GroupSize(20) == 10);
  CHECK(p.GroupSize(21) == 11);
  CHECK(p.GroupSize(1) == 0);
  epoch(0.004);  // halves: 2500 positions/s
  CHECK(p.Rate(Mode::kHalves) == Approx(2500));
  CHECK(p.mode() == Mode::kHalves);  // the better one
  // It stays with halves, except for one lockstep epoch in kExploreEvery.
  int lockstep_epochs = 0;
  for (int e = 0; e < 2 * PipelineChooser::kExploreEvery; ++e) {
    const bool lock = p.mode() == Mode::kLockstep;
    lockstep_epochs += lock;
    epoch(lock ? 0.005 : 0.004);
  }
  CHECK(lockstep_epochs == 2);
  // Lockstep becomes the faster one: the next lockstep epoch shows it, and
  // the chooser stays there.
  while (p.mode() != Mode::kLockstep) epoch(0.004);
  epoch(0.002);  // lockstep now 5000 positions/s (averaged with 2000: 3500)
  CHECK(p.Rate(Mode::kLockstep) == Approx(3500));
  CHECK(p.mode() == Mode::kLockstep);
  epoch(0.002);
  CHECK(p.mode() == Mode::kLockstep);
  // A client joins: the figures no longer apply; lockstep, then halves again.
  epoch(0.002, 21);
  CHECK(p.Rate(Mode::kHalves) == 0);
  CHECK(p.mode() == Mode::kHalves);
}
