// NetTrainer on real LibTorch: learning on a tiny board, optimizer state
// round trip, learning-rate schedule.
#include <algorithm>
#include <random>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/net/checkpoint.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/net_trainer.h"
#include "trainer/replay_buffer.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

using namespace gz;

namespace {

constexpr int kSize = 7;

// Black builds five in a row along a random line (in random order); white
// plays random points off the line.  Black's policy target is uniform over the
// line points still empty (so the last black move's target is the unique
// winning point); white's is uniform over the points it may play.
GameRecord LineGame(std::mt19937_64& rng) {
  const int n = kSize;
  struct Dir {
    int dr, dc;
  };
  const Dir dirs[] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  std::vector<int> line;
  for (;;) {
    Dir d = dirs[rng() % 4];
    int r0 = static_cast<int>(rng() % n), c0 = static_cast<int>(rng() % n);
    int r4 = r0 + 4 * d.dr, c4 = c0 + 4 * d.dc;
    if (r4 < 0 || r4 >= n || c4 < 0 || c4 >= n) continue;
    for (int i = 0; i < 5; ++i) line.push_back((r0 + i * d.dr) * n + (c0 + i * d.dc));
    break;
  }
  std::vector<int> order = line;
  std::shuffle(order.begin(), order.end(), rng);
  Board b(n, Rule::kFreestyle);
  GameRecord rec;
  rec.board_size = n;
  rec.iteration = 1;
  for (int i = 0; i < 5; ++i) {
    std::vector<float> pol(n * n, 0.0f);
    int empty_line = 0;
    for (int p : line) empty_line += b.at(p) == kEmpty;
    for (int p : line)
      if (b.at(p) == kEmpty) pol[p] = 1.0f / empty_line;
    rec.AddMove(b, pol, 0.0f, order[i], 0);
    b.Play(order[i]);
    if (i == 4) break;
    std::vector<int> options;
    for (int m : b.LegalMoves())
      if (std::find(line.begin(), line.end(), m) == line.end()) options.push_back(m);
    std::vector<float> wpol(n * n, 0.0f);
    for (int m : options) wpol[m] = 1.0f / options.size();
    int w = options[rng() % options.size()];
    rec.AddMove(b, wpol, 0.0f, w, 0);
    b.Play(w);
  }
  REQUIRE(b.outcome() == Outcome::kBlackWins);
  rec.winner = kBlack;
  return rec;
}

// `count` line games as iteration 1 of a replay window of `window` iterations.
ReplayBuffer LineGameBuffer(std::mt19937_64& rng, int count, int window) {
  std::vector<GameRecord> games;
  for (int i = 0; i < count; ++i) games.push_back(LineGame(rng));
  ReplayBuffer buffer(kSize, window);
  buffer.AddIteration(1, gz::testing::Ptrs(games));
  return buffer;
}

struct HeldOut {
  std::vector<float> planes, policy, value;
  int n = 0;
  std::vector<float> win_planes;  // black to move with four on the line
  std::vector<int> win_moves;
  std::vector<std::vector<int8_t>> win_cells;
};

HeldOut MakeHeldOut(std::mt19937_64& rng, int games) {
  HeldOut h;
  for (int g = 0; g < games; ++g) {
    GameRecord rec = LineGame(rng);
    ReplayBuffer one(kSize, 1);
    one.AddIteration(1, {&rec});
    for (int64_t i = 0; i < one.num_samples(); ++i) {
      h.planes.resize((h.n + 1) * PlaneFloats(kSize));
      h.policy.resize((h.n + 1) * kSize * kSize);
      h.value.resize(h.n + 1);
      one.EncodeSample(i, 0, h.planes.data() + h.n * PlaneFloats(kSize), h.policy.data() + h.n * kSize * kSize,
                       h.value.data() + h.n);
      ++h.n;
    }
    // The last black position: the winning point is the one move played.
    const int last = rec.num_moves() - 1;
    h.win_planes.resize((h.win_moves.size() + 1) * PlaneFloats(kSize));
    one.EncodeSample(last, 0, h.win_planes.data() + h.win_moves.size() * PlaneFloats(kSize),
                     std::vector<float>(kSize * kSize).data(), std::vector<float>(1).data());
    h.win_cells.emplace_back(rec.boards.begin() + last * kSize * kSize,
                             rec.boards.begin() + (last + 1) * kSize * kSize);
    h.win_moves.push_back(rec.moves[last]);
  }
  return h;
}

// Fraction of the held-out winning positions where the net's best legal move wins.
double WinningMoveRate(PolicyValueNet& net, const HeldOut& h) {
  net->eval();
  torch::NoGradGuard ng;
  const int k = static_cast<int>(h.win_moves.size());
  auto planes = torch::from_blob(const_cast<float*>(h.win_planes.data()), {k, kNumPlanes, kSize, kSize}).clone();
  auto logp = net->forward(planes).first;
  int hits = 0;
  for (int i = 0; i < k; ++i) {
    auto row = logp[i].clone();
    for (int p = 0; p < kSize * kSize; ++p)
      if (h.win_cells[i][p] != kEmpty) row[p] = -1e9;
    hits += row.argmax().item<int64_t>() == h.win_moves[i];
  }
  return static_cast<double>(hits) / k;
}

TrainConfig SmallTrainConfig() {
  TrainConfig t;
  t.optimizer = "adam";
  t.learning_rate = 3e-3;
  t.weight_decay = 1e-4;
  return t;
}

}  // namespace

