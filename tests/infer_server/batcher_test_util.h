// Helpers for tests that drive a Batcher in process (test_batcher,
// test_job_input, test_session).  Link gomoku_server.
#pragma once

#include <future>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "infer_server/batcher.h"
#include "infer_server/job_input.h"
#include "infer_server/serving_model.h"
#include "tests/infer_server/server_test_util.h"

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

// The tiny test network (8x1 on kTestBoard, seed 3) of `generation`,
// written to dir and loaded as the server loads models.
inline std::unique_ptr<ServingModel> LoadTinyServingModel(const std::string& dir, int64_t generation = 7) {
  ModelRequirements req;
  req.board_size = kTestBoard;
  return LoadServingModel(MakeCheckpoint(dir, "tiny" + std::to_string(generation) + ".pt", 3, generation), req);
}

// Hands `m` to the batcher and waits until it serves; the swap must report m's generation.
inline void InstallAndWait(Batcher& b, std::unique_ptr<ServingModel> m) {
  std::promise<int64_t> swapped;
  auto fut = swapped.get_future();
  const int64_t want = m->generation;
  b.InstallModel(std::move(m), [&](int64_t g) { swapped.set_value(g); });
  REQUIRE(fut.get() == want);
  // The callback ran on the busy batch thread: wait until it is idle, so that
  // the caller's next Submit meets the state it expects (e.g. an inline batch).
  REQUIRE(WaitUntil([&] { return b.Idle(); }, 10));
}

}  // namespace gz::testing
