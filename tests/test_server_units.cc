// Inference-server components in process: the result cache (keys, exact
// round trip, generations, bounded memory), the adaptive-wait model (fit,
// rule, pipelining, ceiling), and the Batcher with a real tiny network (ceiling, pipeline close, batches
// assembled while the batch thread is busy, write_here hand-off).
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "common/game/encoder.h"
#include "infer_server/auto_wait.h"
#include "infer_server/batcher.h"
#include "infer_server/result_cache.h"
#include "test_batcher_util.h"
#include "test_server_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

EvalResult Answer(int points, float seed) {
  EvalResult r;
  r.value = seed;
  r.log_policy.resize(points);
  for (int i = 0; i < points; ++i) r.log_policy[i] = seed * 0.001f + static_cast<float>(i) * 1e-7f;
  return r;
}

bool SameBits(const EvalResult& a, const EvalResult& b) {
  return a.log_policy.size() == b.log_policy.size() && std::memcmp(&a.value, &b.value, sizeof(float)) == 0 &&
         std::memcmp(a.log_policy.data(), b.log_policy.data(), a.log_policy.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("cache keys separate every field of the position and the symmetry mode", "[server][cache]") {
  Board b(kTestBoard);
  b.Play(40);
  b.Play(41);
  const Position p = b.ToPosition();
  const CacheKey k = MakeCacheKey(p, SymmetryMode::kAll8);
  auto differs = [&](const Position& q, SymmetryMode m) {
    CacheKey o = MakeCacheKey(q, m);
    return o.h1 != k.h1 && o.h2 != k.h2;  // both hashes change
  };
  CHECK(MakeCacheKey(p, SymmetryMode::kAll8).h1 == k.h1);  // deterministic
  CHECK(MakeCacheKey(p, SymmetryMode::kAll8).h2 == k.h2);
  CHECK(differs(p, SymmetryMode::kNone));
  CHECK(differs(p, SymmetryMode::kRandom));
  Position q = p;
  q.last_move = 40;  // same stones, another last move
  CHECK(differs(q, SymmetryMode::kAll8));
  q = p;
  q.to_move = q.to_move == kBlack ? kWhite : kBlack;
  CHECK(differs(q, SymmetryMode::kAll8));
  for (int cell : {0, 31, 32, 80}) {  // first/last cell of a packed word, last cell of the board
    INFO("cell " << cell);
    q = p;
    q.cells[cell] = static_cast<int8_t>((q.cells[cell] + 1) % 3);
    CHECK(differs(q, SymmetryMode::kAll8));
  }
  // Many random positions: no collision in either hash.
  std::set<uint64_t> h1, h2;
  std::set<std::vector<int8_t>> distinct;
  for (const Position& r : RandomPositions(3000, 4)) {
    if (!distinct.insert([&] {
          std::vector<int8_t> v = r.cells;
          v.push_back(static_cast<int8_t>(r.last_move));
          v.push_back(r.to_move);
          return v;
        }())
             .second)
      continue;
    CacheKey c = MakeCacheKey(r, SymmetryMode::kAll8);
    CHECK(h1.insert(c.h1).second);
    CHECK(h2.insert(c.h2).second);
  }
  // Another board size with the same first cells.
  Board small(7);
  small.Play(0);
  Board big(9);
  big.Play(0);
  CHECK(MakeCacheKey(small.ToPosition(), SymmetryMode::kAll8).h1 != MakeCacheKey(big.ToPosition(), SymmetryMode::kAll8).h1);
}

TEST_CASE("result cache: exact round trip, generation isolation, bounded LRU, clear", "[server][cache]") {
  const int pts = kTestBoard * kTestBoard;
  ResultCache cache(64, kTestBoard);
  CHECK(cache.capacity() == 64);
  std::vector<Position> ps = DistinctPositions(200, 9);
  std::vector<CacheKey> keys;
  for (auto& p : ps) keys.push_back(MakeCacheKey(p, SymmetryMode::kAll8));

  EvalResult got;
  CHECK_FALSE(cache.Lookup(1, keys[0], &got));
  cache.Insert(1, keys[0], Answer(pts, 0.25f));
  REQUIRE(cache.Lookup(1, keys[0], &got));
  CHECK(SameBits(got, Answer(pts, 0.25f)));
  CHECK(got.model_generation == 1);
  CHECK_FALSE(cache.Lookup(2, keys[0], &got));  // another generation never sees it
  CacheKey half = keys[0];
  half.h2 ^= 1;  // same set and h1, other h2: a miss
  CHECK_FALSE(cache.Lookup(1, half, &got));

  // Insert far more than the capacity: at most `capacity` answers survive, and
  // every surviving one is the right one.
  for (size_t i = 0; i < ps.size(); ++i) cache.Insert(1, keys[i], Answer(pts, static_cast<float>(i)));
  int found = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (!cache.Lookup(1, keys[i], &got)) continue;
    ++found;
    CHECK(SameBits(got, Answer(pts, static_cast<float>(i))));
  }
  CHECK(found <= cache.capacity());
  CHECK(found >= cache.capacity() / 2);

  // LRU within a set: an entry that keeps being used survives a flood.
  ResultCache one_set(8, kTestBoard);  // a single 8-way set
  one_set.Insert(1, keys[0], Answer(pts, 1));
  for (size_t i = 1; i < 100; ++i) {
    REQUIRE(one_set.Lookup(1, keys[0], &got));
    one_set.Insert(1, keys[i], Answer(pts, 2));
  }
  CHECK(one_set.Lookup(1, keys[0], &got));
  CHECK_FALSE(one_set.Lookup(1, keys[1], &got));  // long evicted

  cache.Clear();
  for (size_t i = 0; i < ps.size(); ++i) CHECK_FALSE(cache.Lookup(1, keys[i], &got));
  CHECK_THROWS_AS(ResultCache(0, kTestBoard), ConfigError);
}

TEST_CASE("adaptive wait: the cost model fit and the rule", "[server][autowait]") {
  AutoWaitModel m;
  // Before any forward there is no fixed cost to save: close at once.
  WaitEstimates e0 = m.Estimates(0);
  CHECK(AutoWaitModel::OpenUntil(1, e0, 0, 0) <= 0);

  // Forwards with t(b) = 2 ms + 0.1 ms * b, batch sizes 1..40.
  double now = 1;
  for (int i = 0; i < 400; ++i) {
    const int b = 1 + (i * 7) % 40;
    const double t = 0.002 + 0.0001 * b;
    m.RecordForward(now, now + t, b);
    now += t + 0.0001;
  }
  WaitEstimates e = m.Estimates(now);
  CHECK(e.t0_s == Approx(0.002).epsilon(0.02));
  CHECK(e.c_s == Approx(0.0001).epsilon(0.02));
  CHECK(e.busy > 0.5);

  // Budget formula (docs/protocol.md): (t0 (1 + rho b) - c b) / (b + 1).
  WaitEstimates f;
  f.t0_s = 0.002;
  f.c_s = 0.0001;
  f.busy = 0.5;
  CHECK(AutoWaitModel::Budget(3, f) == Approx((0.002 * 2.5 - 0.0003) / 4));
  f.busy = 0;
  CHECK(AutoWaitModel::Budget(30, f) < 0);  // idle device, big batch: never worth waiting
  f.busy = 1;
  // Arrivals far apart (1/lambda = 10 ms > budget): close now.
  f.arrival_per_s = 100;
  CHECK(AutoWaitModel::OpenUntil(4, f, 5.0, 5.0) <= 5.0);
  // Arrivals 0.1 ms apart: stay open, but only budget(b) past the last growth.
  f.arrival_per_s = 10000;
  const double until = AutoWaitModel::OpenUntil(4, f, 5.0, 4.9995);
  CHECK(until == Approx(4.9995 + AutoWaitModel::Budget(4, f)));
  CHECK(until > 5.0);
  CHECK(AutoWaitModel::OpenUntil(4, f, 5.1, 4.9995) <= 5.1);  // the budget has run out

  // The arrival estimate follows the rate and decays in silence.
  AutoWaitModel r;
  r.RecordForward(0, 0.001, 1);  // tau = clamp(8 ms, 2, 200) = 8 ms
  for (int i = 0; i < 2000; ++i) r.RecordArrival(1 + i * 0.0005, 1);  // 2000 / s
  const double last = 1 + 1999 * 0.0005;
  CHECK(r.Estimates(last).arrival_per_s == Approx(2000).epsilon(0.1));
  CHECK(r.Estimates(last + 0.1).arrival_per_s < 1);
}

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

// Starts `b` with the tiny model installed and `clients` clients registered.
void StartWithModel(Batcher& b, const std::string& dir, int clients) {
  b.Start();
  InstallAndWait(b, LoadTinyServingModel(dir));
  for (int i = 0; i < clients; ++i) b.AddClient();
}

}  // namespace

