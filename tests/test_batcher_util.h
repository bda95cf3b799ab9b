// Helpers for tests that drive a Batcher in process (test_server_units,
// test_job_input).  Link gomoku_server_lib.
#pragma once

#include <memory>
#include <vector>

#include "infer_server/batcher.h"
#include "infer_server/job_input.h"

namespace gz::testing {

// A job for `target` with `positions`, encoded in `form` as a session would.
inline std::unique_ptr<InferJob> MakeInferJob(std::shared_ptr<ReplyTarget> target, uint64_t id, uint64_t client,
                                              std::vector<Position> positions, SymmetryMode mode, int board_size,
                                              InputForm form, double enqueued_at) {
  auto job = std::make_unique<InferJob>();
  job->target = std::move(target);
  job->request_id = id;
  job->client_id = client;
  job->positions = std::move(positions);
  EncodeJobInput(*job, mode, board_size, form);
  job->enqueued_at = enqueued_at;
  return job;
}

}  // namespace gz::testing
