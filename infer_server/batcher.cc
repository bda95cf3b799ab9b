#include "infer_server/batcher.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/cuda/compact_row.h"
#include "infer_server/job_input.h"

namespace gz {
namespace {

std::chrono::steady_clock::time_point SteadyAt(double monotonic_seconds) {
  return std::chrono::steady_clock::time_point(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(monotonic_seconds)));
}

// The model changed since the job's cache lookup: forward all its positions.
void ForgetStaleHits(InferJob& j, SymmetryMode mode, int board_size, InputForm form) {
  std::fill(j.hit.begin(), j.hit.end(), 0);
  EncodeJobInput(j, mode, board_size, form);
}

}  // namespace

Batcher::Batcher(BatchSettings settings, ServerStats* stats, ResultCache* cache)
    : settings_(settings), stats_(stats), cache_(cache) {
  GOMOKU_CHECK(settings_.max_batch >= 1, "max_batch must be >= 1");
  GOMOKU_CHECK(stats_ != nullptr, "Batcher needs stats");
}

Batcher::~Batcher() { Stop(); }

void Batcher::Start() {
  GOMOKU_CHECK(!thread_.joinable(), "Batcher started twice");
  thread_ = std::thread([this] { Loop(); });
}

bool Batcher::Submit(std::unique_ptr<InferJob>& job, wire::ErrorCode* code, std::string* why) {
  GOMOKU_CHECK(job->forward_count >= 1, "Batcher::Submit: nothing to forward");
  bool run_here = false, wake = true;
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
    wait_model_.RecordArrival(job->enqueued_at, job->forward_count);
    const BatchSettings& s = settings_;
    const bool closes_alone = job->forward_count >= s.max_batch || (!s.auto_wait && s.max_wait_ms <= 0) ||
                              (s.auto_wait && clients_.load() <= 1);
    run_here = closes_alone && !busy_ && queue_.empty() && !pending_model_;
    if (run_here) {
      busy_ = true;
    } else {
      queued_positions_ += job->forward_count;
      queue_.push_back(std::move(job));
      queued_.store(static_cast<int>(queue_.size()), std::memory_order_relaxed);
      wake = WakeNeeded();
    }
  }
  if (!run_here) {
    if (wake) cv_.notify_one();
    return true;
  }
  std::vector<std::unique_ptr<InferJob>> batch;
  batch.push_back(std::move(job));
  struct Release {
    Batcher* b;
    ~Release() {
      {
        std::lock_guard<std::mutex> lock(b->mu_);
        b->busy_ = false;
      }
      b->cv_.notify_one();  // jobs that arrived meanwhile wait for the batch thread
    }
  } release{this};
  RunBatch(batch, BatchClose::kInline);
  return true;
}

bool Batcher::WakeNeeded() const {
  // Only the fixed window is decided by counting: the auto wait re-estimates
  // its window at every arrival, and a thread not collecting needs every job.
  if (collecting_positions_ < 0 || settings_.auto_wait) return true;
  return collecting_positions_ + queued_positions_ >= settings_.max_batch;
}

void Batcher::InstallModel(std::unique_ptr<ServingModel> model, std::function<void(int64_t)> on_swapped) {
  GOMOKU_CHECK(model && model->forward->board_size() == settings_.board_size,
               "Batcher of board size " << settings_.board_size << " given a model that plays another size");
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

bool Batcher::Idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !busy_ && queue_.empty() && !pending_model_;
}

void Batcher::SwapIfPending(std::unique_lock<std::mutex>& lk) {
  if (!pending_model_) return;
  std::shared_ptr<const ServingModel> old = std::move(model_);
  model_ = std::shared_ptr<const ServingModel>(std::move(pending_model_));
  auto cb = std::move(pending_callback_);
  pending_callback_ = nullptr;
  const int64_t gen = model_->generation;
  // Generation first, then the cache: a lookup that still sees the old
  // generation can only find old answers, which it then reports as such.
  generation_.store(gen);
  input_form_.store(InputFormOf(*model_->forward));
  if (cache_) cache_->Clear();
  const ForwardCost& cost = model_->cost;
  if (cost.small > 0 && cost.large > cost.small)
    wait_model_.SeedCost(cost.small, cost.small_s, cost.large, cost.large_s);
  const CheckpointInfo& info = model_->info;
  stats_->SetModel(gen, model_->path,
                   ForwardFlops(settings_.board_size, info.channels, info.blocks, info.heads) *
                       SymmetriesPerPosition(settings_.symmetry));
  const std::string what = model_->forward->Describe();
  lk.unlock();
  spdlog::info("serving model generation {} from {} ({})", gen, model_->path, what);
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
    queued_.store(0);
    queued_positions_ = 0;
    cb = std::move(pending_callback_);
    pending_callback_ = nullptr;
    pending_model_.reset();
  }
  FailAll(rest, wire::ErrorCode::kShuttingDown, "the inference server is shutting down");
  if (cb) cb(-1);
}