TEST_CASE("adaptive wait: a measured cost seed, and where the ceiling counts from", "[server][autowait]") {
  // A measured seed gives the fixed cost before batch sizes vary, and
  // forwards that all have one size afterwards do not erase it.
  AutoWaitModel seeded;
  seeded.SeedCost(1, 0.0007, 8, 0.0021);  // t(b) = 0.5 ms + 0.2 ms * b
  CHECK(seeded.Estimates(0).t0_s == Approx(0.0005));
  CHECK(seeded.Estimates(0).c_s == Approx(0.0002));
  double at = 1;
  for (int i = 0; i < 500; ++i, at += 0.01) seeded.RecordForward(at, at + 0.0045, 20);  // on the same line
  CHECK(seeded.Estimates(at).t0_s == Approx(0.0005).epsilon(0.05));
  AutoWaitModel unseeded;  // the same forwards alone: all charged to t0
  for (int i = 0; i < 500; ++i) unseeded.RecordForward(1 + i * 0.01, 1 + i * 0.01 + 0.0045, 20);
  CHECK(unseeded.Estimates(at).t0_s == Approx(0.0045));

  // The ceiling bounds how long a batch stays open: from its opening, or from
  // its oldest request if that came later.  Time queued behind a forward does
  // not count.
  CHECK(AutoWaitModel::CeilingAt(10.0, 12.0, 0.005) == Approx(12.005));
  CHECK(AutoWaitModel::CeilingAt(12.5, 12.0, 0.005) == Approx(12.505));
}

