// The Batcher in process with a real tiny network: the auto-wait ceiling
// counts from a batch's opening, the pipeline chooser's halves, batches
// assembled while the batch thread is busy, inline batches on the submitting
// thread (and the write_here hand-off), a fixed window closed by the arrival
// that fills it.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "infer_server/auto_wait.h"
#include "infer_server/batcher.h"
#include "tests/infer_server/batcher_test_util.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

// A ReplyTarget that records outcomes; optionally runs a hook on delivery.
class Collector : public ReplyTarget {
 public:
  void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) override {
    std::function<void(uint64_t)> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ids.push_back(job->request_id);
      ok.push_back(outcome.ok);
      here.push_back(write_here);
      hook = on_deliver;
    }
    cv_.notify_all();
    if (hook) hook(job->request_id);
  }
  bool WaitFor(size_t n, double timeout_s) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return ids.size() >= n; });
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint64_t> ids;
  std::vector<bool> ok, here;
  std::function<void(uint64_t)> on_deliver;
};

std::unique_ptr<InferJob> MakeJob(const std::shared_ptr<Collector>& target, uint64_t id, uint64_t client,
                                  int positions, double enqueued_at) {
  return MakeInferJob(target, id, client, RandomPositions(positions, id), SymmetryMode::kAll8, kTestBoard,
                      InputForm::kPlanes, enqueued_at);
}

// max_wait auto, max_batch 100, the given ceiling.
BatchSettings AutoSettings(double ceiling_ms) {
  BatchSettings s;
  s.board_size = kTestBoard;
  s.max_batch = 100;
  s.auto_wait = true;
  s.auto_wait_ceiling_ms = ceiling_ms;
  return s;
}

// max_wait fixed (by default the default window), max_batch as given.
BatchSettings FixedSettings(int max_batch, double max_wait_ms = BatchSettings{}.max_wait_ms) {
  BatchSettings s;
  s.board_size = kTestBoard;
  s.max_batch = max_batch;
  s.max_wait_ms = max_wait_ms;
  return s;
}

// A Batcher with `settings`, started with the tiny model (written to
// FreshTestDir(name)) installed and `clients` clients registered; its stats,
// and a Collector for the jobs' replies.
struct BatcherRig {
  BatcherRig(const std::string& name, const BatchSettings& settings, int clients) : b(settings, &stats) {
    b.Start();
    InstallAndWait(b, LoadTinyServingModel(FreshTestDir(name)));
    for (int i = 0; i < clients; ++i) b.AddClient();
  }
  ServerStats stats;
  Batcher b;
  std::shared_ptr<Collector> target = std::make_shared<Collector>();
};

}  // namespace

TEST_CASE("batcher: the auto-wait ceiling counts from the batch's opening, not the queue", "[server][autowait]") {
  // A second, silent client: "everyone is in the batch" never holds.
  BatcherRig rig("server/units-ceiling", AutoSettings(50), 2);
  wire::ErrorCode code;
  std::string why;
  // A job that arrived 10 s ago (as if queued behind a long forward).  Its
  // batch opens now; before any forward the rule sees no fixed cost to save
  // and closes it at once as `adaptive`.  Counting the ceiling from the
  // job's arrival would have closed it as `ceiling`.
  auto job = MakeJob(rig.target, 1, 1, 2, MonotonicSeconds() - 10);
  REQUIRE(rig.b.Submit(job, &code, &why));
  REQUIRE(rig.target->WaitFor(1, 30));
  rig.b.Stop();
  auto st = rig.stats.Snapshot(false);
  CHECK(st["batch_close_total"]["ceiling"] == 0);
  CHECK(st["batch_close_total"]["adaptive"] == 1);
  CHECK_FALSE(st["auto_wait"].contains("pipeline"));  // auto_pipeline is off
  CHECK(st["forwards_total"] == 1);
  CHECK(st["positions_forwarded_total"] == 2);
}

