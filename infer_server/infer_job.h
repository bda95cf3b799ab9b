// What the batch loop moves: one INFER request (InferJob), the answer it gets
// back (JobOutcome) and where the answer goes (ReplyTarget), and the form of
// its network input (InputForm).  Shared by the batcher (batcher.h), the
// input encoding (job_input.h) and the service that submits jobs; it includes
// neither of them, so the two point only at it.
//
// Thread-safety: plain data; a job is owned by one thread at a time (the
// submitter, then the batch thread, then the ReplyTarget).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/wire/wire.h"

namespace gz {

struct InferJob;

// What a finished job carries back: raw per-symmetry network outputs of its
// forwarded positions (the receiver combines them with CombineSymmetric and
// merges the cached ones) or an error.
struct JobOutcome {
  bool ok = false;
  int64_t generation = -1;
  std::vector<float> log_policy;  // forwarded positions x symmetries x points
  std::vector<float> values;      // forwarded positions x symmetries
  wire::ErrorCode error_code = wire::ErrorCode::kInternal;
  std::string error;
};

class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  // Called once per job on the batch thread (or the thread that Stop()s).
  // write_here = true: no job is waiting for the next forward, so the target
  // may build and write the reply on this thread; false: it must hand the
  // work to another thread and return at once.  Never blocks.
  virtual void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) = 0;
};

// How a job's positions reach the forward (job_input.h): float planes
// encoded on the host (EncodeSymmetric), or compact rows that the backend
// encodes on its device (BatchForward::TakesCompactRows).
enum class InputForm : uint8_t { kPlanes = 0, kCompactRows = 1 };

// One INFER request as the batch thread sees it.  A submitter may submit an
// object of a type derived from InferJob to keep its own state with the job
// (InferenceService does): Deliver hands back the object that was submitted.
struct InferJob {
  virtual ~InferJob() = default;
  std::weak_ptr<ReplyTarget> target;  // expired = the client is gone; the answer is dropped
  uint64_t client_id = 0;             // distinct per connection (auto wait)
  uint64_t request_id = 0;            // the submitter's; not read by the batcher
  std::vector<Position> positions;    // all positions of the request
  // Per position, whether the submitter already has its answer from the
  // cache, looked up under generation cache_generation (empty: none).  Such
  // positions are not forwarded, unless the model was swapped since: then the
  // batch thread clears `hit` and forwards them all.
  std::vector<uint8_t> hit;
  int64_t cache_generation = -1;
  int forward_count = 0;              // positions to forward (those without a hit)
  // The positions to forward, in order, in one InputForm (EncodeJobInput):
  std::vector<float> planes;          // kPlanes: EncodeSymmetric of each
  std::vector<uint8_t> rows;          // kCompactRows: a compact row per symmetry of each
  double enqueued_at = 0;             // MonotonicSeconds()
};

}  // namespace gz