TEST_CASE("batcher: the auto-wait ceiling counts from the batch's opening, not the queue", "[server][autowait]") {
  std::string dir = TestTmpDir("units-ceiling");
  ServerStats stats;
  Batcher b(AutoSettings(50), &stats);
  StartWithModel(b, dir, 2);  // a second, silent client: "everyone is in the batch" never holds
  auto target = std::make_shared<Collector>();
  wire::ErrorCode code;
  std::string why;
  // A job that arrived 10 s ago (as if queued behind a long forward).  Its
  // batch opens now; before any forward the rule sees no fixed cost to save
  // and closes it at once as `adaptive`.  Counting the ceiling from the
  // job's arrival would have closed it as `ceiling`.
  auto job = MakeJob(target, 1, 1, 2, MonotonicSeconds() - 10);
  REQUIRE(b.Submit(job, &code, &why));
  REQUIRE(target->WaitFor(1, 30));
  b.Stop();
  auto st = stats.Snapshot(false);
  CHECK(st["batch_close_total"]["ceiling"] == 0);
  CHECK(st["batch_close_total"]["adaptive"] == 1);
  CHECK_FALSE(st["auto_wait"].contains("pipeline"));  // auto_pipeline is off
  CHECK(st["forwards_total"] == 1);
  CHECK(st["positions_forwarded_total"] == 2);
}

