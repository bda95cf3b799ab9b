#include "trainer/host_acks.h"

#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/run_layout.h"
#include "trainer/server_reload.h"

namespace gz {

HostMonitor::HostMonitor(std::string run_dir, double host_timeout_s, double poll_s)
    : run_dir_(std::move(run_dir)), host_timeout_s_(host_timeout_s), poll_s_(poll_s) {}

HostMonitor::~HostMonitor() { Stop(); }

void HostMonitor::Start() {
  Poll();
  thread_.Start("HostMonitor", poll_s_, PeriodicThread::FirstTick::kAfterPeriod, [this] { Poll(); });
}

void HostMonitor::Stop() { thread_.Stop(); }

void HostMonitor::Poll() {
  const RunLayout layout(run_dir_);
  const double now = MonotonicSeconds();
  for (const std::string& host : ListAckingHosts(layout.status_dir())) {
    std::optional<HostAck> ack;
    std::string error;
    try {
      ack = ReadHostAck(layout.reload_ack(host));
    } catch (const GomokuError& e) {
      error = e.what();
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = hosts_.try_emplace(host);
    Seen& s = it->second;
    if (fresh) {
      s.changed_at = now;
      spdlog::info("self-play host {} seen ({})", host, layout.reload_ack(host));
    }
    if (!error.empty()) {
      if (s.error != error) spdlog::warn("host {}: unreadable acknowledgement: {}", host, error);
      s.error = error;
      continue;
    }
    s.error.clear();
    if (!ack) continue;
    if (ack->host != host) {
      const std::string why = "its ack file names host '" + ack->host + "'";
      if (s.error != why) spdlog::warn("host {}: ignoring {}: {}", host, layout.reload_ack(host), why);
      s.error = why;
      continue;
    }
    if (ack->seq != s.seq || ack->pid != s.pid) {
      const bool was_silent = !fresh && now - s.changed_at > host_timeout_s_;
      if (was_silent) spdlog::info("self-play host {} is heard again (serving generation {})", host,
                                   ack->serving_generation);
      s.seq = ack->seq;
      s.pid = ack->pid;
      s.changed_at = now;
    }
    s.ack = *ack;
  }
}

std::vector<HostView> HostMonitor::Snapshot() const {
  const double now = MonotonicSeconds();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<HostView> out;
  for (const auto& [host, s] : hosts_) {
    HostView v;
    v.host = host;
    v.silent_s = now - s.changed_at;
    v.live = s.seq >= 0 && v.silent_s <= host_timeout_s_;
    v.ack = s.ack;
    out.push_back(std::move(v));
  }
  return out;
}

nlohmann::json HostReloadOutcome::ToJson() const {
  nlohmann::json ex = nlohmann::json::array();
  for (const auto& [host, why] : excluded) ex.push_back({{"host", host}, {"why", why}});
  return {{"acknowledged", acknowledged}, {"excluded", ex}, {"seconds", seconds}};
}

HostReloadOutcome AwaitHostAcks(HostMonitor& monitor, int64_t generation, double timeout_s,
                                const std::atomic<bool>* stop) {
  HostReloadOutcome out;
  const double start = MonotonicSeconds();
  for (;;) {
    monitor.Poll();
    out.acknowledged.clear();
    out.excluded.clear();
    bool waiting = false;
    const bool timed_out = MonotonicSeconds() - start > timeout_s;
    for (const HostView& v : monitor.Snapshot()) {
      const HostAck& a = v.ack;
      if (a.has_announcement && a.announced_generation == generation && !a.announcement_ok && v.live)
        GOMOKU_THROW(ReloadRefusedError, "self-play host " << v.host << " refused the weights of generation "
                                                           << generation << ": " << a.announcement_reason);
      if (v.live && a.serving_generation >= generation) {
        out.acknowledged.push_back(v.host);
      } else if (!v.live) {
        out.excluded.push_back({v.host, fmt::format("no heartbeat for {:.0f}s (run.host_timeout_s {:g})", v.silent_s,
                                                    monitor.host_timeout_s())});
      } else if (timed_out) {
        out.excluded.push_back({v.host, fmt::format("serves generation {}, not {}, after {:g}s (train.reload_timeout_s)",
                                                    a.serving_generation, generation, timeout_s)});
      } else {
        waiting = true;
      }
    }
    if (!waiting) break;
    if (stop && stop->load()) {
      out.stopped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  out.seconds = MonotonicSeconds() - start;
  return out;
}

}  // namespace gz
