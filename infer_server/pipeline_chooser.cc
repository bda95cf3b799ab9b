#include "infer_server/pipeline_chooser.h"

namespace gz {

const char* PipelineModeName(PipelineChooser::Mode m) {
  return m == PipelineChooser::Mode::kHalves ? "halves" : "lockstep";
}

void PipelineChooser::StartOver(int clients) {
  clients_ = clients;
  mode_ = Mode::kLockstep;
  rate_[0] = rate_[1] = 0;
  batches_ = 0;
  positions_ = 0;
}

int PipelineChooser::GroupSize(int clients) const {
  return mode_ == Mode::kHalves && clients >= 2 ? (clients + 1) / 2 : 0;
}

void PipelineChooser::RecordBatch(double now, int positions, int clients) {
  if (clients != clients_) StartOver(clients);
  if (batches_++ == 0) {  // the epoch's clock starts when its first forward ends
    epoch_start_ = now;
    positions_ = 0;
    return;
  }
  positions_ += positions;
  const double elapsed = now - epoch_start_;
  if (batches_ <= kEpochBatches || elapsed < kEpochSeconds) return;
  const int m = static_cast<int>(mode_), other = 1 - m;
  if (elapsed > 0) {
    const double r = positions_ / elapsed;
    rate_[m] = rate_[m] > 0 ? 0.5 * (rate_[m] + r) : r;
  }
  ++epochs_;
  batches_ = 0;
  positions_ = 0;
  if (clients < 2) {
    mode_ = Mode::kLockstep;
  } else if (rate_[other] <= 0 || epochs_ % kExploreEvery == 0) {
    mode_ = static_cast<Mode>(other);
  } else {
    mode_ = rate_[other] > rate_[m] ? static_cast<Mode>(other) : mode_;
  }
}

}  // namespace gz