TEST_CASE("pipeline chooser: measures both modes, runs the better, explores, starts over", "[server][autowait]") {
  using Mode = PipelineChooser::Mode;
  PipelineChooser p;
  double now = 0;
  // One epoch in the current mode: forwards of 10 positions every `dt` s
  // (dt * kEpochBatches < kEpochSeconds: the epoch lasts its minimum time).
  auto epoch = [&](double dt, int clients = 20) {
    const int64_t before = p.epochs();
    while (p.epochs() == before) {
      now += dt;
      p.RecordBatch(now, 10, clients);
    }
  };
  CHECK(p.mode() == Mode::kLockstep);
  CHECK(p.GroupSize(20) == 0);
  epoch(0.005);  // lockstep: 2000 positions/s
  CHECK(p.Rate(Mode::kLockstep) == Approx(2000));
  CHECK(p.mode() == Mode::kHalves);  // no figure for halves yet: try it
  CHECK(p.GroupSize(20) == 10);
  CHECK(p.GroupSize(21) == 11);
  CHECK(p.GroupSize(1) == 0);
  epoch(0.004);  // halves: 2500 positions/s
  CHECK(p.Rate(Mode::kHalves) == Approx(2500));
  CHECK(p.mode() == Mode::kHalves);  // the better one
  // It stays with halves, except for one lockstep epoch in kExploreEvery.
  int lockstep_epochs = 0;
  for (int e = 0; e < 2 * PipelineChooser::kExploreEvery; ++e) {
    const bool lock = p.mode() == Mode::kLockstep;
    lockstep_epochs += lock;
    epoch(lock ? 0.005 : 0.004);
  }
  CHECK(lockstep_epochs == 2);
  // Lockstep becomes the faster one: the next lockstep epoch shows it, and
  // the chooser stays there.
  while (p.mode() != Mode::kLockstep) epoch(0.004);
  epoch(0.002);  // lockstep now 5000 positions/s (averaged with 2000: 3500)
  CHECK(p.Rate(Mode::kLockstep) == Approx(3500));
  CHECK(p.mode() == Mode::kLockstep);
  epoch(0.002);
  CHECK(p.mode() == Mode::kLockstep);
  // A client joins: the figures no longer apply; lockstep, then halves again.
  epoch(0.002, 21);
  CHECK(p.Rate(Mode::kHalves) == 0);
  CHECK(p.mode() == Mode::kHalves);
}

TEST_CASE("batcher: under auto, the chooser tries two halves after a lockstep epoch", "[server][autowait]") {
  std::string dir = TestTmpDir("units-pipeline");
  ServerStats stats;
  BatchSettings settings = AutoSettings(60000);  // only a rule can close these batches
  settings.auto_pipeline = true;
  Batcher b(settings, &stats);
  StartWithModel(b, dir, 2);
  auto target = std::make_shared<Collector>();
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
      auto j = MakeJob(target, next_id, client, 1, MonotonicSeconds());
      ++next_id;
      if (!b.Submit(j, &code, &why)) ++refused;
    }
  };
  target->on_deliver = [&](uint64_t) {
    if (++delivered % 2 == 0 && !enough) submit_round();
  };
  // The first round comes from this thread, so the batch thread may take
  // its first job alone (before any forward the rule closes at once).
  submit_round();
  auto halves_measured = [&] {
    auto st = stats.Snapshot(false);
    return st.contains("auto_wait") && st["auto_wait"]["halves_pos_per_s"].get<double>() > 0;
  };
  const double give_up = MonotonicSeconds() + 60;
  while (!halves_measured() && MonotonicSeconds() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  enough = true;
  const double settle = MonotonicSeconds() + 30;  // the round in flight finishes
  while (delivered.load() + 1 < static_cast<int>(next_id.load()) && MonotonicSeconds() < settle)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  b.Stop();
  CHECK(refused == 0);
  auto st = stats.Snapshot(false);
  CHECK(st["batch_close_total"]["all_clients"].get<int>() >= PipelineChooser::kEpochBatches - 2);
  CHECK(st["batch_close_total"]["pipeline"].get<int>() >= 2 * PipelineChooser::kEpochBatches);
  CHECK(st["requests_total"].get<int>() == delivered.load());
  CHECK(static_cast<uint64_t>(delivered.load()) + 1 == next_id.load());
  CHECK(st["auto_wait"]["lockstep_pos_per_s"].get<double>() > 0);
  CHECK(st["auto_wait"]["halves_pos_per_s"].get<double>() > 0);
}

