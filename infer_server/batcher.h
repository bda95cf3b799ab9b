// The batch loop: collects INFER jobs from every connection into batches and
// runs one forward per batch on its own thread (docs/protocol.md, "Batching").
// A server has one Batcher per board size it serves (a "lane",
// BatchSettings.board_size): it sees only the connections bound to that size,
// its clients (AddClient) are theirs, and its model plays that size.
//
// A batch opens with the oldest waiting job and closes when it holds
// >= max_batch positions to forward, or:
//   fixed max_wait: when the oldest job has waited max_wait;
//   max_wait "auto": as soon as every connected inference client has a job in
//     it (nobody else can add to it), when it holds half of the clients while
//     PipelineChooser has two alternating halves run (not lockstep), when the
//     adaptive rule (auto_wait.h) says one more position is not worth waiting
//     for, and at the latest auto_wait_ceiling_ms after it opened (or after
//     its oldest job arrived, if later).
// Waiting uses a condition variable with a deadline: no polling, an idle
// server sleeps.  Connections keep submitting while a forward runs (their
// input already encoded by the I/O thread, in the model's input_form():
// float planes, or compact rows for a backend that encodes on its device;
// job_input.h), so the next batch is waiting in the queue when the forward
// ends.  All symmetries of every position go into
// the same forward.
//
// Cache: a job may mark positions whose answers its submitter found in the
// ResultCache (InferenceService, under generation `cache_generation`); only
// the other positions are forwarded.  If the model was swapped since
// the lookup, the batch thread forwards every position of the job instead, so
// one reply never mixes generations.  The cache is cleared at every swap.
//
// Models are swapped only between batches (InstallModel); a batch in flight
// finishes on the model it started with.
//
// Inline batches: when a submitted job would close a batch on its own (it
// fills max_batch, or max_wait is 0, or it is the only client under "auto")
// and nothing else is queued or running, Submit runs that batch on the
// calling I/O thread instead of waking the batch thread: the hand-off costs
// a thread wake-up, which is most of the per-request overhead at small
// batches.  Nothing can join such a batch anyway, and forwards stay
// serialised (one batch at a time, `busy_`).
//
// Thread-safety: every public method may be called from any thread.  Results
// are handed to ReplyTarget::Deliver on the batch thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/game/board.h"
#include "common/search/symmetric_batch.h"
#include "common/wire/wire.h"
#include "infer_server/auto_wait.h"
#include "infer_server/infer_job.h"
#include "infer_server/pipeline_chooser.h"
#include "infer_server/result_cache.h"
#include "infer_server/server_stats.h"
#include "infer_server/serving_model.h"

namespace gz {

struct BatchSettings {
  int board_size = 15;
  SymmetryMode symmetry = SymmetryMode::kAll8;
  int max_batch = 20;       // positions to forward (not counting symmetries)
  double max_wait_ms = 3;   // fixed window
  bool auto_wait = false;   // "auto": adaptive wait (auto_wait.h)
  double auto_wait_ceiling_ms = 5;
  bool auto_pipeline = false;  // auto: two alternating halves when measured faster (pipeline_chooser.h)
};

class Batcher {
 public:
  // `cache` (may be null) is cleared at every model swap; not owned.
  Batcher(BatchSettings settings, ServerStats* stats, ResultCache* cache = nullptr);
  ~Batcher();  // Stop()s
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  void Start();
  // Queues a job (job->forward_count >= 1), or runs it at once on this
  // thread as an inline batch (see above).  Returns false (job untouched)
  // with *code/*why set when it cannot be served: no model loaded yet, or
  // the batcher is stopping.
  bool Submit(std::unique_ptr<InferJob>& job, wire::ErrorCode* code, std::string* why);
  // Hands over a validated model that plays settings().board_size (checked);
  // it is swapped in between batches, then
  // on_swapped(generation) runs on the batch thread (must not block).
  void InstallModel(std::unique_ptr<ServingModel> model, std::function<void(int64_t)> on_swapped);
  // No batch is being collected or run and nothing is queued or pending (a
  // snapshot).  on_swapped runs while the batch thread is still busy, so a
  // caller that needs the next Submit to find the batcher idle waits for this.
  bool Idle() const;
  // Finishes the batch in flight, answers every queued job with
  // kShuttingDown, and joins the thread.  Idempotent.
  void Stop();

