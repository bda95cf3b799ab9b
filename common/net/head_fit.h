// Fitting a conv-heads net to an fc net's outputs (build/bin/derive_net
// --heads conv from an fc net): the student's heads, or (`whole`, derive_net's
// default) the whole student, learn to give the teacher's outputs.
//
// Why: a conv-heads net made from an fc net keeps its tower, but its new heads
// start random, and self-play from random heads can lock into a wrong value
// (measured 2026-12-06: a 15x15 fc net's tower with fresh conv heads, trained
// by the main job on 15x15 + 20x20, had black lose 44-47 of 50 self-play games
// from iteration 2 on, answering the empty board on the edge with value
// -0.7).  Fitted heads start where the teacher is, and self-play goes on
// from there.
//
// How: `positions` positions of `size` x `size` games under the teacher's rule
// (0-4 random stones near the centre, then moves drawn from the teacher's
// policy), the teacher's log-policy and value for each, the student's tower
// features for each (the tower is frozen: it is the teacher's), then `steps`
// Adam steps of 256 positions on the heads only: KL(teacher || student) on the
// policy plus the squared value difference.  Deterministic in `seed` (on one
// thread).
//
// With `whole`, the tower is trained too (stem and residual blocks): the
// student becomes a distilled copy of the teacher.  Why: a 1x1 conv head on
// an fc net's tower cannot copy position-specific fc weights (measured
// 2026-12-06 on the 2026-12-05 net: top move agrees 37%, and the fitted net
// answers the empty board 4 points from the centre), while a trained tower
// can learn where the centre is from the zero padding.
// Thread-safety: one call at a time per net.
#pragma once

#include <cstdint>
#include <string>

#include "common/game/board.h"
#include "common/net/model.h"

namespace gz {

struct HeadFitOptions {
  int positions = 24000;
  int steps = 2000;
  uint64_t seed = 1;
  int size = 15;
  Rule rule = Rule::kFreestyle;
  bool whole = false;  // train the stem and tower as well as the heads
};

struct HeadFitReport {
  int positions = 0;      // fitted on (90%) + held out (10%)
  double policy_kl = 0;   // held-out KL(teacher || student), nats
  double value_mse = 0;   // held-out mean squared value difference
  double top1_agree = 0;  // held-out share where both nets' most likely move agree
  std::string Describe() const;
};

// Preconditions: student has conv heads, the teacher plays `size`, both have
// the same channels and blocks, and (unless `whole`) the student's tower
// equals the teacher's.  The student's heads (and with `whole` its tower) are
// trained in place; it is left in eval mode.
HeadFitReport FitConvHeads(PolicyValueNet& teacher, PolicyValueNet& student, const HeadFitOptions& options);

}  // namespace gz
