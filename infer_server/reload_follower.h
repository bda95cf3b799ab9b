// A self-play host's server following the trainer's reload announcements
// (multi-host runs: run.host set; docs/operations.md "Many hosts").
//
// Every `heartbeat_s` the follower's thread reads <run>/reload.json.  When it
// announces a generation newer than the one serving, the weights go through
// the Reloader exactly as a RELOAD request does (loaded and validated off the
// serving path, into every board size the server serves; a refused file
// leaves the old model serving).  The outcome is
// acknowledged in <run>/status/{host}/reload_ack.json, which the thread also
// rewrites on every tick as the host's heartbeat (its `seq` grows each time).
// A refused announcement is not retried until reload.json changes.  Before
// the first model serves, an announcement that metadata.json already names is
// left to the Reloader's initial load (one load, not two).
//
// Thread-safety: Start/Stop from one thread; the Reloader's callback may run
// on any thread (it only stores the outcome under the mutex).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "common/base/periodic_thread.h"
#include "infer_server/reloader.h"

namespace gz {

struct ReloadFollowerOptions {
  std::string run_dir;
  std::string host;          // non-empty (run.host)
  double heartbeat_s = 1.0;  // server.heartbeat_s
};

class ReloadFollower {
 public:
  // Borrows the reloader (which loads into every lane of the server; the
  // serving generation is Reloader::generation()).  The reloader calls back
  // into this object: stop the Reloader (Reloader::Stop) before this object
  // is destroyed.
  ReloadFollower(ReloadFollowerOptions options, Reloader* reloader);
  ~ReloadFollower();  // Stop()s

  void Start();
  void Stop();  // joins; a reload in flight still completes inside the Reloader

 private:
  void Tick();
  void WriteAck();

  ReloadFollowerOptions options_;
  Reloader* reloader_;

  std::mutex mu_;
  bool in_flight_ = false;           // a Request is pending; guarded by mu_
  // The newest announcement acted on (guarded by mu_).
  bool has_announcement_ = false;
  int64_t announced_generation_ = -1;
  bool announcement_ok_ = false;
  std::string announcement_reason_;
  double announcement_at_ = 0;
  std::string serving_weights_;

  // Follower thread only.
  int64_t seq_ = 0;
  std::string attempted_signature_;  // reload.json contents last acted on
  std::string last_error_;           // last logged read error (logged once)

  PeriodicThread thread_;  // runs Tick every heartbeat_s; last, so it stops first
};

}  // namespace gz
