// The server's job input (infer_server/job_input.h): both input forms list
// the same rows (compact rows decode to the planes bit for bit, with cache
// hits skipped), and a Batcher whose backend takes compact rows (device-side
// encoding) answers bit for bit what the planes path answers, including jobs
// that were encoded for the other form and jobs whose cached hits went stale.
//
// On the CPU the backend that takes compact rows is HostCompactForward below:
// the real tiny network behind the kernel's host reference
// (EncodeCompactRowsOnHost runs the per-point code the CUDA kernel runs).
// CudaForward itself, and the kernel against this reference, are checked on a
// device machine (bench_gpu, dev/gpu_check.sh).
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <future>
#include <map>
#include <mutex>

#include "common/game/encoder.h"
#include "common/net/cuda/compact_batch.h"
#include "common/game/symmetry.h"
#include "infer_server/batcher.h"
#include "infer_server/job_input.h"
#include "tests/infer_server/batcher_test_util.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

class HostCompactForward : public BatchForward {
 public:
  explicit HostCompactForward(std::unique_ptr<BatchForward> inner) : inner_(std::move(inner)) {}
  int64_t Forward(const float* planes, int n, float* log_policy, float* value) override {
    ++plane_calls;
    return inner_->Forward(planes, n, log_policy, value);
  }
  bool TakesCompactRows() const override { return true; }
  int64_t ForwardCompact(const uint8_t* rows, int n, float* log_policy, float* value) override {
    ++compact_calls;
    planes_.resize(static_cast<size_t>(n) * PlaneFloats(board_size()));
    EncodeCompactRowsOnHost(rows, n, board_size(), planes_.data());
    return inner_->Forward(planes_.data(), n, log_policy, value);
  }
  int board_size() const override { return inner_->board_size(); }
  std::string Describe() const override { return "host-encoded compact rows over " + inner_->Describe(); }

  std::atomic<int> plane_calls{0}, compact_calls{0};

 private:
  std::unique_ptr<BatchForward> inner_;
  std::vector<float> planes_;
};

// Records each job's outcome by request id.
class OutcomeCollector : public ReplyTarget {
 public:
  void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool /*write_here*/) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      outcomes[job->request_id] = std::move(outcome);
    }
    cv_.notify_all();
  }
  bool WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return outcomes.size() >= n; });
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, JobOutcome> outcomes;
};

// The tiny model; with `compact`, behind a HostCompactForward (*wrapper set).
std::unique_ptr<ServingModel> TinyModel(const std::string& dir, int64_t generation, bool compact,
                                        HostCompactForward** wrapper = nullptr) {
  auto model = LoadTinyServingModel(dir, generation);
  if (compact) {
    auto w = std::make_unique<HostCompactForward>(std::move(model->forward));
    if (wrapper) *wrapper = w.get();
    model->forward = std::move(w);
  }
  return model;
}

std::unique_ptr<InferJob> Job(const std::shared_ptr<OutcomeCollector>& target, uint64_t id, int positions,
                              SymmetryMode mode, InputForm form) {
  return MakeInferJob(target, id, id, RandomPositions(positions, 100 + id), mode, kTestBoard, form,
                      MonotonicSeconds());
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && !a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Runs jobs 1..5 (1-5 positions each) through a fresh Batcher over a model of
// the given form; jobs are encoded for `job_form`.  max_batch 1: every job is
// a batch of its own, so each forward sees the same rows in every run (a CPU
// forward's floats may differ in the last bit with the batch size).
std::map<uint64_t, JobOutcome> RunJobs(const std::string& dir, SymmetryMode mode, bool compact_model,
                                       InputForm job_form, int* compact_calls = nullptr, int* plane_calls = nullptr) {
  ServerStats stats;
  BatchSettings s;
  s.board_size = kTestBoard;
  s.symmetry = mode;
  s.max_batch = 1;
  s.max_wait_ms = 0;
  Batcher b(s, &stats);
  b.Start();
  HostCompactForward* wrapper = nullptr;
  InstallAndWait(b, TinyModel(dir, 7, compact_model, &wrapper));
  CHECK(b.input_form() == (compact_model ? InputForm::kCompactRows : InputForm::kPlanes));
  auto target = std::make_shared<OutcomeCollector>();
  wire::ErrorCode code;
  std::string why;
  for (uint64_t id = 1; id <= 5; ++id) {
    auto j = Job(target, id, static_cast<int>(id), mode, job_form);
    REQUIRE(b.Submit(j, &code, &why));
  }
  REQUIRE(target->WaitFor(5));
  b.Stop();
  if (wrapper) {
    if (compact_calls) *compact_calls = wrapper->compact_calls.load();
    if (plane_calls) *plane_calls = wrapper->plane_calls.load();
  }
  std::lock_guard<std::mutex> lock(target->mu_);
  return target->outcomes;
}

}  // namespace

