#include "infer_server/server_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/fileio.h"

namespace gz {
namespace {

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  size_t k = static_cast<size_t>(std::ceil(q * v.size())) ;
  k = std::clamp<size_t>(k, 1, v.size()) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

double Round(double x, int digits) {
  double s = std::pow(10.0, digits);
  return std::round(x * s) / s;
}

}  // namespace

ServerStats::ServerStats() : started_at_(MonotonicSeconds()) { interval_.started_at = started_at_; }

void ServerStats::RecordBatch(int requests, int positions, double forward_ms, const std::vector<double>& waits) {
  std::lock_guard<std::mutex> lock(mu_);
  requests_ += requests;
  positions_ += positions;
  forwards_ += 1;
  forward_ms_ += forward_ms;
  interval_.requests += requests;
  interval_.positions += positions;
  interval_.forwards += 1;
  interval_.forward_ms += forward_ms;
  // Bounded memory: keep at most 200k samples per interval.
  if (interval_.waits_ms.size() < 200000) interval_.waits_ms.insert(interval_.waits_ms.end(), waits.begin(), waits.end());
  if (interval_.forwards_ms.size() < 200000) interval_.forwards_ms.push_back(forward_ms);
}

void ServerStats::SetInfo(const nlohmann::json& info) {
  std::lock_guard<std::mutex> lock(mu_);
  info_ = info;
}

void ServerStats::SetModel(int64_t generation, const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  generation_ = generation;
  model_path_ = path;
}

nlohmann::json ServerStats::Snapshot(bool reset_interval) {
  std::lock_guard<std::mutex> lock(mu_);
  const double now = MonotonicSeconds();
  const double span = std::max(now - interval_.started_at, 1e-9);
  const Interval& iv = interval_;
  nlohmann::json j = info_.is_object() ? info_ : nlohmann::json::object();
  j["timestamp"] = NowSeconds();
  j["uptime_s"] = Round(now - started_at_, 3);
  j["interval_s"] = Round(span, 3);
  j["model_generation"] = generation_;
  j["model_path"] = model_path_;
  j["clients"] = clients_.load();
  // Over the interval.
  j["requests"] = iv.requests;
  j["positions"] = iv.positions;
  j["forwards"] = iv.forwards;
  j["avg_batch"] = Round(iv.forwards ? double(iv.positions) / iv.forwards : 0.0, 3);
  j["requests_per_s"] = Round(iv.requests / span, 2);
  j["positions_per_s"] = Round(iv.positions / span, 2);
  j["avg_forward_ms"] = Round(iv.forwards ? iv.forward_ms / iv.forwards : 0.0, 4);
  j["forward_ms_p50"] = Round(Percentile(iv.forwards_ms, 0.50), 4);
  j["queue_wait_ms_p50"] = Round(Percentile(iv.waits_ms, 0.50), 4);
  j["queue_wait_ms_p99"] = Round(Percentile(iv.waits_ms, 0.99), 4);
  j["forward_busy_fraction"] = Round(iv.forward_ms / 1000.0 / span, 4);
  // Since start.
  j["requests_total"] = requests_;
  j["positions_total"] = positions_;
  j["forwards_total"] = forwards_;
  j["avg_batch_total"] = Round(forwards_ ? double(positions_) / forwards_ : 0.0, 3);
  j["avg_forward_ms_total"] = Round(forwards_ ? forward_ms_ / forwards_ : 0.0, 4);
  j["dropped_answers_total"] = dropped_answers_.load();
  j["connections_total"] = connections_total_.load();
  j["connections_cut_total"] = connections_cut_.load();
  j["reloads_ok_total"] = reloads_ok_.load();
  j["reloads_failed_total"] = reloads_failed_.load();
  if (reset_interval) {
    interval_ = Interval{};
    interval_.started_at = now;
  }
  return j;
}

std::string ServerStats::LogLine(const nlohmann::json& s) {
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "stats: requests %lld | positions %lld | forwards %lld | avg batch %.2f | %.1f req/s | "
                "forward avg %.3f ms | queue wait p50 %.3f ms p99 %.3f ms | model generation %lld | clients %d",
                static_cast<long long>(s.value("requests", int64_t{0})),
                static_cast<long long>(s.value("positions", int64_t{0})),
                static_cast<long long>(s.value("forwards", int64_t{0})), s.value("avg_batch", 0.0),
                s.value("requests_per_s", 0.0), s.value("avg_forward_ms", 0.0), s.value("queue_wait_ms_p50", 0.0),
                s.value("queue_wait_ms_p99", 0.0), static_cast<long long>(s.value("model_generation", int64_t{-1})),
                s.value("clients", 0));
  return buf;
}

}  // namespace gz
