// The reload thread: loads and validates models off the serving path and
// hands them to the Batchers, which swap them in between batches.
//
// Lanes: a server that serves several board sizes has one Batcher per size
// (its "lane"); every load (start-up and RELOAD) loads the checkpoint once per
// lane, at that lane's BatchSettings.board_size.  All lanes' models are
// validated first; if any lane refuses the file, none is installed (every lane
// keeps its old model) and the reason names the lane's size.  Otherwise every
// lane gets its model, and the load counts as done once every lane has swapped.
//
// Start-up: the initial model comes from a weights file (--weights) or from
// <run>/metadata.json's "weights" (--run-dir).  Until it exists the thread
// waits, re-checking once a second and logging every few seconds, so the
// server can start before the trainer.  A RELOAD that succeeds meanwhile ends
// the wait.  A file that fails validation is retried only after it changes.
//
// RELOAD requests are processed one at a time in arrival order.  `done` is
// called exactly once: done(generation, "") after the new model is serving, or
// done(-1, reason) when the file was refused (the old model keeps serving in
// every lane) or the server is stopping.  It runs on the reload or batch thread and must not
// block.  Thread-safety: all public methods may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
  // One lane per batcher (not owned, non-empty, distinct board sizes); each
  // lane's models load with req.board_size replaced by its batcher's
  // settings().board_size.
  Reloader(std::vector<Batcher*> lanes, ModelRequirements req, ServerStats* stats, bool measure_peak_flops = true);
  // A server of one board size.
  Reloader(Batcher* batcher, ModelRequirements req, ServerStats* stats, bool measure_peak_flops = true)
      : Reloader(std::vector<Batcher*>{batcher}, std::move(req), stats, measure_peak_flops) {}
  ~Reloader();  // Stop()s

  // The generation every lane serves: the lowest lane's (-1 until every lane
  // has a model).  Lanes differ only for the moment of a swap.
  int64_t generation() const;

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
  // Loads and validates for every lane, then installs in every lane; returns
  // the generation; throws on refusal (nothing installed then).
  int64_t LoadAndInstall(const std::string& path);

  void MeasurePeakOnce();  // reload thread, before the first model serves

  const std::vector<Batcher*> lanes_;
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
