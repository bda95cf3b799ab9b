#include "infer_server/reload_follower.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/host_reload.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"

namespace gz {

ReloadFollower::ReloadFollower(ReloadFollowerOptions options, Reloader* reloader)
    : options_(std::move(options)), reloader_(reloader) {
  GOMOKU_CHECK(!options_.host.empty(), "ReloadFollower needs a host name (run.host)");
}

ReloadFollower::~ReloadFollower() { Stop(); }

void ReloadFollower::Start() {
  MakeDirs(RunLayout(options_.run_dir).status_dir(options_.host));
  spdlog::info("host {}: following {} every {:g}s, acknowledging in {}", options_.host,
               RunLayout(options_.run_dir).reload_announcement(), options_.heartbeat_s,
               RunLayout(options_.run_dir).reload_ack(options_.host));
  thread_.Start("ReloadFollower", options_.heartbeat_s, PeriodicThread::FirstTick::kNow, [this] { Tick(); });
}

void ReloadFollower::Stop() { thread_.Stop(); }

void ReloadFollower::Tick() {
  const RunLayout layout(options_.run_dir);
  std::optional<ReloadAnnouncement> ann;
  std::string signature;
  try {
    ann = ReadReloadAnnouncement(layout.reload_announcement());
    if (ann) signature = ann->weights + "|" + std::to_string(ann->generation);
    last_error_.clear();
  } catch (const GomokuError& e) {
    // Torn reads cannot happen (atomic rename); this is a malformed or
    // foreign file: say so once, keep serving, keep the heartbeat.
    if (last_error_ != e.what()) spdlog::error("host {}: cannot follow reload.json: {}", options_.host, e.what());
    last_error_ = e.what();
  }
  // Before the first model serves, the Reloader's initial load follows
  // metadata.json; when that already names this generation, loading it here
  // as well would load the same file twice.
  bool initial_covers = false;
  if (ann && reloader_->generation() < 0) {
    try {
      std::optional<Metadata> md = ReadMetadata(layout.metadata());
      initial_covers = md && md->model_generation >= ann->generation;
    } catch (const GomokuError&) {
      // unreadable for now: decide on the next tick
      initial_covers = true;
    }
  }
  bool start = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t serving = reloader_->generation();
    if (ann && !in_flight_ && !initial_covers && signature != attempted_signature_) {
      if (ann->generation > serving) {
        start = true;
        in_flight_ = true;
      } else {
        // Already serving it (the initial model from metadata.json, or a
        // direct RELOAD): acknowledge without loading again.
        has_announcement_ = true;
        announced_generation_ = ann->generation;
        announcement_ok_ = true;
        announcement_reason_.clear();
        announcement_at_ = NowSeconds();
        if (serving == ann->generation) serving_weights_ = ann->weights;
      }
      attempted_signature_ = signature;
    }
  }
  if (start) {
    spdlog::info("host {}: reload.json announces generation {} (iteration {}): loading {}", options_.host,
                 ann->generation, ann->iteration, ann->weights);
    const int64_t want = ann->generation;
    const std::string weights = ann->weights;
    reloader_->Request(weights, [this, want, weights](int64_t generation, const std::string& error) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        in_flight_ = false;
        has_announcement_ = true;
        announced_generation_ = want;
        announcement_at_ = NowSeconds();
        announcement_ok_ = error.empty() && generation == want;
        if (announcement_ok_) {
          announcement_reason_.clear();
          serving_weights_ = weights;
          spdlog::info("host {}: serving generation {}; acknowledged", options_.host, generation);
        } else {
          announcement_reason_ = !error.empty() ? error
                                                : "the checkpoint loaded as generation " + std::to_string(generation) +
                                                      ", the announcement says " + std::to_string(want);
          spdlog::error("host {}: refused announced generation {}: {}", options_.host, want, announcement_reason_);
        }
      }
    });
  }
  WriteAck();
}

void ReloadFollower::WriteAck() {
  HostAck a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    a.has_announcement = has_announcement_;
    a.announced_generation = announced_generation_;
    a.announcement_ok = announcement_ok_;
    a.announcement_reason = announcement_reason_;
    a.announcement_at = announcement_at_;
    a.serving_weights = serving_weights_;
  }
  a.host = options_.host;
  a.pid = ::getpid();
  a.seq = ++seq_;
  a.updated_at = NowSeconds();
  a.serving_generation = reloader_->generation();
  try {
    WriteHostAck(RunLayout(options_.run_dir).reload_ack(options_.host), a);
  } catch (const GomokuError& e) {
    spdlog::warn("host {}: cannot write the reload acknowledgement: {}", options_.host, e.what());
  }
}

}  // namespace gz
