// A job's network input in the serving model's InputForm (infer_job.h).
//
// InferenceService encodes each INFER job on the I/O thread, while the previous
// forward runs, in the form the serving model takes (Batcher::input_form):
//   kPlanes      - EncodeSymmetric of each position to forward: the
//                  symmetries' float planes (host encoding; the CPU path);
//   kCompactRows - one compact row (common/net/cuda/compact_row.h) per
//                  symmetry of each position to forward, symmetry index
//                  included: ~size*size + 4 bytes a row instead of 16 bytes a
//                  point; the backend encodes them on its device (CudaForward
//                  with server.device_encode).
// Both forms list the same rows in the same order (SymmetriesFor), so a
// backend's ForwardCompact answers exactly what Forward answers on the planes.
// The batch thread re-encodes a job whose form no longer matches (a model of
// the other form was swapped in meanwhile) or whose cached hits went stale.
//
// Thread-safety: pure functions over a job that the caller owns.
#pragma once

#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"
#include "infer_server/infer_job.h"

namespace gz {

InputForm InputFormOf(const BatchForward& forward);

// Fills the input of `form` for every position of `job` without a cache hit
// (job.hit empty = none), in order, and empties the other form.  Sets
// job.forward_count.  Throws GomokuError for a position whose size is not
// board_size.
void EncodeJobInput(InferJob& job, SymmetryMode mode, int board_size, InputForm form);

// True when job holds the input of `form` for its job.forward_count positions.
bool HasJobInput(const InferJob& job, SymmetryMode mode, int board_size, InputForm form);

}  // namespace gz
