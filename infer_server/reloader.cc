#include "infer_server/reloader.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"

namespace gz {
namespace {

constexpr double kWaitLogEvery_s = 5.0;

std::string FileSignature(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return path + "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::string InitialModelSource::Describe() const {
  if (!weights.empty()) return "weights " + weights;
  if (!run_dir.empty()) return "metadata.json of run " + run_dir;
  return "none (waiting for RELOAD)";
}

Reloader::Reloader(std::vector<Batcher*> lanes, ModelRequirements req, ServerStats* stats, bool measure_peak_flops)
    : lanes_(std::move(lanes)), req_(std::move(req)), stats_(stats), measure_peak_(measure_peak_flops) {
  GOMOKU_CHECK(!lanes_.empty(), "Reloader needs at least one batcher");
  for (size_t i = 0; i < lanes_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      GOMOKU_CHECK(lanes_[i]->settings().board_size != lanes_[j]->settings().board_size,
                   "two lanes of board size " << lanes_[i]->settings().board_size);
}

void Reloader::MeasurePeakOnce() {
  if (!measure_peak_ || peak_measured_) return;
  peak_measured_ = true;
  // Nothing else runs on the device yet: no model has been serving.
  try {
    const PeakFlops peak = MeasurePeak(req_.device, req_.forward.precision);
    stats_->SetPeakFlops(peak.flops, req_.forward.precision);
    spdlog::info("device peak ({}, {}): {:.1f} GFLOP/s (matrix products {:.1f}, 3x3 convolutions {:.1f}); "
                 "stats report MFU against it",
                 req_.device, req_.forward.precision, peak.flops / 1e9, peak.matmul_flops / 1e9,
                 peak.conv_flops / 1e9);
  } catch (const std::exception& e) {
    spdlog::warn("cannot measure the device's peak FLOP/s ({}); stats report no MFU", e.what());
  }
}

Reloader::~Reloader() { Stop(); }

void Reloader::Start(InitialModelSource initial) {
  GOMOKU_CHECK(!thread_.joinable(), "Reloader started twice");
  initial_ = std::move(initial);
  {
    std::lock_guard<std::mutex> lock(mu_);
    initial_pending_ = !initial_.empty();
  }
  thread_ = std::thread([this] { Loop(); });
}

void Reloader::Request(std::string path, Done done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      jobs_.push_back(Job{std::move(path), std::move(done)});
      done = nullptr;
    }
  }
  cv_.notify_one();
  if (done) done(-1, "the inference server is shutting down");
}

void Reloader::Stop() {
  std::deque<Job> rest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    rest.swap(jobs_);
  }
  for (auto& j : rest) j.done(-1, "the inference server is shutting down");
}

int64_t Reloader::generation() const {
  int64_t lowest = lanes_.front()->generation();
  for (const Batcher* lane : lanes_) lowest = std::min(lowest, lane->generation());
  return lowest;
}

