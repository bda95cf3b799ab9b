#include "infer_server/job_input.h"

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/net/cuda/compact_batch.h"
#include "common/game/symmetry.h"

namespace gz {

InputForm InputFormOf(const BatchForward& forward) {
  return forward.TakesCompactRows() ? InputForm::kCompactRows : InputForm::kPlanes;
}

void EncodeJobInput(InferJob& job, SymmetryMode mode, int board_size, InputForm form) {
  const int n = static_cast<int>(job.positions.size());
  GOMOKU_CHECK(job.hit.empty() || job.hit.size() == job.positions.size(), "job hit flags do not match its positions");
  int count = 0;
  for (int i = 0; i < n; ++i) {
    GOMOKU_CHECK(job.positions[i].size == board_size,
                 "position of size " << job.positions[i].size << " on a server for size " << board_size);
    if (job.hit.empty() || !job.hit[i]) ++count;
  }
  job.forward_count = count;
  const int per = SymmetriesPerPosition(mode);
  if (form == InputForm::kPlanes) {
    job.rows.clear();
    const size_t block = static_cast<size_t>(per) * PlaneFloats(board_size);
    job.planes.resize(static_cast<size_t>(count) * block);
    float* out = job.planes.data();
    for (int i = 0; i < n; ++i) {
      if (!job.hit.empty() && job.hit[i]) continue;
      EncodeSymmetric(job.positions[i], mode, out);
      out += block;
    }
    return;
  }
  job.planes.clear();
  const size_t stride = static_cast<size_t>(CompactRowBytes(board_size));
  job.rows.resize(static_cast<size_t>(count) * per * stride);
  uint8_t* out = job.rows.data();
  int syms[kNumSymmetries];
  for (int i = 0; i < n; ++i) {
    if (!job.hit.empty() && job.hit[i]) continue;
    SymmetriesFor(job.positions[i], mode, syms);
    for (int s = 0; s < per; ++s, out += stride) PackCompactRow(job.positions[i], syms[s], out);
  }
}

bool HasJobInput(const InferJob& job, SymmetryMode mode, int board_size, InputForm form) {
  const size_t rows = static_cast<size_t>(job.forward_count) * SymmetriesPerPosition(mode);
  if (form == InputForm::kPlanes) return job.planes.size() == rows * PlaneFloats(board_size) && job.rows.empty();
  return job.rows.size() == rows * CompactRowBytes(board_size) && job.planes.empty();
}

}  // namespace gz
