// Server counters and the periodic stats snapshot (log line, STATS reply,
// <run>/status/server.json all carry the same JSON).
//
// Thread-safety: every method may be called from any thread (one mutex; the
// batch thread takes it once per batch).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz {

class ServerStats {
 public:
  ServerStats();

  // One forward: `requests` INFER frames with `positions` positions, the
  // forward took forward_ms, each request waited queue_wait_ms[i] in the queue.
  void RecordBatch(int requests, int positions, double forward_ms, const std::vector<double>& queue_wait_ms);
  void RecordDropped() { ++dropped_answers_; }       // answer for a client that had gone
  void RecordConnection() { ++connections_total_; }
  void RecordDisconnect(bool abnormal) {
    if (abnormal) ++connections_cut_;
  }
  void SetClients(int n) { clients_ = n; }
  void RecordReload(bool ok) { ok ? ++reloads_ok_ : ++reloads_failed_; }

  // Static facts included in every snapshot (device, batch settings, ...).
  void SetInfo(const nlohmann::json& info);
  void SetModel(int64_t generation, const std::string& path);

  // Totals since start plus figures over the current interval (since the last
  // Snapshot(true)).  `reset_interval` starts a new interval.
  nlohmann::json Snapshot(bool reset_interval);
  // "stats: requests=... positions=... ..." from a snapshot.
  static std::string LogLine(const nlohmann::json& snapshot);

 private:
  struct Interval {
    int64_t requests = 0, positions = 0, forwards = 0;
    double forward_ms = 0;
    std::vector<double> waits_ms;
    std::vector<double> forwards_ms;
    double started_at = 0;
  };
  std::mutex mu_;
  Interval interval_;                 // guarded by mu_
  int64_t requests_ = 0, positions_ = 0, forwards_ = 0;  // guarded by mu_
  double forward_ms_ = 0;             // guarded by mu_
  nlohmann::json info_;               // guarded by mu_
  int64_t generation_ = -1;           // guarded by mu_
  std::string model_path_;            // guarded by mu_
  double started_at_;
  std::atomic<int64_t> dropped_answers_{0}, connections_total_{0}, connections_cut_{0};
  std::atomic<int64_t> reloads_ok_{0}, reloads_failed_{0};
  std::atomic<int> clients_{0};
};

}  // namespace gz