TEST_CASE("job input: compact rows decode to the planes, row for row, hits skipped", "[server][input]") {
  for (SymmetryMode mode : {SymmetryMode::kNone, SymmetryMode::kRandom, SymmetryMode::kAll8}) {
    CAPTURE(SymmetryModeName(mode));
    InferJob job;
    job.positions = RandomPositions(6, 42);
    job.hit = {0, 1, 0, 0, 1, 0};  // positions 1 and 4 were cached
    EncodeJobInput(job, mode, kTestBoard, InputForm::kPlanes);
    const std::vector<float> planes = job.planes;
    CHECK(job.forward_count == 4);
    CHECK(HasJobInput(job, mode, kTestBoard, InputForm::kPlanes));
    CHECK_FALSE(HasJobInput(job, mode, kTestBoard, InputForm::kCompactRows));

    EncodeJobInput(job, mode, kTestBoard, InputForm::kCompactRows);
    CHECK(job.planes.empty());
    CHECK(HasJobInput(job, mode, kTestBoard, InputForm::kCompactRows));
    CHECK_FALSE(HasJobInput(job, mode, kTestBoard, InputForm::kPlanes));
    const int rows = 4 * SymmetriesPerPosition(mode);
    REQUIRE(job.rows.size() == static_cast<size_t>(rows) * CompactRowBytes(kTestBoard));
    std::vector<float> decoded(static_cast<size_t>(rows) * PlaneFloats(kTestBoard), -1.0f);
    EncodeCompactRowsOnHost(job.rows.data(), rows, kTestBoard, decoded.data());
    CHECK(SameBits(decoded, planes));
    // Each row names its symmetry: the positions' own (SymmetriesFor).
    int syms[kNumSymmetries];
    SymmetriesFor(job.positions[2], mode, syms);
    const size_t second = static_cast<size_t>(SymmetriesPerPosition(mode)) * CompactRowBytes(kTestBoard);
    CHECK(job.rows[second + kTestBoard * kTestBoard + 3] == syms[0]);
  }
  InferJob wrong;
  wrong.positions = RandomPositions(1, 1, kTestBoard + 2);
  CHECK_THROWS_WITH(EncodeJobInput(wrong, SymmetryMode::kNone, kTestBoard, InputForm::kCompactRows),
                    Catch::Contains("position of size 11 on a server for size 9"));
}

TEST_CASE("batcher: a backend that takes compact rows answers as the planes path", "[server][input]") {
  const std::string dir = FreshTestDir("server/job-input");
  for (SymmetryMode mode : {SymmetryMode::kNone, SymmetryMode::kRandom, SymmetryMode::kAll8}) {
    CAPTURE(SymmetryModeName(mode));
    const auto reference = RunJobs(dir, mode, false, InputForm::kPlanes);
    int compact_calls = 0, plane_calls = 0;
    const auto compact = RunJobs(dir, mode, true, InputForm::kCompactRows, &compact_calls, &plane_calls);
    CHECK(compact_calls >= 1);
    CHECK(plane_calls == 0);
    // Jobs encoded as planes (before a compact model was swapped in) are
    // re-encoded by the batch thread.
    int stale_calls = 0, stale_plane_calls = 0;
    const auto reencoded = RunJobs(dir, mode, true, InputForm::kPlanes, &stale_calls, &stale_plane_calls);
    CHECK(stale_calls >= 1);
    CHECK(stale_plane_calls == 0);
    // ...and the other way round.
    const auto back = RunJobs(dir, mode, false, InputForm::kCompactRows);
    REQUIRE(reference.size() == 5);
    for (const auto& [id, ref] : reference) {
      CAPTURE(id);
      REQUIRE(ref.ok);
      const size_t rows = id * SymmetriesPerPosition(mode);
      CHECK(ref.values.size() == rows);
      CHECK(ref.log_policy.size() == rows * kTestBoard * kTestBoard);
      for (const auto* other : {&compact, &reencoded, &back}) {
        const JobOutcome& o = other->at(id);
        REQUIRE(o.ok);
        CHECK(o.generation == ref.generation);
        CHECK(SameBits(o.values, ref.values));
        CHECK(SameBits(o.log_policy, ref.log_policy));
      }
    }
  }
}

TEST_CASE("batcher: stale cache hits are forwarded as compact rows too", "[server][input]") {
  const std::string dir = FreshTestDir("server/job-input-stale");
  ServerStats stats;
  BatchSettings s;
  s.board_size = kTestBoard;
  s.symmetry = SymmetryMode::kAll8;
  s.max_wait_ms = 0;
  Batcher b(s, &stats);
  b.Start();
  HostCompactForward* wrapper = nullptr;
  InstallAndWait(b, TinyModel(dir, 9, true, &wrapper));
  auto target = std::make_shared<OutcomeCollector>();
  // A job whose first two positions were "found" under generation 8: the
  // model is generation 9, so all three must be forwarded.
  auto job = std::make_unique<InferJob>();
  job->target = target;
  job->request_id = 1;
  job->positions = RandomPositions(3, 5);
  job->hit = {1, 1, 0};
  job->cache_generation = 8;
  EncodeJobInput(*job, s.symmetry, kTestBoard, InputForm::kCompactRows);
  REQUIRE(job->forward_count == 1);
  job->enqueued_at = MonotonicSeconds();
  wire::ErrorCode code;
  std::string why;
  REQUIRE(b.Submit(job, &code, &why));
  REQUIRE(target->WaitFor(1));
  b.Stop();
  const JobOutcome& o = target->outcomes.at(1);
  REQUIRE(o.ok);
  CHECK(o.values.size() == 3 * 8);
  CHECK(wrapper->compact_calls == 1);
  CHECK(stats.Snapshot(false)["positions_forwarded_total"] == 3);
  // The same three positions through the planes path give the same bits.
  InferJob plain;
  plain.positions = RandomPositions(3, 5);
  EncodeJobInput(plain, s.symmetry, kTestBoard, InputForm::kPlanes);
  auto model = LoadTinyServingModel(dir, 9);
  std::vector<float> logp(24 * kTestBoard * kTestBoard), values(24);
  model->forward->Forward(plain.planes.data(), 24, logp.data(), values.data());
  CHECK(SameBits(o.values, values));
  CHECK(SameBits(o.log_policy, logp));
}