TEST_CASE("batcher: jobs queued while the batch thread is busy form the next batch", "[server][batcher]") {
  std::string dir = TestTmpDir("units-next");
  ServerStats stats;
  BatchSettings s;
  s.board_size = kTestBoard;
  s.max_batch = 1000;
  s.max_wait_ms = 0;  // fixed window 0: a batch is whatever is queued when it opens
  Batcher b(s, &stats);
  StartWithModel(b, dir, 1);
  auto target = std::make_shared<Collector>();
  wire::ErrorCode code;
  std::string why;
  std::atomic<int> refused{0};  // Catch2 assertions are not thread-safe: count on the batch thread
  // Delivering job 1 (on the batch thread, before it can start another
  // batch) queues jobs 2..5; delivering job 2 queues job 6.
  target->on_deliver = [&](uint64_t id) {
    if (id == 1) {
      for (uint64_t k = 2; k <= 5; ++k) {
        auto j = MakeJob(target, k, k, 1, MonotonicSeconds());
        if (!b.Submit(j, &code, &why)) ++refused;
      }
    } else if (id == 2) {
      auto j = MakeJob(target, 6, 6, 1, MonotonicSeconds());
      if (!b.Submit(j, &code, &why)) ++refused;
    }
  };
  auto first = MakeJob(target, 1, 1, 3, MonotonicSeconds());
  REQUIRE(b.Submit(first, &code, &why));
  REQUIRE(target->WaitFor(6, 30));
  b.Stop();
  CHECK(refused == 0);
  std::lock_guard<std::mutex> lock(target->mu_);
  CHECK(target->ids == std::vector<uint64_t>{1, 2, 3, 4, 5, 6});
  for (bool ok : target->ok) CHECK(ok);
  auto st = stats.Snapshot(false);
  CHECK(st["forwards_total"] == 3);  // {1}, {2, 3, 4, 5}, {6}
  CHECK(st["requests_total"] == 6);
  CHECK(st["positions_forwarded_total"] == 3 + 4 + 1);
  CHECK(st["avg_batch_total"].get<double>() == Approx(8.0 / 3).epsilon(1e-3));
  // Nothing queued: the batch thread may write job 1's reply itself.  Job 3
  // was delivered while job 6 waited: it must be handed off.
  CHECK(target->here[0]);
  CHECK_FALSE(target->here[2]);
}

