// The batch loop: collects INFER jobs from every connection into batches and
// runs one forward per batch on its own thread.
//
// A batch opens with the oldest waiting job; its deadline is that job's
// arrival time + max_wait.  It closes when it holds >= max_batch positions,
// when the deadline passes, or (max_wait "auto") as soon as every connected
// inference client has a job in it (nobody else can add to it).  Waiting uses a
// condition variable with a deadline: no polling, an idle server sleeps.
// Connections keep submitting while a forward runs, so the next batch is
// already assembling.  All symmetries of every position go into the same
// forward (the planes are encoded by the submitter with EncodeSymmetric).
//
// Models are swapped only between batches (InstallModel); a batch in flight
// finishes on the model it started with.
//
// Thread-safety: every public method may be called from any thread.  Results
// are handed to ReplyTarget::Deliver on the batch thread; Deliver must not
// block (post to an io strand).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/board.h"
#include "common/symmetric_batch.h"
#include "common/wire.h"
#include "infer_server/server_stats.h"
#include "infer_server/serving_model.h"

namespace gz {

struct InferJob;

// What a finished job carries back: raw per-symmetry network outputs (the
// receiver combines them with CombineSymmetric) or an error.
struct JobOutcome {
  bool ok = false;
  int64_t generation = -1;
  std::vector<float> log_policy;  // positions x symmetries x points
  std::vector<float> values;      // positions x symmetries
  wire::ErrorCode error_code = wire::ErrorCode::kInternal;
  std::string error;
};

class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  // Called once per job on the batch thread.  Must not block.
  virtual void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome) = 0;
};

struct InferJob {
  std::weak_ptr<ReplyTarget> target;  // expired = the client is gone; the answer is dropped
  uint64_t client_id = 0;             // distinct per connection (auto wait)
  uint64_t request_id = 0;
  std::vector<Position> positions;
  std::vector<float> planes;  // EncodeSymmetric of each position, concatenated
  double enqueued_at = 0;     // MonotonicSeconds()
};

struct BatchSettings {
  int board_size = 15;
  SymmetryMode symmetry = SymmetryMode::kAll8;
  int max_batch = 20;       // positions (not counting symmetries)
  double max_wait_ms = 3;   // fixed window
  bool auto_wait = false;   // "auto": close early when every client is in the batch
  double auto_wait_ceiling_ms = 5;
};

class Batcher {
 public:
  Batcher(BatchSettings settings, ServerStats* stats);
  ~Batcher();  // Stop()s
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  void Start();
  // Queues a job.  Returns false (job untouched) with *code/*why set when it
  // cannot be served: no model loaded yet, or the batcher is stopping.
  bool Submit(std::unique_ptr<InferJob>& job, wire::ErrorCode* code, std::string* why);
  // Hands over a validated model; it is swapped in between batches, then
  // on_swapped(generation) runs on the batch thread (must not block).
  void InstallModel(std::unique_ptr<ServingModel> model, std::function<void(int64_t)> on_swapped);
  // Finishes the batch in flight, answers every queued job with
  // kShuttingDown, and joins the thread.  Idempotent.
  void Stop();

  // Connected clients that said HELLO (for the auto wait).
  void AddClient() { ++clients_; }
  void RemoveClient() { --clients_; }

  bool has_model() const;
  int64_t generation() const;    // -1 before the first model
  std::string model_path() const;
  const BatchSettings& settings() const { return settings_; }

 private:
  void Loop();
  // Swaps in the pending model if any.  Called with mu_ held.
  void SwapIfPending(std::unique_lock<std::mutex>& lk);
  void RunBatch(std::vector<std::unique_ptr<InferJob>>& batch);
  void FailAll(std::vector<std::unique_ptr<InferJob>>& jobs, wire::ErrorCode code, const std::string& why);

  const BatchSettings settings_;
  ServerStats* stats_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<InferJob>> queue_;                // guarded by mu_
  std::unique_ptr<ServingModel> pending_model_;                // guarded by mu_
  std::function<void(int64_t)> pending_callback_;              // guarded by mu_
  std::shared_ptr<const ServingModel> model_;                  // guarded by mu_ (read by the loop)
  bool stopping_ = false;                                      // guarded by mu_
  std::atomic<int> clients_{0};

  std::thread thread_;
  // Scratch buffers, batch thread only.
  std::vector<float> planes_, logp_, values_;
};

}  // namespace gz