int64_t Reloader::LoadAndInstall(const std::string& path) {
  const double t0 = MonotonicSeconds();
  // Every lane's model is loaded and validated before any is installed, so a
  // refusal in one lane leaves all of them on their old model.
  std::vector<std::unique_ptr<ServingModel>> models;
  {
    // Graph capture must not overlap forwards (LibTorch < 2.3 captures in
    // global mode), and every lane forwards on the same device: serving
    // pauses in every lane while the models are built.
    std::vector<std::unique_lock<std::mutex>> devices;
    if (req_.forward.cuda_graphs)
      for (Batcher* lane : lanes_) devices.push_back(lane->LockDevice());
    // One read of the file; each lane's forward is made from it at the lane's size.
    CheckpointExpect expect;
    if (lanes_.size() == 1) expect.board_size = lanes_.front()->settings().board_size;
    const NetForwards net(path, ServingSettings(req_), expect, req_.forward);
    for (Batcher* lane : lanes_) {
      ModelRequirements req = req_;
      req.board_size = lane->settings().board_size;
      if (lanes_.size() == 1) {
        models.push_back(LoadServingModel(net, req));
        continue;
      }
      try {
        models.push_back(LoadServingModel(net, req));
      } catch (const std::exception& e) {
        GOMOKU_THROW(ModelError, "board size " << req.board_size << ": " << e.what());
      }
    }
  }
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const BatchSettings& bs = lanes_[i]->settings();
    if (bs.auto_wait && bs.max_batch >= 2) {
      // Seeds the lane's adaptive wait cost model (serving_model.h).  Capped
      // at 8 positions so that a big net on a CPU reloads in seconds, not minutes.
      auto device = lanes_[i]->LockDevice();
      models[i]->cost = MeasureForwardCost(*models[i]->forward, bs.board_size, SymmetriesPerPosition(bs.symmetry),
                                           std::min(bs.max_batch, 8), 2);
    }
  }
  const CheckpointInfo info = models.front()->info;
  const std::string forward = models.front()->choice.Describe();
  MeasurePeakOnce();
  // Installed in every lane at once; each swaps between its own batches.
  std::vector<std::promise<int64_t>> swapped(lanes_.size());
  std::vector<std::future<int64_t>> futures;
  for (auto& p : swapped) futures.push_back(p.get_future());
  for (size_t i = 0; i < lanes_.size(); ++i)
    lanes_[i]->InstallModel(std::move(models[i]), [p = &swapped[i]](int64_t gen) { p->set_value(gen); });
  int64_t gen = -1;
  bool stopped = false;
  for (auto& f : futures) {  // every callback runs (-1 when its batcher stops), so wait for all
    gen = f.get();
    stopped = stopped || gen < 0;
  }
  if (stopped) GOMOKU_THROW(GomokuError, "the inference server is shutting down");
  std::string sizes;
  for (const Batcher* lane : lanes_) {
    const int n = lane->settings().board_size;
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(n) + "x" + std::to_string(n);
  }
  spdlog::info("model loaded: {} (generation {}, iteration {}, {} board{}, {} channels x {} blocks{}; {}) in {:.2f}s",
               path, gen, info.iteration, sizes, lanes_.size() > 1 ? "s" : "", info.channels, info.blocks,
               info.heads == NetHeads::kConv ? ", conv heads" : "", forward, MonotonicSeconds() - t0);
  return gen;
}

bool Reloader::TryInitial() {
  std::string path = initial_.weights;
  const double now = MonotonicSeconds();
  const bool log_now = now >= next_wait_log_;
  if (path.empty()) {
    RunLayout layout(initial_.run_dir);
    std::optional<Metadata> meta;
    try {
      meta = ReadMetadata(layout.metadata());
      if (!meta && log_now) spdlog::info("waiting for {} (no model to serve yet)", layout.metadata());
    } catch (const GomokuError& e) {
      if (log_now) spdlog::warn("cannot use {} yet: {}", layout.metadata(), e.what());
    }
    if (!meta) {
      if (log_now) next_wait_log_ = now + kWaitLogEvery_s;
      return false;
    }
    path = meta->weights;
  }
  if (!FileExists(path)) {
    if (log_now) {
      spdlog::info("waiting for weights file {} (no model to serve yet)", path);
      next_wait_log_ = now + kWaitLogEvery_s;
    }
    return false;
  }
  const std::string sig = FileSignature(path);
  if (sig == failed_signature_) return false;  // refused before and unchanged
  try {
    LoadAndInstall(path);
    stats_->RecordReload(true);
    return true;
  } catch (const std::exception& e) {
    failed_signature_ = sig;
    stats_->RecordReload(false);
    spdlog::error("cannot serve {}: {} (waiting for a valid file)", path, e.what());
    return false;
  }
}

void Reloader::Loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stopping_) {
    if (!jobs_.empty()) {
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      lk.unlock();
      int64_t gen = -1;
      std::string error;
      try {
        gen = LoadAndInstall(job.path);
        stats_->RecordReload(true);
      } catch (const std::exception& e) {
        error = e.what();
        stats_->RecordReload(false);
        const int64_t serving = generation();
        spdlog::error("reload of {} refused: {} ({})", job.path, error,
                      serving >= 0 ? fmt::format("generation {} keeps serving", serving) : "no model loaded yet");
      }
      job.done(gen, error);
      lk.lock();
      if (gen >= 0) initial_pending_ = false;
      continue;
    }
    if (initial_pending_) {
      lk.unlock();
      const bool done = TryInitial();
      lk.lock();
      if (done) {
        initial_pending_ = false;
      } else {
        // Re-check once a second; a RELOAD or Stop wakes us at once.
        cv_.wait_for(lk, std::chrono::seconds(1), [&] { return stopping_ || !jobs_.empty(); });
      }
      continue;
    }
    cv_.wait(lk, [&] { return stopping_ || !jobs_.empty(); });
  }
}

}  // namespace gz