TEST_CASE("batcher: a job that closes a batch alone runs inline on the submitting thread", "[server][batcher]") {
  std::string dir = TestTmpDir("units-inline");
  ServerStats stats;
  BatchSettings s;
  s.board_size = kTestBoard;
  s.max_batch = 2;
  s.max_wait_ms = 50;
  Batcher b(s, &stats);
  StartWithModel(b, dir, 2);
  auto target = std::make_shared<Collector>();
  std::mutex tid_mu;
  std::vector<std::thread::id> delivered_on;
  target->on_deliver = [&](uint64_t) {
    std::lock_guard<std::mutex> lock(tid_mu);
    delivered_on.push_back(std::this_thread::get_id());
  };
  wire::ErrorCode code;
  std::string why;
  // Two positions = max_batch: nobody could join this batch; it is answered
  // before Submit returns, on this thread.
  auto full = MakeJob(target, 1, 1, 2, MonotonicSeconds());
  REQUIRE(b.Submit(full, &code, &why));
  {
    std::lock_guard<std::mutex> lock(target->mu_);
    REQUIRE(target->ids.size() == 1);
  }
  // One position of two: it waits for company on the batch thread.
  auto half = MakeJob(target, 2, 2, 1, MonotonicSeconds());
  REQUIRE(b.Submit(half, &code, &why));
  REQUIRE(target->WaitFor(2, 30));
  b.Stop();
  std::lock_guard<std::mutex> lock(tid_mu);
  REQUIRE(delivered_on.size() == 2);
  CHECK(delivered_on[0] == std::this_thread::get_id());
  CHECK(delivered_on[1] != std::this_thread::get_id());
  auto st = stats.Snapshot(false);
  CHECK(st["batch_close_total"]["inline"] == 1);
  CHECK(st["batch_close_total"]["deadline"] == 1);
  CHECK(st["forwards_total"] == 2);
  CHECK(st["positions_forwarded_total"] == 3);
}

TEST_CASE("batcher: inline batches from many threads never overlap and all get answers", "[server][batcher]") {
  std::string dir = TestTmpDir("units-inline-many");
  ServerStats stats;
  BatchSettings s;
  s.board_size = kTestBoard;
  s.max_batch = 1;  // every job closes its batch alone
  Batcher b(s, &stats);
  StartWithModel(b, dir, 0);
  auto target = std::make_shared<Collector>();
  std::atomic<int> inside{0}, overlap{0}, refused{0};
  target->on_deliver = [&](uint64_t) {
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
        auto j = MakeJob(target, 100 * t + k, t, 1, MonotonicSeconds());
        if (!b.Submit(j, &code, &why)) ++refused;
      }
    });
  for (auto& th : threads) th.join();
  REQUIRE(target->WaitFor(40, 30));
  b.Stop();
  CHECK(refused == 0);
  CHECK(overlap == 0);
  auto st = stats.Snapshot(false);
  CHECK(st["forwards_total"] == 40);
  CHECK(st["positions_forwarded_total"] == 40);
  CHECK(st["batch_close_total"]["inline"].get<int>() + st["batch_close_total"]["full"].get<int>() == 40);
}

TEST_CASE("batcher: a fixed-window batch closes when an arrival fills it, not at its deadline", "[server][batcher]") {
  // Arrivals that leave the batch short do not wake the batch thread
  // (Batcher::WakeNeeded); the one that fills it must, or the batch would
  // wait out its 60 s window.
  std::string dir = TestTmpDir("units-fill-wake");
  ServerStats stats;
  BatchSettings s;
  s.board_size = kTestBoard;
  s.max_batch = 4;
  s.max_wait_ms = 60000;
  Batcher b(s, &stats);
  StartWithModel(b, dir, 0);
  auto target = std::make_shared<Collector>();
  wire::ErrorCode code;
  std::string why;
  for (int k = 0; k < 4; ++k) {
    auto j = MakeJob(target, k, k, 1, MonotonicSeconds());
    REQUIRE(b.Submit(j, &code, &why));
    // Let the batch thread take the job and wait for the next one.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(target->WaitFor(4, 20));
  // A second batch filled by one request of three plus one of one.
  auto three = MakeJob(target, 10, 10, 3, MonotonicSeconds());
  REQUIRE(b.Submit(three, &code, &why));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto one = MakeJob(target, 11, 11, 1, MonotonicSeconds());
  REQUIRE(b.Submit(one, &code, &why));
  REQUIRE(target->WaitFor(6, 20));
  b.Stop();
  auto st = stats.Snapshot(false);
  CHECK(st["forwards_total"] == 2);
  CHECK(st["batch_close_total"]["full"] == 2);
  CHECK(st["batch_close_total"]["deadline"] == 0);
}
