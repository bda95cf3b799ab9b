// Server counters and the periodic stats snapshot (log line, STATS reply,
// <run>/status/server.json all carry the same JSON; docs/protocol.md lists
// every field).
//
// Accounting: `requests` and `positions` count every INFER answered with
// results, whether it went through a forward or came (wholly or partly) from
// the result cache; `positions_forwarded` counts the positions that went into
// forwards, and avg_batch = positions_forwarded / forwards.
//
// Thread-safety: every method may be called from any thread (one mutex; the
// batch thread takes it once per batch, the I/O thread once per cached reply).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer_server/auto_wait.h"
#include "infer_server/pipeline_chooser.h"

namespace gz {

// Why a batch was closed.
enum class BatchClose : int { kFull = 0, kAllClients, kDeadline, kCeiling, kAdaptive, kStopping, kInline, kPipeline, kCount };
const char* BatchCloseName(BatchClose c);

struct BatchRecord {
  int requests = 0;             // INFER frames in the batch
  int positions = 0;            // their positions, cache hits included
  int positions_forwarded = 0;  // positions that went through the forward
  double forward_ms = 0;
  // FLOPs of this forward (its positions with their symmetry images, at the
  // batch's board size); < 0: positions_forwarded x the flops_per_position of
  // SetModel.  A server with several board sizes (lanes) sums them for the MFU.
  double flops = -1;
  std::vector<double> queue_wait_ms;  // per request: arrival -> forward start
  BatchClose close = BatchClose::kDeadline;
  bool auto_wait = false;
  WaitEstimates estimates;      // the adaptive-wait model after this forward (auto_wait only)
  std::optional<PipelineChooser::State> pipeline;  // set when server.auto_pipeline is on
};

class ServerStats {
 public:
  ServerStats();

  void RecordBatch(const BatchRecord& batch);
  // An INFER answered entirely from the cache on the I/O thread.
  void RecordCachedRequest(int positions);
  // `lookups` positions looked up in the cache, `hits` of them found.
  void RecordCacheLookups(int lookups, int hits);
  void RecordDropped() { ++dropped_answers_; }       // answer for a client that had gone
  void RecordConnection() { ++connections_total_; }
  void RecordDisconnect(bool abnormal) {
    if (abnormal) ++connections_cut_;
  }
  void SetClients(int n) { clients_ = n; }
  void RecordReload(bool ok) { ok ? ++reloads_ok_ : ++reloads_failed_; }

  // Static facts included in every snapshot (device, batch settings, ...).
  void SetInfo(const nlohmann::json& info);
  // The serving model; flops_per_position = one forward of one position
  // including all its symmetry images (0 = unknown).  Shared by every lane of
  // a server with several board sizes: the last swap's model is reported.
  void SetModel(int64_t generation, const std::string& path, double flops_per_position);
  // The result cache is on: snapshots carry the cache_* fields (absent otherwise).
  void EnableCacheStats() { cache_enabled_ = true; }
  // Measured peak FLOP/s of the device (MeasurePeakFlops); enables "mfu".
  void SetPeakFlops(double flops_per_s, const std::string& precision);

  // Totals since start plus figures over the current interval (since the last
  // Snapshot(true)).  `reset_interval` starts a new interval.
  nlohmann::json Snapshot(bool reset_interval);
  // "stats: requests=... positions=... ..." from a snapshot.
  static std::string LogLine(const nlohmann::json& snapshot);

 private:
  struct Counts {
    int64_t requests = 0, positions = 0, positions_forwarded = 0, forwards = 0;
    int64_t requests_cached = 0, cache_lookups = 0, cache_hits = 0;
    int64_t closes[static_cast<int>(BatchClose::kCount)] = {};
    double forward_ms = 0;
    double flops = 0;  // of the forwards (BatchRecord::flops)
    void Add(const Counts& o);
  };
  struct Interval {
    Counts counts;
    std::vector<double> waits_ms;
    std::vector<double> forwards_ms;
    double started_at = 0;
  };
  void AddToBoth(const Counts& c);  // mu_ held
  // Snapshot's parts, mu_ held: the interval's figures over `span` seconds,
  // the FLOPs and MFU, the adaptive wait's model, the totals since start.
  void AddIntervalFields(nlohmann::json& j, double span) const;
  void AddFlopsFields(nlohmann::json& j, double span) const;
  void AddAutoWaitFields(nlohmann::json& j) const;
  void AddTotalFields(nlohmann::json& j) const;
  static nlohmann::json CloseCounts(const Counts& c);  // batch closes by reason name

  std::mutex mu_;
  Interval interval_;                 // guarded by mu_
  Counts totals_;                     // guarded by mu_
  nlohmann::json info_;               // guarded by mu_
  int64_t generation_ = -1;           // guarded by mu_
  std::string model_path_;            // guarded by mu_
  double flops_per_position_ = 0;     // guarded by mu_
  double peak_flops_ = 0;             // guarded by mu_
  std::string peak_precision_;        // guarded by mu_
  bool auto_wait_seen_ = false;       // guarded by mu_
  WaitEstimates estimates_;           // guarded by mu_
  std::optional<PipelineChooser::State> pipeline_;  // guarded by mu_
  double started_at_;
  std::atomic<int64_t> dropped_answers_{0}, connections_total_{0}, connections_cut_{0};
  std::atomic<int64_t> reloads_ok_{0}, reloads_failed_{0};
  std::atomic<int> clients_{0};
  std::atomic<bool> cache_enabled_{false};
};

}  // namespace gz
