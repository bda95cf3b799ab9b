// The server's counters and the snapshot that reports them (server_stats.h).
#include "infer_server/server_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/base/fileio.h"
#include "common/data/record_fields.h"

namespace gz {
namespace {

constexpr size_t kMaxSamples = 200000;  // per interval, bounds memory

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  size_t k = static_cast<size_t>(std::ceil(q * v.size()));
  k = std::clamp<size_t>(k, 1, v.size()) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

double Round(double x, int digits) {
  double s = std::pow(10.0, digits);
  return std::round(x * s) / s;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

const char* BatchCloseName(BatchClose c) {
  switch (c) {
    case BatchClose::kFull: return "full";
    case BatchClose::kAllClients: return "all_clients";
    case BatchClose::kDeadline: return "deadline";
    case BatchClose::kCeiling: return "ceiling";
    case BatchClose::kAdaptive: return "adaptive";
    case BatchClose::kStopping: return "stopping";
    case BatchClose::kInline: return "inline";
    case BatchClose::kPipeline: return "pipeline";
    case BatchClose::kCount: break;
  }
  return "?";
}

void ServerStats::Counts::Add(const Counts& o) {
  requests += o.requests;
  positions += o.positions;
  positions_forwarded += o.positions_forwarded;
  forwards += o.forwards;
  requests_cached += o.requests_cached;
  cache_lookups += o.cache_lookups;
  cache_hits += o.cache_hits;
  for (int i = 0; i < static_cast<int>(BatchClose::kCount); ++i) closes[i] += o.closes[i];
  forward_ms += o.forward_ms;
  flops += o.flops;
}

ServerStats::ServerStats() : started_at_(MonotonicSeconds()) { interval_.started_at = started_at_; }

void ServerStats::AddToBoth(const Counts& c) {
  interval_.counts.Add(c);
  totals_.Add(c);
}

void ServerStats::RecordBatch(const BatchRecord& b) {
  Counts c;
  c.requests = b.requests;
  c.positions = b.positions;
  c.positions_forwarded = b.positions_forwarded;
  c.forwards = 1;
  c.forward_ms = b.forward_ms;
  c.closes[static_cast<int>(b.close)] = 1;
  std::lock_guard<std::mutex> lock(mu_);
  c.flops = b.flops >= 0 ? b.flops : flops_per_position_ * b.positions_forwarded;
  AddToBoth(c);
  if (interval_.waits_ms.size() < kMaxSamples)
    interval_.waits_ms.insert(interval_.waits_ms.end(), b.queue_wait_ms.begin(), b.queue_wait_ms.end());
  if (interval_.forwards_ms.size() < kMaxSamples) interval_.forwards_ms.push_back(b.forward_ms);
  if (b.auto_wait) {
    auto_wait_seen_ = true;
    estimates_ = b.estimates;
    pipeline_ = b.pipeline;
  }
}

void ServerStats::RecordCachedRequest(int positions) {
  Counts c;
  c.requests = 1;
  c.positions = positions;
  c.requests_cached = 1;
  std::lock_guard<std::mutex> lock(mu_);
  AddToBoth(c);
}

void ServerStats::RecordCacheLookups(int lookups, int hits) {
  Counts c;
  c.cache_lookups = lookups;
  c.cache_hits = hits;
  std::lock_guard<std::mutex> lock(mu_);
  AddToBoth(c);
}

void ServerStats::SetInfo(const nlohmann::json& info) {
  std::lock_guard<std::mutex> lock(mu_);
  info_ = info;
}

void ServerStats::SetModel(int64_t generation, const std::string& path, double flops_per_position) {
  std::lock_guard<std::mutex> lock(mu_);
  generation_ = generation;
  model_path_ = path;
  flops_per_position_ = flops_per_position;
}

void ServerStats::SetPeakFlops(double flops_per_s, const std::string& precision) {
  std::lock_guard<std::mutex> lock(mu_);
  peak_flops_ = flops_per_s;
  peak_precision_ = precision;
}

nlohmann::json ServerStats::Snapshot(bool reset_interval) {
  namespace sf = fields::server_status;
  std::lock_guard<std::mutex> lock(mu_);
  const double now = MonotonicSeconds();
  const double span = std::max(now - interval_.started_at, 1e-9);
  nlohmann::json j = info_.is_object() ? info_ : nlohmann::json::object();
  j[sf::kTimestamp] = NowSeconds();
  j[sf::kUptimeS] = Round(now - started_at_, 3);
  j["interval_s"] = Round(span, 3);
  j[sf::kModelGeneration] = generation_;
  j["model_path"] = model_path_;
  j["clients"] = clients_.load();
  AddIntervalFields(j, span);
  AddFlopsFields(j, span);
  AddAutoWaitFields(j);
  AddTotalFields(j);
  if (reset_interval) {
    interval_ = Interval{};
    interval_.started_at = now;
  }
  return j;
}

nlohmann::json ServerStats::CloseCounts(const Counts& c) {
  nlohmann::json closes = nlohmann::json::object();
  for (int i = 0; i < static_cast<int>(BatchClose::kCount); ++i)
    closes[BatchCloseName(static_cast<BatchClose>(i))] = c.closes[i];
  return closes;
}

void ServerStats::AddIntervalFields(nlohmann::json& j, double span) const {
  namespace sf = fields::server_status;
  const Counts& iv = interval_.counts;
  j["requests"] = iv.requests;
  j["positions"] = iv.positions;
  j["positions_forwarded"] = iv.positions_forwarded;
  j["forwards"] = iv.forwards;
  j[sf::kAvgBatch] = Round(Ratio(iv.positions_forwarded, iv.forwards), 3);
  j[sf::kRequestsPerS] = Round(iv.requests / span, 2);
  j[sf::kPositionsPerS] = Round(iv.positions / span, 2);
  j["positions_forwarded_per_s"] = Round(iv.positions_forwarded / span, 2);
  j[sf::kAvgForwardMs] = Round(Ratio(iv.forward_ms, iv.forwards), 4);
  j["forward_ms_p50"] = Round(Percentile(interval_.forwards_ms, 0.50), 4);
  j["queue_wait_ms_p50"] = Round(Percentile(interval_.waits_ms, 0.50), 4);
  j["queue_wait_ms_p99"] = Round(Percentile(interval_.waits_ms, 0.99), 4);
  j["queue_wait_ms_max"] = Round(Percentile(interval_.waits_ms, 1.0), 4);
  j["forward_busy_fraction"] = Round(iv.forward_ms / 1000.0 / span, 4);
  if (cache_enabled_) {
    j["requests_cached"] = iv.requests_cached;
    j["cache_lookups"] = iv.cache_lookups;
    j["cache_hits"] = iv.cache_hits;
    j[sf::kCacheHitRate] = Round(Ratio(iv.cache_hits, iv.cache_lookups), 4);
  }
  j["batch_close"] = CloseCounts(iv);
}

// Model FLOPs utilisation: FLOPs of the forwarded positions over the wall
// time of the interval (mfu) and over the time spent in forwards (mfu_in_forward).
void ServerStats::AddFlopsFields(nlohmann::json& j, double span) const {
  const Counts& iv = interval_.counts;
  j["flops_per_position"] = flops_per_position_;
  const double flops = iv.flops;
  j["forward_flops_per_s"] = Round(flops / span, 0);
  j["forward_flops_total"] = Round(totals_.flops, 0);
  if (peak_flops_ > 0) {
    j["peak_flops"] = Round(peak_flops_, 0);
    j["peak_precision"] = peak_precision_;
    j["mfu"] = Round(flops / span / peak_flops_, 6);
    j["mfu_in_forward"] = Round(Ratio(flops, iv.forward_ms / 1000.0) / peak_flops_, 6);
  }
}

void ServerStats::AddAutoWaitFields(nlohmann::json& j) const {
  if (!auto_wait_seen_) return;
  j["auto_wait"] = {{"t0_ms", Round(estimates_.t0_s * 1000, 4)},
                    {"c_ms", Round(estimates_.c_s * 1000, 5)},
                    {"arrival_per_s", Round(estimates_.arrival_per_s, 1)},
                    {"busy", Round(estimates_.busy, 4)},
                    {"tau_ms", Round(estimates_.tau_s * 1000, 3)},
                    {"forwards", estimates_.forwards}};
  if (pipeline_) {
    j["auto_wait"]["pipeline"] = PipelineModeName(pipeline_->mode);
    j["auto_wait"]["lockstep_pos_per_s"] = Round(pipeline_->lockstep_pos_per_s, 1);
    j["auto_wait"]["halves_pos_per_s"] = Round(pipeline_->halves_pos_per_s, 1);
  }
}

void ServerStats::AddTotalFields(nlohmann::json& j) const {
  namespace sf = fields::server_status;
  const Counts& tot = totals_;
  j["requests_total"] = tot.requests;
  j["positions_total"] = tot.positions;
  j[sf::kPositionsForwardedTotal] = tot.positions_forwarded;
  j[sf::kForwardsTotal] = tot.forwards;
  j[sf::kAvgBatchTotal] = Round(Ratio(tot.positions_forwarded, tot.forwards), 3);
  j[sf::kAvgForwardMsTotal] = Round(Ratio(tot.forward_ms, tot.forwards), 4);
  if (cache_enabled_) {
    j["requests_cached_total"] = tot.requests_cached;
    j["cache_lookups_total"] = tot.cache_lookups;
    j["cache_hits_total"] = tot.cache_hits;
    j["cache_hit_rate_total"] = Round(Ratio(tot.cache_hits, tot.cache_lookups), 4);
  }
  j["batch_close_total"] = CloseCounts(tot);
  j["dropped_answers_total"] = dropped_answers_.load();
  j["connections_total"] = connections_total_.load();
  j["connections_cut_total"] = connections_cut_.load();
  j["reloads_ok_total"] = reloads_ok_.load();
  j["reloads_failed_total"] = reloads_failed_.load();
}

std::string ServerStats::LogLine(const nlohmann::json& s) {
  char buf[768];
  int n = std::snprintf(
      buf, sizeof(buf),
      "stats: requests %lld | positions %lld (forwarded %lld) | forwards %lld | avg batch %.2f | %.1f req/s | "
      "forward avg %.3f ms | queue wait p50 %.3f ms p99 %.3f ms | model generation %lld | clients %d",
      static_cast<long long>(s.value("requests", int64_t{0})), static_cast<long long>(s.value("positions", int64_t{0})),
      static_cast<long long>(s.value("positions_forwarded", int64_t{0})),
      static_cast<long long>(s.value("forwards", int64_t{0})), s.value("avg_batch", 0.0),
      s.value("requests_per_s", 0.0), s.value("avg_forward_ms", 0.0), s.value("queue_wait_ms_p50", 0.0),
      s.value("queue_wait_ms_p99", 0.0), static_cast<long long>(s.value("model_generation", int64_t{-1})),
      s.value("clients", 0));
  std::string line(buf, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof(buf)) - 1)));
  if (s.value("cache_lookups_total", int64_t{0}) > 0) {
    std::snprintf(buf, sizeof(buf), " | cache hit rate %.3f (%lld/%lld), total %.3f", s.value("cache_hit_rate", 0.0),
                  static_cast<long long>(s.value("cache_hits", int64_t{0})),
                  static_cast<long long>(s.value("cache_lookups", int64_t{0})), s.value("cache_hit_rate_total", 0.0));
    line += buf;
  }
  if (s.contains("mfu")) {
    std::snprintf(buf, sizeof(buf), " | MFU %.4f%% (%.4f%% in forwards)", s.value("mfu", 0.0) * 100,
                  s.value("mfu_in_forward", 0.0) * 100);
    line += buf;
  }
  return line;
}

}  // namespace gz
