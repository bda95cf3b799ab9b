// The training side of the self-play recipe: policy
// loss only on full-search samples, soft value targets, the power-law
// window, the cap on samples per new sample, the resignation report.
#include <cmath>
#include <random>
#include <set>

#include "common/game/encoder.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/net_trainer.h"
#include "trainer/recipe.h"
#include "trainer/replay_buffer.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

using namespace gz;
using gz::testing::Ptrs;
using gz::testing::RandomGame;

namespace {
// A game with q values and every other move a cheap search.
GameRecord RecipeGame(int size, uint64_t seed) {
  GameRecord g = RandomGame(size, 1, seed);
  for (int t = 0; t < g.num_moves(); ++t) {
    g.q[t] = 0.1f * static_cast<float>((t % 7) - 3);
    g.full_search.push_back(t % 2 == 0 ? 1 : 0);
  }
  return g;
}
}  // namespace

TEST_CASE("cheap searches have no policy target; full ones keep theirs") {
  const int n = 7, pts = n * n;
  std::vector<GameRecord> games = {RecipeGame(n, 3)};
  ReplayBuffer buf(n, 1);
  buf.AddIteration(1, Ptrs(games));
  REQUIRE(buf.num_samples() == games[0].num_moves());
  std::vector<float> planes(PlaneFloats(n)), policy(pts);
  float value = 0;
  for (int t = 0; t < games[0].num_moves(); ++t) {
    buf.EncodeSample(t, 0, planes.data(), policy.data(), &value);
    double s = 0;
    for (float x : policy) s += x;
    CHECK(s == Approx(t % 2 == 0 ? 1.0 : 0.0).margin(1e-5));
    CHECK(value == ValueTarget(games[0].winner, games[0].to_move[t]));  // no q weight: the result
  }
}

TEST_CASE("soft value targets: z' = (1 - w) z + w q") {
  const int n = 7, pts = n * n;
  std::vector<GameRecord> games = {RecipeGame(n, 4)};
  REQUIRE(games[0].winner != 0);
  ReplayBuffer buf(n, 1);
  buf.SetValueTargetQWeight(0.25);
  buf.AddIteration(1, Ptrs(games));
  std::vector<float> planes(PlaneFloats(n)), policy(pts);
  float value = 0;
  for (int t = 0; t < games[0].num_moves(); ++t) {
    buf.EncodeSample(t, 3, planes.data(), policy.data(), &value);
    const float z = ValueTarget(games[0].winner, games[0].to_move[t]);
    CHECK(value == Approx(0.75 * z + 0.25 * games[0].q[t]).margin(1e-6));
  }
}

TEST_CASE("the policy loss counts only full-search samples; the value loss counts all") {
  const int n = 7, pts = n * n;
  std::vector<GameRecord> games = {RecipeGame(n, 5)};
  ReplayBuffer buf(n, 1);
  buf.AddIteration(1, Ptrs(games));
  std::vector<float> planes(2 * PlaneFloats(n)), policy(2 * pts), value(2);
  buf.EncodeSample(0, 0, planes.data(), policy.data(), &value[0]);                      // full
  buf.EncodeSample(1, 0, planes.data() + PlaneFloats(n), policy.data() + pts, &value[1]);  // cheap
  TrainConfig tc;
  NetTrainer trainer(PolicyValueNet(n, 8, 1), tc, torch::kCPU);
  const TrainMetrics both = trainer.Evaluate(planes.data(), policy.data(), value.data(), 2);
  const TrainMetrics full = trainer.Evaluate(planes.data(), policy.data(), value.data(), 1);
  const TrainMetrics cheap =
      trainer.Evaluate(planes.data() + PlaneFloats(n), policy.data() + pts, value.data() + 1, 1);
  CHECK(cheap.policy_loss == Approx(0.0).margin(1e-9));
  CHECK(full.policy_loss > 0.1);
  CHECK(both.policy_loss == Approx(full.policy_loss / 2).epsilon(1e-4));  // per-sample weight 0, as KataGo
  CHECK(both.value_loss == Approx((full.value_loss + cheap.value_loss) / 2).epsilon(1e-4));
}

TEST_CASE("power-law window: the formula over a run's iterations, off = no cap") {
  TrainConfig c;
  CHECK(PowerLawWindowSamples(c, 1000000) == 0);
  c.window_power_alpha = 0.75;
  c.window_power_beta = 0.4;
  c.window_min_samples = 1000;
  for (int64_t run : {int64_t{10}, int64_t{999}, int64_t{1000}}) CHECK(PowerLawWindowSamples(c, run) == run);
  // Iterations of 500 samples each.
  int64_t prev = 0;
  for (int it = 1; it <= 40; ++it) {
    const int64_t run = 500 * it;
    const int64_t w = PowerLawWindowSamples(c, run);
    if (run > 1000) {
      const double expect = 1000.0 * (1 + 0.4 * (std::pow(run / 1000.0, 0.75) - 1) / 0.75);
      CHECK(w == static_cast<int64_t>(std::floor(expect)));
      CHECK(w < run);
    }
    CHECK(w >= prev);  // grows with the run
    prev = w;
  }
  CHECK(PowerLawWindowSamples(c, 16000) == 1000 + static_cast<int64_t>(std::floor(1000 * 0.4 * 7 / 0.75)) );
}

