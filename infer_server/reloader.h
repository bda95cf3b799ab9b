// The reload thread: loads and validates models off the serving path and
// hands them to the Batcher, which swaps them in between batches.
//
// Start-up: the initial model comes from a weights file (--weights) or from
// <run>/metadata.json's "weights" (--run-dir).  Until it exists the thread
// waits, re-checking once a second and logging every few seconds, so the
// server can start before the trainer.  A RELOAD that succeeds meanwhile ends
// the wait.  A file that fails validation is retried only after it changes.
//
// RELOAD requests are processed one at a time in arrival order.  `done` is
// called exactly once: done(generation, "") after the new model is serving, or
// done(-1, reason) when the file was refused (the old model keeps serving) or
// the server is stopping.  It runs on the reload or batch thread and must not
// block.  Thread-safety: all public methods may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "infer_server/batcher.h"
#include "infer_server/serving_model.h"

namespace gz {

struct InitialModelSource {
  std::string weights;  // --weights PATH (wins when set)
  std::string run_dir;  // --run-dir DIR: follow metadata.json's "weights"
  bool empty() const { return weights.empty() && run_dir.empty(); }
  std::string Describe() const;
};

class Reloader {
 public:
  using Done = std::function<void(int64_t generation, const std::string& error)>;
  // measure_peak_flops: after the first model loads (before it serves), time
  // MeasurePeakFlops on the serving device and give it to stats (MFU).
  Reloader(Batcher* batcher, ModelRequirements req, ServerStats* stats, bool measure_peak_flops = true);
  ~Reloader();  // Stop()s

  void Start(InitialModelSource initial);
  void Request(std::string path, Done done);
  // Answers queued requests with an error and joins (a load in progress finishes first).
  void Stop();

 private:
  struct Job {
    std::string path;
    Done done;
  };
  void Loop();
  bool TryInitial();  // true once a model is serving (or there is no initial source)
  // Loads, validates and installs; returns the generation; throws on refusal.
  int64_t LoadAndInstall(const std::string& path);

  void MeasurePeakOnce();  // reload thread, before the first model serves

  Batcher* batcher_;
  ModelRequirements req_;
  ServerStats* stats_;
  bool measure_peak_;
  bool peak_measured_ = false;  // reload thread only
  InitialModelSource initial_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;        // guarded by mu_
  bool stopping_ = false;       // guarded by mu_
  bool initial_pending_ = false;  // guarded by mu_
  std::thread thread_;

  // Initial wait bookkeeping (reload thread only).
  double next_wait_log_ = 0;
  std::string failed_signature_;  // path|size|mtime of the last refused initial file
};

}  // namespace gz
