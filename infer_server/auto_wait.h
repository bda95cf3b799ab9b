// The adaptive batch wait (server.max_wait = "auto"; docs/protocol.md,
// "Adaptive wait").  Online estimates and the rule, no threads, no clock:
// callers pass MonotonicSeconds().
//
// Estimates, all over a sliding time scale tau = clamp(8 x average forward
// time, 2 ms, 200 ms):
//   lambda  arrival rate of positions to forward (exponentially decayed count / tau)
//   rho     fraction of recent wall time the batch thread spent in forwards
//   t0, c   forward cost model t(b) = t0 + c*b, b = positions in the forward,
//           fitted by exponentially weighted least squares over the last ~32
//           forwards (kept from the last fit while batch sizes do not vary)
//
// The rule (with b positions in the open batch):
//   budget(b) = (t0 * (1 + rho*b) - c*b) / (b + 1)
// Waiting for one more position delays the b positions already in the batch
// by the wait plus c each; it saves the newcomer its own forward's fixed cost
// t0 (minus the wait) and, when the device is busy (rho), spares the ~rho*b
// positions of the next forward that t0.  So keep waiting only while the
// expected gap to the next position 1/lambda is <= budget(b) and less than
// budget(b) has passed since the batch last grew.  Hard limits (max_batch,
// every connected client in the batch, auto_wait_ceiling_ms) are the
// Batcher's.
// Whether a batch holds every client or half of them is PipelineChooser's
// (pipeline_chooser.h).
//
// Thread-safety: none; the Batcher guards it with its mutex.
#pragma once

#include <cstdint>

namespace gz {

struct WaitEstimates {
  double t0_s = 0;            // fixed cost of a forward
  double c_s = 0;             // cost per position
  double arrival_per_s = 0;   // lambda
  double busy = 0;            // rho, in [0, 1]
  double tau_s = 0;           // the averaging time scale
  int64_t forwards = 0;       // forwards seen
};

class AutoWaitModel {
 public:
  // `positions` that will need a forward arrived at `now`.
  void RecordArrival(double now, int positions);
  // A forward of `positions` ran from `start` to `end`.
  void RecordForward(double start, double end, int positions);
  // Replaces the cost-model fit with two measured forwards (b1 != b2
  // positions taking t1 and t2 s), weighted as two recent samples, so that
  // the fixed cost t0 is known before batch sizes vary (a new model).
  void SeedCost(int b1, double t1, int b2, double t2);
  WaitEstimates Estimates(double now) const;

  // Seconds worth waiting for one more position with b >= 1 positions in the
  // batch (<= 0: not worth waiting at all).
  static double Budget(int b, const WaitEstimates& e);
  // The latest time the batch should stay open given that it last grew at
  // `last_growth`; returns a value <= now when it should close now.
  static double OpenUntil(int b, const WaitEstimates& e, double now, double last_growth);
  // When a batch that opened at `opened`, with its oldest request arrived at
  // `oldest`, must close at the latest: the ceiling bounds how long the
  // batch is kept open while the device is free, not the time its requests
  // spent queued behind the forward in flight.
  static double CeilingAt(double oldest, double opened, double ceiling_s);

 private:
  double Tau() const;
  void Fit();  // t0_, c_ from the moments

  // Decayed counters (value as of their *_at time).
  double arrivals_ = 0, arrivals_at_ = 0;
  double busy_ = 0, busy_at_ = 0;
  double avg_forward_s_ = 0;
  // Weighted least-squares moments of (b, t).
  double s0_ = 0, sx_ = 0, sy_ = 0, sxx_ = 0, sxy_ = 0;
  double t0_ = 0, c_ = 0;
  bool fitted_ = false;
  int64_t forwards_ = 0;
};

}  // namespace gz
