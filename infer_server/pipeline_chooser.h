// Lockstep or two alternating halves: how batches are formed under
// server.max_wait = "auto" with server.auto_pipeline (docs/protocol.md,
// "Pipelining").
//
// When every client waits for the same forward (lockstep), each cycle is one
// forward plus the turnaround of all clients (replies written, clients woken,
// next requests read), during which the device idles.  With two halves, a
// batch holds half of the clients and the other half comes back while it
// runs: the device stays busy, at the price of two smaller forwards per
// cycle, which on a shared CPU also compete with the turnaround for cores.
// Which one wins depends on the network, the device and the clients, so it
// is measured, not predicted: the chooser runs epochs of kEpochBatches
// forwards and kEpochSeconds in one mode, keeps the positions/s each mode delivered, runs the
// better one, and tries the other one every kExploreEvery-th epoch (and at
// once while it has no figure for it).  A change in the number of connected
// clients starts over in lockstep.
//
// Thread-safety: none; the Batcher guards it with its mutex.
#pragma once

#include <cstdint>

namespace gz {

class PipelineChooser {
 public:
  enum class Mode : int { kLockstep = 0, kHalves = 1 };
  // What the stats report (a copy, taken under the Batcher's mutex).
  struct State {
    Mode mode = Mode::kLockstep;
    double lockstep_pos_per_s = 0, halves_pos_per_s = 0;  // 0 = not measured
  };
  static constexpr int kEpochBatches = 32;      // an epoch is at least this many forwards
  static constexpr double kEpochSeconds = 0.25;  // and at least this long (noise)
  static constexpr int kExploreEvery = 8;

  // A forward of `positions` ended at `now` while `clients` were connected.
  void RecordBatch(double now, int positions, int clients);
  Mode mode() const { return mode_; }
  // Clients a batch should hold in the current mode: 0 = no limit
  // (lockstep, or fewer than 2 clients); else half of them, rounded up.
  int GroupSize(int clients) const;
  // Positions/s last measured in `m` (0 = not measured since the last reset).
  double Rate(Mode m) const { return rate_[static_cast<int>(m)]; }
  int64_t epochs() const { return epochs_; }
  State state() const { return {mode_, rate_[0], rate_[1]}; }

 private:
  void StartOver(int clients);

  Mode mode_ = Mode::kLockstep;
  int clients_ = -1;
  double epoch_start_ = 0;
  int batches_ = 0;  // in the current epoch, the opening one included
  double positions_ = 0;
  double rate_[2] = {0, 0};
  int64_t epochs_ = 0;
};

const char* PipelineModeName(PipelineChooser::Mode m);

}  // namespace gz
