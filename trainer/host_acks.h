// The trainer's view of the self-play hosts of a multi-host run, and the wait
// for their acknowledgements of a reload announcement (docs/operations.md
// "Many hosts").
//
// HostMonitor's thread reads <run>/status/*/reload_ack.json every poll_s.  A
// host is live while its ack file's `seq` keeps changing: the trainer notes
// on its own monotonic clock when it last saw a change, so the hosts' clocks
// never matter.  A host seen for the first time counts as heard from then.
//
// AwaitHostAcks (after reload.json has been written) returns once every live
// host serves `generation` or has been excluded:
//   - silent: no heartbeat for run.host_timeout_s -> excluded, named, and
//     logged; it rejoins by itself at a later iteration once it is heard again
//     and serves the announced weights;
//   - live but not serving `generation` within train.reload_timeout_s ->
//     excluded (its workers refuse its older answers: FallbackEvaluator's
//     minimum generation);
//   - refused the weights (its ack says so) -> ReloadRefusedError naming the
//     host and the reason: the weights must not be published.
// Thread-safety: HostMonitor's public methods may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/base/periodic_thread.h"
#include "common/data/host_reload.h"

namespace gz {

struct HostView {
  std::string host;
  bool live = false;
  double silent_s = 0;  // since the trainer last saw its heartbeat change
  HostAck ack;
};

class HostMonitor {
 public:
  HostMonitor(std::string run_dir, double host_timeout_s, double poll_s = 0.25);
  ~HostMonitor();  // Stop()s

  void Start();
  void Stop();
  // Reads the ack files once now (also done by the thread).
  void Poll();
  std::vector<HostView> Snapshot() const;
  double host_timeout_s() const { return host_timeout_s_; }

 private:
  struct Seen {
    HostAck ack;
    int64_t seq = -1;
    int64_t pid = 0;
    double changed_at = 0;  // MonotonicSeconds
    std::string error;      // last unreadable-file message (logged once)
  };
  std::string run_dir_;
  double host_timeout_s_;
  double poll_s_;
  mutable std::mutex mu_;
  std::map<std::string, Seen> hosts_;  // guarded by mu_
  PeriodicThread thread_;              // Poll every poll_s; last, so it stops first
};

struct HostReloadOutcome {
  std::vector<std::string> acknowledged;                     // hosts serving the generation
  std::vector<std::pair<std::string, std::string>> excluded;  // (host, why)
  double seconds = 0;
  bool stopped = false;
  nlohmann::json ToJson() const;
};

HostReloadOutcome AwaitHostAcks(HostMonitor& monitor, int64_t generation, double timeout_s,
                                const std::atomic<bool>* stop);

}  // namespace gz