  // Connected clients that said HELLO of this batcher's board size (for the auto wait).
  void AddClient() { ++clients_; }
  void RemoveClient() { --clients_; }

  // Exclusive use of the device: held by the batch thread around every
  // forward.  The reloader takes it while it builds a model whose
  // construction must not overlap forwards (CUDA graph capture in LibTorch's
  // global capture mode); serving pauses meanwhile.
  std::unique_lock<std::mutex> LockDevice() { return std::unique_lock<std::mutex>(device_mu_); }

  // The serving model's input form (kPlanes before the first model).
  InputForm input_form() const { return input_form_.load(); }
  int64_t generation() const { return generation_.load(); }  // -1 before the first model
  const BatchSettings& settings() const { return settings_; }
  ResultCache* cache() const { return cache_; }

 private:
  void Loop();
  // Takes whole queued requests into `batch` (non-empty queue on entry) until
  // the batch closes: full, deadline, every client in, auto-wait estimate,
  // pipeline group, or stop.  Holds lk except while waiting for arrivals.
  BatchClose CollectBatch(std::unique_lock<std::mutex>& lk, std::vector<std::unique_ptr<InferJob>>& batch);
  // Swaps in the pending model if any.  Called with mu_ held.
  void SwapIfPending(std::unique_lock<std::mutex>& lk);
  // Whether a job just queued must wake the batch thread: it is not
  // collecting a batch (waiting for the first job, or running one), or the
  // queue now fills the batch it collects.  Arrivals that leave a fixed-window
  // batch short change nothing before its deadline, so they do not wake it
  // (one futex wake and context switch per request saved).  Called with mu_ held.
  bool WakeNeeded() const;
  // One forward of `batch` and its answers, in the steps below (batch thread).
  void RunBatch(std::vector<std::unique_ptr<InferJob>>& batch, BatchClose close);
  struct BatchSize {
    int positions = 0;  // of the requests, cache hits included
    int forwarded = 0;  // that go through the forward
  };
  // Encodes what is missing (a stale cache hit, another model's input form)
  // and lays the batch's input out in planes_ or rows_, sizing logp_ and values_.
  BatchSize GatherInput(std::vector<std::unique_ptr<InferJob>>& batch, const ServingModel& model, InputForm form);
  // The forward in the stats, the adaptive wait's model and the pipeline chooser.
  void RecordForward(const std::vector<std::unique_ptr<InferJob>>& batch, const ServingModel& model,
                     BatchClose close, const BatchSize& size, double t0, double t1);
  // Each job's rows of logp_ and values_ to its connection (or counted dropped).
  void DeliverAnswers(std::vector<std::unique_ptr<InferJob>>& batch, int64_t generation);
  void FailAll(std::vector<std::unique_ptr<InferJob>>& jobs, wire::ErrorCode code, const std::string& why);

  const BatchSettings settings_;
  ServerStats* stats_;
  ResultCache* cache_;

  std::mutex device_mu_;  // see LockDevice
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<InferJob>> queue_;                // guarded by mu_
  std::unique_ptr<ServingModel> pending_model_;                // guarded by mu_
  std::function<void(int64_t)> pending_callback_;              // guarded by mu_
  std::shared_ptr<const ServingModel> model_;                  // guarded by mu_ (read by the loop)
  bool stopping_ = false;                                      // guarded by mu_
  AutoWaitModel wait_model_;                                   // guarded by mu_
  PipelineChooser pipeline_;                                   // guarded by mu_
  std::atomic<int> clients_{0};
  bool busy_ = false;  // a batch is being collected or run (either thread); guarded by mu_
  int queued_positions_ = 0;       // sum of forward_count over queue_; guarded by mu_
  int collecting_positions_ = -1;  // positions of the batch the loop waits to fill, -1 if not waiting; guarded by mu_
  std::atomic<int64_t> generation_{-1};
  std::atomic<InputForm> input_form_{InputForm::kPlanes};
  std::atomic<int> queued_{0};                                 // queue_.size(), readable without mu_

  std::thread thread_;
  // Scratch buffers, batch thread only.
  std::vector<float> planes_, logp_, values_;
  std::vector<uint8_t> rows_;
};

}  // namespace gz