void Batcher::Loop() {
  std::vector<std::unique_ptr<InferJob>> batch;
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    // An inline batch on the I/O thread (busy_) finishes before this thread
    // swaps a model or starts the next batch.
    cv_.wait(lk, [&] { return stopping_ || (!busy_ && (!queue_.empty() || pending_model_ != nullptr)); });
    if (stopping_) break;
    busy_ = true;
    SwapIfPending(lk);
    if (stopping_) break;
    if (queue_.empty()) {
      busy_ = false;
      continue;
    }
    batch.clear();
    const BatchClose close = CollectBatch(lk, batch);
    if (stopping_) break;
    lk.unlock();
    RunBatch(batch, close);
    batch.clear();
    lk.lock();
    busy_ = false;
  }
  // Stopping: jobs taken into an unstarted batch and everything queued get an
  // ERROR (the batch in flight, if any, has already been answered).
  for (auto& j : queue_) batch.push_back(std::move(j));
  queue_.clear();
  queued_.store(0);
  queued_positions_ = 0;
  lk.unlock();
  FailAll(batch, wire::ErrorCode::kShuttingDown, "the inference server is shutting down");
}

BatchClose Batcher::CollectBatch(std::unique_lock<std::mutex>& lk, std::vector<std::unique_ptr<InferJob>>& batch) {
  const BatchSettings& s = settings_;
  // The fixed deadline counts from the arrival of the oldest waiting job;
  // the auto ceiling from this opening if that is later (auto_wait.h).
  const double oldest = queue_.front()->enqueued_at;
  const double fixed_deadline = oldest + s.max_wait_ms / 1000.0;
  const double ceiling = AutoWaitModel::CeilingAt(oldest, MonotonicSeconds(), s.auto_wait_ceiling_ms / 1000.0);
  std::unordered_set<uint64_t> clients_in_batch;
  int positions = 0;
  double last_growth = 0;
  for (;;) {
    bool full = false, grew = false, group_full = false;
    // Two alternating halves (auto only): batches of half the clients.
    const int group = s.auto_wait && s.auto_pipeline ? pipeline_.GroupSize(clients_.load()) : 0;
    while (!queue_.empty()) {
      const int n = queue_.front()->forward_count;
      if (!batch.empty() && positions + n > s.max_batch) {
        full = true;  // whole requests only; this one opens the next batch
        break;
      }
      if (group > 0 && static_cast<int>(clients_in_batch.size()) >= group &&
          !clients_in_batch.count(queue_.front()->client_id)) {
        group_full = true;  // this client's request opens the next batch
        break;
      }
      positions += n;
      clients_in_batch.insert(queue_.front()->client_id);
      batch.push_back(std::move(queue_.front()));
      queued_positions_ -= n;
      queue_.pop_front();
      grew = true;
    }
    queued_.store(static_cast<int>(queue_.size()), std::memory_order_relaxed);
    const double now = MonotonicSeconds();
    if (grew) last_growth = now;
    if (stopping_) return BatchClose::kStopping;
    if (full || positions >= s.max_batch) return BatchClose::kFull;
    double until;
    if (s.auto_wait) {
      const int in_batch = static_cast<int>(clients_in_batch.size()), clients = clients_.load();
      if (in_batch >= clients) return BatchClose::kAllClients;
      if (now >= ceiling) return BatchClose::kCeiling;
      if (group_full || (group > 0 && in_batch >= group)) return BatchClose::kPipeline;
      const WaitEstimates est = wait_model_.Estimates(now);
      const double open = AutoWaitModel::OpenUntil(positions, est, now, last_growth);
      if (open <= now) return BatchClose::kAdaptive;
      until = std::min(open, ceiling);
    } else {
      if (now >= fixed_deadline) return BatchClose::kDeadline;
      until = fixed_deadline;
    }
    collecting_positions_ = positions;
    cv_.wait_until(lk, SteadyAt(until), [&] { return stopping_ || !queue_.empty(); });
    collecting_positions_ = -1;
  }
}

