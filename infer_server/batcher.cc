#include "infer_server/batcher.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/encoder.h"
#include "common/errors.h"
#include "common/fileio.h"

namespace gz {
namespace {

std::chrono::steady_clock::time_point SteadyAt(double monotonic_seconds) {
  return std::chrono::steady_clock::time_point(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(monotonic_seconds)));
}

}  // namespace

Batcher::Batcher(BatchSettings settings, ServerStats* stats) : settings_(settings), stats_(stats) {
  GOMOKU_CHECK(settings_.max_batch >= 1, "max_batch must be >= 1");
  GOMOKU_CHECK(stats_ != nullptr, "Batcher needs stats");
}

Batcher::~Batcher() { Stop(); }

void Batcher::Start() {
  GOMOKU_CHECK(!thread_.joinable(), "Batcher started twice");
  thread_ = std::thread([this] { Loop(); });
}

bool Batcher::has_model() const {
  std::lock_guard<std::mutex> lock(mu_);
  return model_ != nullptr;
}

int64_t Batcher::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return model_ ? model_->generation : -1;
}

std::string Batcher::model_path() const {
  std::lock_guard<std::mutex> lock(mu_);
  return model_ ? model_->path : std::string();
}

bool Batcher::Submit(std::unique_ptr<InferJob>& job, wire::ErrorCode* code, std::string* why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      *code = wire::ErrorCode::kShuttingDown;
      *why = "the inference server is shutting down";
      return false;
    }
    if (!model_) {
      *code = wire::ErrorCode::kNotReady;
      *why = "the inference server has no model loaded yet";
      return false;
    }
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

void Batcher::InstallModel(std::unique_ptr<ServingModel> model, std::function<void(int64_t)> on_swapped) {
  std::function<void(int64_t)> replaced;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      replaced = std::move(on_swapped);
    } else {
      replaced = std::move(pending_callback_);
      pending_model_ = std::move(model);
      pending_callback_ = std::move(on_swapped);
    }
  }
  cv_.notify_one();
  if (replaced) replaced(-1);
}

void Batcher::SwapIfPending(std::unique_lock<std::mutex>& lk) {
  if (!pending_model_) return;
  std::shared_ptr<const ServingModel> old = std::move(model_);
  model_ = std::shared_ptr<const ServingModel>(std::move(pending_model_));
  auto cb = std::move(pending_callback_);
  pending_callback_ = nullptr;
  const int64_t gen = model_->generation;
  stats_->SetModel(gen, model_->path);
  lk.unlock();
  spdlog::info("serving model generation {} from {}", gen, model_->path);
  old.reset();  // the previous network is freed here, between batches
  if (cb) cb(gen);
  lk.lock();
}

void Batcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  // Anything left (thread never started): answer it.
  std::vector<std::unique_ptr<InferJob>> rest;
  std::function<void(int64_t)> cb;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& j : queue_) rest.push_back(std::move(j));
    queue_.clear();
    cb = std::move(pending_callback_);
    pending_callback_ = nullptr;
    pending_model_.reset();
  }
  FailAll(rest, wire::ErrorCode::kShuttingDown, "the inference server is shutting down");
  if (cb) cb(-1);
}