TEST_CASE("training on a fixed set of games lowers held-out loss and finds winning moves") {
  torch::manual_seed(7);
  at::set_num_threads(1);
  std::mt19937_64 rng(2024);
  ReplayBuffer buffer = LineGameBuffer(rng, 300, 4);
  HeldOut held = MakeHeldOut(rng, 60);

  NetTrainer trainer(PolicyValueNet(kSize, 16, 2), SmallTrainConfig(), torch::kCPU);
  TrainMetrics before = trainer.Evaluate(held.planes.data(), held.policy.data(), held.value.data(), held.n);
  double win_before = WinningMoveRate(trainer.net(), held);
  TrainMetrics last;
  for (int it = 1; it <= 4; ++it) {
    last = trainer.Train(buffer, it, 60, 64, 1000 + it);
    CHECK(last.steps == 60);
    CHECK(last.samples == 60 * 64);
    CHECK(std::isfinite(last.total_loss));
  }
  TrainMetrics after = trainer.Evaluate(held.planes.data(), held.policy.data(), held.value.data(), held.n);
  double win_after = WinningMoveRate(trainer.net(), held);
  INFO("policy loss " << before.policy_loss << " -> " << after.policy_loss << ", value loss " << before.value_loss
                      << " -> " << after.value_loss << ", winning move " << win_before << " -> " << win_after
                      << ", value accuracy " << after.value_accuracy);
  CHECK(after.policy_loss < before.policy_loss - 0.3);
  CHECK(after.value_loss < before.value_loss * 0.7);
  CHECK(win_after > win_before + 0.3);
  CHECK(after.value_accuracy > 0.8);
  CHECK(last.entropy > 0);
}

TEST_CASE("optimizer state survives save and load: a resumed trainer takes the same step") {
  torch::manual_seed(11);
  at::set_num_threads(1);
  std::mt19937_64 rng(5);
  ReplayBuffer buffer = LineGameBuffer(rng, 20, 1);
  std::string dir = gz::testing::FreshTestDir("optimizer_roundtrip");

  for (std::string opt : {"adam", "sgd"}) {
    TrainConfig tc = SmallTrainConfig();
    tc.optimizer = opt;
    NetTrainer a(PolicyValueNet(kSize, 8, 1), tc, torch::kCPU);
    a.Train(buffer, 1, 5, 16, 1);
    CheckpointInfo info;
    info.rule = "freestyle";
    info.iteration = 1;
    info.model_generation = 1;
    SaveCheckpoint(dir + "/w.pt", a.net(), info);
    a.SaveOptimizerState(dir + "/opt.pt");

    NetTrainer b(LoadCheckpoint(dir + "/w.pt"), tc, torch::kCPU);
    b.LoadOptimizerState(dir + "/opt.pt");
    NetTrainer fresh(LoadCheckpoint(dir + "/w.pt"), tc, torch::kCPU);
    a.Train(buffer, 2, 1, 16, 99);
    b.Train(buffer, 2, 1, 16, 99);
    fresh.Train(buffer, 2, 1, 16, 99);
    auto pa = a.net()->parameters(), pb = b.net()->parameters(), pf = fresh.net()->parameters();
    REQUIRE(pa.size() == pb.size());
    bool same = true, fresh_differs = false;
    for (size_t i = 0; i < pa.size(); ++i) {
      same = same && torch::allclose(pa[i], pb[i], 1e-5, 1e-6);
      fresh_differs = fresh_differs || !torch::allclose(pa[i], pf[i], 1e-5, 1e-6);
    }
    INFO("optimizer " << opt);
    CHECK(same);
    CHECK(fresh_differs);  // the restored moments matter, so the test can fail
  }
  // A state file of another optimizer kind or a torn file is refused.
  NetTrainer sgd(PolicyValueNet(kSize, 8, 1), [] {
    TrainConfig t;
    t.optimizer = "sgd";
    return t;
  }(), torch::kCPU);
  std::string bytes = gz::testing::Slurp(dir + "/opt.pt");
  WriteFileAtomic(dir + "/torn.pt", bytes.substr(0, bytes.size() / 3));
  CHECK_THROWS_AS(sgd.LoadOptimizerState(dir + "/torn.pt"), GomokuError);
}

TEST_CASE("learning-rate schedules") {
  TrainConfig t;
  t.learning_rate = 0.1;
  CHECK(ScheduledLearningRate(t, 1) == Approx(0.1));
  CHECK(ScheduledLearningRate(t, 500) == Approx(0.1));
  t.lr_schedule = "step";
  t.lr_step_iterations = 2;
  t.lr_step_gamma = 0.5;
  CHECK(ScheduledLearningRate(t, 1) == Approx(0.1));
  CHECK(ScheduledLearningRate(t, 2) == Approx(0.1));
  CHECK(ScheduledLearningRate(t, 3) == Approx(0.05));
  CHECK(ScheduledLearningRate(t, 5) == Approx(0.025));
  t.lr_min = 0.03;  // the floor holds from the drop that would go below it
  CHECK(ScheduledLearningRate(t, 3) == Approx(0.05));
  CHECK(ScheduledLearningRate(t, 5) == Approx(0.03));
  CHECK(ScheduledLearningRate(t, 99) == Approx(0.03));
  t.lr_min = 0.5;  // a floor above the rate never raises it
  CHECK(ScheduledLearningRate(t, 1) == Approx(0.1));
  CHECK(ScheduledLearningRate(t, 9) == Approx(0.1));
}