void Batcher::RunBatch(std::vector<std::unique_ptr<InferJob>>& batch, BatchClose close) {
  std::shared_ptr<const ServingModel> model;
  {
    std::lock_guard<std::mutex> lock(mu_);
    model = model_;
  }
  const InputForm form = InputFormOf(*model->forward);
  const BatchSize size = GatherInput(batch, *model, form);
  const int n = size.forwarded * SymmetriesPerPosition(settings_.symmetry);
  const double t0 = MonotonicSeconds();
  int64_t gen = -1;
  try {
    std::lock_guard<std::mutex> device(device_mu_);
    gen = form == InputForm::kPlanes ? model->forward->Forward(planes_.data(), n, logp_.data(), values_.data())
                                     : model->forward->ForwardCompact(rows_.data(), n, logp_.data(), values_.data());
  } catch (const std::exception& e) {
    spdlog::error("forward of {} positions failed: {}", size.forwarded, e.what());
    FailAll(batch, wire::ErrorCode::kInternal, std::string("forward failed: ") + e.what());
    return;
  }
  const double t1 = MonotonicSeconds();
  // Bookkeeping before the answers, so that a client that has its answer
  // finds it counted in the stats.
  RecordForward(batch, *model, close, size, t0, t1);
  DeliverAnswers(batch, gen);
}

Batcher::BatchSize Batcher::GatherInput(std::vector<std::unique_ptr<InferJob>>& batch, const ServingModel& model,
                                        InputForm form) {
  const int per = SymmetriesPerPosition(settings_.symmetry);
  const int pts = settings_.board_size * settings_.board_size;
  BatchSize size;
  for (auto& j : batch) {
    if (!j->hit.empty() && j->cache_generation != model.generation) {
      ForgetStaleHits(*j, settings_.symmetry, settings_.board_size, form);
    } else if (!HasJobInput(*j, settings_.symmetry, settings_.board_size, form)) {
      EncodeJobInput(*j, settings_.symmetry, settings_.board_size, form);  // encoded for another model's form
    }
    size.positions += static_cast<int>(j->positions.size());
    size.forwarded += j->forward_count;
  }
  const int n = size.forwarded * per;
  logp_.resize(static_cast<size_t>(n) * pts);
  values_.resize(n);
  if (form == InputForm::kPlanes) {
    planes_.resize(static_cast<size_t>(n) * PlaneFloats(settings_.board_size));
    size_t off = 0;
    for (auto& j : batch) {
      std::memcpy(planes_.data() + off, j->planes.data(), j->planes.size() * sizeof(float));
      off += j->planes.size();
    }
  } else {
    rows_.resize(static_cast<size_t>(n) * CompactRowBytes(settings_.board_size));
    size_t off = 0;
    for (auto& j : batch) {
      std::memcpy(rows_.data() + off, j->rows.data(), j->rows.size());
      off += j->rows.size();
    }
  }
  return size;
}

void Batcher::RecordForward(const std::vector<std::unique_ptr<InferJob>>& batch, const ServingModel& model,
                            BatchClose close, const BatchSize& size, double t0, double t1) {
  const int n = size.forwarded * SymmetriesPerPosition(settings_.symmetry);
  BatchRecord rec;
  rec.requests = static_cast<int>(batch.size());
  rec.positions = size.positions;
  rec.positions_forwarded = size.forwarded;
  rec.forward_ms = (t1 - t0) * 1000.0;
  rec.flops = ForwardFlops(settings_.board_size, model.info.channels, model.info.blocks, model.info.heads) *
              static_cast<double>(n);
  rec.close = close;
  rec.auto_wait = settings_.auto_wait;
  rec.queue_wait_ms.reserve(batch.size());
  for (auto& j : batch) rec.queue_wait_ms.push_back((t0 - j->enqueued_at) * 1000.0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    wait_model_.RecordForward(t0, t1, size.forwarded);
    if (settings_.auto_wait && settings_.auto_pipeline) {
      pipeline_.RecordBatch(t1, size.forwarded, clients_.load());
      rec.pipeline = pipeline_.state();
    }
    rec.estimates = wait_model_.Estimates(t1);
  }
  stats_->RecordBatch(rec);
}

void Batcher::DeliverAnswers(std::vector<std::unique_ptr<InferJob>>& batch, int64_t generation) {
  const int per = SymmetriesPerPosition(settings_.symmetry);
  const int pts = settings_.board_size * settings_.board_size;
  size_t row = 0;
  for (auto& j : batch) {
    const size_t rows = static_cast<size_t>(j->forward_count) * per;
    JobOutcome out;
    out.ok = true;
    out.generation = generation;
    out.log_policy.assign(logp_.begin() + static_cast<long>(row * pts),
                          logp_.begin() + static_cast<long>((row + rows) * pts));
    out.values.assign(values_.begin() + static_cast<long>(row), values_.begin() + static_cast<long>(row + rows));
    row += rows;
    if (auto target = j->target.lock()) {
      // Write replies here while nobody waits for the next forward.
      const bool write_here = queued_.load(std::memory_order_relaxed) == 0;
      target->Deliver(std::move(j), std::move(out), write_here);
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
    if (auto target = j->target.lock()) target->Deliver(std::move(j), std::move(out), false);
  }
  jobs.clear();
}

}  // namespace gz