TEST_CASE("batcher: under auto, the chooser tries two halves after a lockstep epoch", "[server][autowait]") {
  BatchSettings settings = AutoSettings(60000);  // only a rule can close these batches
  settings.auto_pipeline = true;
  BatcherRig rig("server/units-pipeline", settings, 2);
  wire::ErrorCode code;
  std::string why;
  std::atomic<int> refused{0};
  // Rounds of one job per client, both queued before the batch thread can
  // open a batch: each round is submitted by the delivery (on the batch
  // thread) that completes the round before.  Lockstep takes both jobs into
  // one batch (all_clients); two halves take one client each (pipeline).
  // Rounds go on until the first halves epoch has run (an epoch lasts at
  // least kEpochSeconds) or 60 s have passed.
  std::atomic<int> delivered{0};
  std::atomic<bool> enough{false};
  std::atomic<uint64_t> next_id{1};
  auto submit_round = [&] {
    for (uint64_t client = 1; client <= 2; ++client) {
      auto j = MakeJob(rig.target, next_id, client, 1, MonotonicSeconds());
      ++next_id;
      if (!rig.b.Submit(j, &code, &why)) ++refused;
    }
  };
  // `submitting` is raised before `enough` is read, so once the main thread
  // has set `enough` and then seen `submitting` at 0, no round can start and
  // none is half submitted: next_id is final.
  std::atomic<int> submitting{0};
  rig.target->on_deliver = [&](uint64_t) {
    if (++delivered % 2 != 0) return;
    ++submitting;
    if (!enough) submit_round();
    --submitting;
  };
  // The first round comes from this thread, so the batch thread may take
  // its first job alone (before any forward the rule closes at once).
  submit_round();
  auto halves_measured = [&] {
    auto st = rig.stats.Snapshot(false);
    return st.contains("auto_wait") && st["auto_wait"]["halves_pos_per_s"].get<double>() > 0;
  };
  WaitUntil(halves_measured, 60, std::chrono::milliseconds(10));
  enough = true;
  // The round in flight finishes.
  WaitUntil([&] { return submitting.load() == 0 && delivered.load() + 1 >= static_cast<int>(next_id.load()); },
            30, std::chrono::milliseconds(1));
  rig.b.Stop();
  CHECK(refused == 0);
  auto st = rig.stats.Snapshot(false);
  CHECK(st["batch_close_total"]["all_clients"].get<int>() >= PipelineChooser::kEpochBatches - 2);
  CHECK(st["batch_close_total"]["pipeline"].get<int>() >= 2 * PipelineChooser::kEpochBatches);
  CHECK(st["requests_total"].get<int>() == delivered.load());
  CHECK(static_cast<uint64_t>(delivered.load()) + 1 == next_id.load());
  CHECK(st["auto_wait"]["lockstep_pos_per_s"].get<double>() > 0);
  CHECK(st["auto_wait"]["halves_pos_per_s"].get<double>() > 0);
}

TEST_CASE("batcher: jobs queued while the batch thread is busy form the next batch", "[server][batcher]") {
  // Fixed window 0: a batch is whatever is queued when it opens.
  BatcherRig rig("server/units-next", FixedSettings(1000, 0), 1);
  wire::ErrorCode code;
  std::string why;
  std::atomic<int> refused{0};  // Catch2 assertions are not thread-safe: count on the batch thread
  // Delivering job 1 (on the batch thread, before it can start another
  // batch) queues jobs 2..5; delivering job 2 queues job 6.
  rig.target->on_deliver = [&](uint64_t id) {
    if (id == 1) {
      for (uint64_t k = 2; k <= 5; ++k) {
        auto j = MakeJob(rig.target, k, k, 1, MonotonicSeconds());
        if (!rig.b.Submit(j, &code, &why)) ++refused;
      }
    } else if (id == 2) {
      auto j = MakeJob(rig.target, 6, 6, 1, MonotonicSeconds());
      if (!rig.b.Submit(j, &code, &why)) ++refused;
    }
  };
  auto first = MakeJob(rig.target, 1, 1, 3, MonotonicSeconds());
  REQUIRE(rig.b.Submit(first, &code, &why));
  REQUIRE(rig.target->WaitFor(6, 30));
  rig.b.Stop();
  CHECK(refused == 0);
  std::lock_guard<std::mutex> lock(rig.target->mu_);
  CHECK(rig.target->ids == std::vector<uint64_t>{1, 2, 3, 4, 5, 6});
  for (bool ok : rig.target->ok) CHECK(ok);
  auto st = rig.stats.Snapshot(false);
  CHECK(st["forwards_total"] == 3);  // {1}, {2, 3, 4, 5}, {6}
  CHECK(st["requests_total"] == 6);
  CHECK(st["positions_forwarded_total"] == 3 + 4 + 1);
  CHECK(st["avg_batch_total"].get<double>() == Approx(8.0 / 3).epsilon(1e-3));
  // Nothing queued: the batch thread may write job 1's reply itself.  Job 3
  // was delivered while job 6 waited: it must be handed off.
  CHECK(rig.target->here[0]);
  CHECK_FALSE(rig.target->here[2]);
}