void Batcher::Loop() {
  const BatchSettings& s = settings_;
  const double window_s = (s.auto_wait ? s.auto_wait_ceiling_ms : s.max_wait_ms) / 1000.0;
  std::vector<std::unique_ptr<InferJob>> batch;
  std::vector<uint64_t> clients_in_batch;
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stopping_ || !queue_.empty() || pending_model_ != nullptr; });
    SwapIfPending(lk);
    if (stopping_) break;
    if (queue_.empty()) continue;
    // The deadline starts at the arrival of the oldest waiting job.
    const double deadline = queue_.front()->enqueued_at + window_s;
    int positions = 0;
    batch.clear();
    clients_in_batch.clear();
    bool full = false;
    for (;;) {
      while (!queue_.empty()) {
        const int n = static_cast<int>(queue_.front()->positions.size());
        if (!batch.empty() && positions + n > s.max_batch) {
          full = true;  // whole requests only; this one opens the next batch
          break;
        }
        positions += n;
        const uint64_t cid = queue_.front()->client_id;
        if (std::find(clients_in_batch.begin(), clients_in_batch.end(), cid) == clients_in_batch.end())
          clients_in_batch.push_back(cid);
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      if (full || positions >= s.max_batch || stopping_) break;
      if (s.auto_wait && static_cast<int>(clients_in_batch.size()) >= clients_.load()) break;
      if (MonotonicSeconds() >= deadline) break;
      cv_.wait_until(lk, SteadyAt(deadline), [&] { return stopping_ || !queue_.empty(); });
    }
    if (stopping_) break;
    lk.unlock();
    RunBatch(batch);
    batch.clear();
    lk.lock();
  }
  // Stopping: jobs taken into an unstarted batch and everything queued get an
  // ERROR (the batch in flight, if any, has already been answered).
  for (auto& j : queue_) batch.push_back(std::move(j));
  queue_.clear();
  lk.unlock();
  FailAll(batch, wire::ErrorCode::kShuttingDown, "the inference server is shutting down");
}

void Batcher::RunBatch(std::vector<std::unique_ptr<InferJob>>& batch) {
  std::shared_ptr<const ServingModel> model;
  {
    std::lock_guard<std::mutex> lock(mu_);
    model = model_;
  }
  const int per = SymmetriesPerPosition(settings_.symmetry);
  const int pts = settings_.board_size * settings_.board_size;
  const size_t stride = static_cast<size_t>(PlaneFloats(settings_.board_size));
  int n_positions = 0;
  for (auto& j : batch) n_positions += static_cast<int>(j->positions.size());
  const int n = n_positions * per;
  planes_.resize(static_cast<size_t>(n) * stride);
  logp_.resize(static_cast<size_t>(n) * pts);
  values_.resize(n);
  size_t off = 0;
  for (auto& j : batch) {
    GOMOKU_CHECK(j->planes.size() == j->positions.size() * per * stride, "job planes of the wrong size");
    std::memcpy(planes_.data() + off, j->planes.data(), j->planes.size() * sizeof(float));
    off += j->planes.size();
  }
  const double t0 = MonotonicSeconds();
  int64_t gen = -1;
  try {
    gen = model->forward->Forward(planes_.data(), n, logp_.data(), values_.data());
  } catch (const std::exception& e) {
    spdlog::error("forward of {} positions failed: {}", n_positions, e.what());
    FailAll(batch, wire::ErrorCode::kInternal, std::string("forward failed: ") + e.what());
    return;
  }
  const double t1 = MonotonicSeconds();
  std::vector<double> waits;
  waits.reserve(batch.size());
  for (auto& j : batch) waits.push_back((t0 - j->enqueued_at) * 1000.0);
  stats_->RecordBatch(static_cast<int>(batch.size()), n_positions, (t1 - t0) * 1000.0, waits);
  size_t row = 0;
  for (auto& j : batch) {
    const size_t rows = j->positions.size() * per;
    JobOutcome out;
    out.ok = true;
    out.generation = gen;
    out.log_policy.assign(logp_.begin() + static_cast<long>(row * pts),
                          logp_.begin() + static_cast<long>((row + rows) * pts));
    out.values.assign(values_.begin() + static_cast<long>(row), values_.begin() + static_cast<long>(row + rows));
    row += rows;
    if (auto target = j->target.lock()) {
      target->Deliver(std::move(j), std::move(out));
    } else {
      stats_->RecordDropped();
    }
  }
}

void Batcher::FailAll(std::vector<std::unique_ptr<InferJob>>& jobs, wire::ErrorCode code, const std::string& why) {
  for (auto& j : jobs) {
    if (!j) continue;
    JobOutcome out;
    out.ok = false;
    out.error_code = code;
    out.error = why;
    if (auto target = j->target.lock()) target->Deliver(std::move(j), std::move(out));
  }
  jobs.clear();
}

}  // namespace gz