TEST_CASE("the replay buffer samples only the newest window of samples") {
  const int n = 7;
  std::vector<GameRecord> a = {RandomGame(n, 1, 1)}, b = {RandomGame(n, 2, 2)};
  ReplayBuffer buf(n, 5);
  buf.AddIteration(1, Ptrs(a));
  buf.AddIteration(2, Ptrs(b));
  const int64_t newest = b[0].num_moves();
  buf.SetSampleWindow(newest);
  CHECK(buf.sampled_samples() == newest);
  // Every draw comes from iteration 2: its positions are the only ones it can produce.
  std::set<std::vector<float>> allowed;
  std::vector<float> planes(PlaneFloats(n)), policy(n * n);
  float v;
  for (int64_t i = buf.num_samples() - newest; i < buf.num_samples(); ++i)
    for (int s = 0; s < 8; ++s) {
      buf.EncodeSample(i, s, planes.data(), policy.data(), &v);
      allowed.insert(planes);
    }
  std::mt19937_64 rng(7);
  const int k = 64;
  std::vector<float> bp(k * PlaneFloats(n)), bpol(k * n * n), bv(k);
  buf.SampleBatch(k, rng, bp.data(), bpol.data(), bv.data());
  for (int i = 0; i < k; ++i)
    CHECK(allowed.count(std::vector<float>(bp.begin() + i * PlaneFloats(n), bp.begin() + (i + 1) * PlaneFloats(n))) == 1);
  // Off again: the same draws as a buffer that never had a window.
  buf.SetSampleWindow(0);
  CHECK(buf.sampled_samples() == buf.num_samples());
  ReplayBuffer plain(n, 5);
  plain.AddIteration(1, Ptrs(a));
  plain.AddIteration(2, Ptrs(b));
  std::mt19937_64 r1(9), r2(9);
  std::vector<float> p1(bp.size()), p2(bp.size()), q1(bpol.size()), q2(bpol.size()), v1(k), v2(k);
  buf.SampleBatch(k, r1, p1.data(), q1.data(), v1.data());
  plain.SampleBatch(k, r2, p2.data(), q2.data(), v2.data());
  CHECK(p1 == p2);
}

TEST_CASE("samples per new sample: steps are reduced to the cap") {
  TrainConfig c;
  c.train_batches = 32;
  c.batch_size = 100;
  CHECK(CappedTrainSteps(c, 10) == 32);  // off
  c.max_samples_per_new_sample = 4.0;
  CHECK(CappedTrainSteps(c, 2000) == 32);   // 8000 / 100 = 80 > 32
  CHECK(CappedTrainSteps(c, 500) == 20);    // 2000 / 100
  CHECK(CappedTrainSteps(c, 520) == 20);    // floor(20.8): 20 * 100 <= 4 * 520
  CHECK(CappedTrainSteps(c, 10) == 1);      // never below one step
  for (int64_t s : {int64_t{300}, int64_t{777}, int64_t{999}})
    CHECK(CappedTrainSteps(c, s) * c.batch_size <= 4.0 * s);
}

TEST_CASE("resignation report: the false-positive rate of the never-resign games") {
  auto game = [](bool disabled, int64_t would, int8_t winner, bool resigned = false) {
    GameRecord g = RandomGame(7, 1, 11, 0, 10);
    g.resign_on = true;
    g.resign_disabled = disabled;
    g.would_resign_move = would;
    g.resigned = resigned;
    g.winner = winner;
    return g;
  };
  // RandomGame: black moves at even t.  would_resign_move 2 -> black would resign, 3 -> white.
  std::vector<GameRecord> games = {
      game(true, 2, kWhite),   // black would resign, white won: correct
      game(true, 2, kBlack),   // black would resign but won: false positive
      game(true, 3, 0),        // white would resign, draw: false positive
      game(true, -1, kBlack),  // never would have
      game(false, 4, kWhite, true),  // resigned
      game(false, -1, kBlack),
  };
  GameRecord off = RandomGame(7, 1, 12);  // resignation off: not counted
  std::vector<const GameRecord*> ptrs = Ptrs(games);
  ptrs.push_back(&off);
  const ResignReport r = MakeResignReport(ptrs);
  CHECK(r.games == 6);
  CHECK(r.resigned == 1);
  CHECK(r.disabled == 4);
  CHECK(r.disabled_would_resign == 3);
  CHECK(r.false_positives == 2);
  CHECK(r.false_positive_rate() == Approx(2.0 / 3.0));
  CHECK(r.ToJson()["false_positive_rate"].get<double>() == Approx(2.0 / 3.0));
  CHECK(MakeResignReport({&off}).games == 0);
}