TEST_CASE("batcher: a job that closes a batch alone runs inline on the submitting thread", "[server][batcher]") {
  BatcherRig rig("server/units-inline", FixedSettings(2, 50), 2);
  std::mutex tid_mu;
  std::vector<std::thread::id> delivered_on;
  rig.target->on_deliver = [&](uint64_t) {
    std::lock_guard<std::mutex> lock(tid_mu);
    delivered_on.push_back(std::this_thread::get_id());
  };
  wire::ErrorCode code;
  std::string why;
  // Two positions = max_batch: nobody could join this batch; it is answered
  // before Submit returns, on this thread.
  auto full = MakeJob(rig.target, 1, 1, 2, MonotonicSeconds());
  REQUIRE(rig.b.Submit(full, &code, &why));
  {
    std::lock_guard<std::mutex> lock(rig.target->mu_);
    REQUIRE(rig.target->ids.size() == 1);
  }
  // One position of two: it waits for company on the batch thread.
  auto half = MakeJob(rig.target, 2, 2, 1, MonotonicSeconds());
  REQUIRE(rig.b.Submit(half, &code, &why));
  REQUIRE(rig.target->WaitFor(2, 30));
  rig.b.Stop();
  std::lock_guard<std::mutex> lock(tid_mu);
  REQUIRE(delivered_on.size() == 2);
  CHECK(delivered_on[0] == std::this_thread::get_id());
  CHECK(delivered_on[1] != std::this_thread::get_id());
  auto st = rig.stats.Snapshot(false);
  CHECK(st["batch_close_total"]["inline"] == 1);
  CHECK(st["batch_close_total"]["deadline"] == 1);
  CHECK(st["forwards_total"] == 2);
  CHECK(st["positions_forwarded_total"] == 3);
}

TEST_CASE("batcher: inline batches from many threads never overlap and all get answers", "[server][batcher]") {
  BatcherRig rig("server/units-inline-many", FixedSettings(1), 0);  // every job closes its batch alone
  std::atomic<int> inside{0}, overlap{0}, refused{0};
  rig.target->on_deliver = [&](uint64_t) {
    if (inside.fetch_add(1) != 0) ++overlap;  // deliveries of one batch run inside that batch's turn
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    inside.fetch_sub(1);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      wire::ErrorCode code;
      std::string why;
      for (int k = 0; k < 10; ++k) {
        auto j = MakeJob(rig.target, 100 * t + k, t, 1, MonotonicSeconds());
        if (!rig.b.Submit(j, &code, &why)) ++refused;
      }
    });
  for (auto& th : threads) th.join();
  REQUIRE(rig.target->WaitFor(40, 30));
  rig.b.Stop();
  CHECK(refused == 0);
  CHECK(overlap == 0);
  auto st = rig.stats.Snapshot(false);
  CHECK(st["forwards_total"] == 40);
  CHECK(st["positions_forwarded_total"] == 40);
  CHECK(st["batch_close_total"]["inline"].get<int>() + st["batch_close_total"]["full"].get<int>() == 40);
}

TEST_CASE("batcher: a fixed-window batch closes when an arrival fills it, not at its deadline", "[server][batcher]") {
  // Arrivals that leave the batch short do not wake the batch thread
  // (Batcher::WakeNeeded); the one that fills it must, or the batch would
  // wait out its 60 s window.
  BatcherRig rig("server/units-fill-wake", FixedSettings(4, 60000), 0);
  wire::ErrorCode code;
  std::string why;
  for (int k = 0; k < 4; ++k) {
    auto j = MakeJob(rig.target, k, k, 1, MonotonicSeconds());
    REQUIRE(rig.b.Submit(j, &code, &why));
    // Let the batch thread take the job and wait for the next one.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(rig.target->WaitFor(4, 20));
  // A second batch filled by one request of three plus one of one.
  auto three = MakeJob(rig.target, 10, 10, 3, MonotonicSeconds());
  REQUIRE(rig.b.Submit(three, &code, &why));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto one = MakeJob(rig.target, 11, 11, 1, MonotonicSeconds());
  REQUIRE(rig.b.Submit(one, &code, &why));
  REQUIRE(rig.target->WaitFor(6, 20));
  rig.b.Stop();
  auto st = rig.stats.Snapshot(false);
  CHECK(st["forwards_total"] == 2);
  CHECK(st["batch_close_total"]["full"] == 2);
  CHECK(st["batch_close_total"]["deadline"] == 0);
}
