// ReplayBySize (trainer/replay_by_size.h): one ReplayBuffer per board size,
// the window across sizes, one size per batch drawn by the sampled samples,
// bit-for-bit the plain ReplayBuffer with one size; NetTrainer running a conv
// net at each batch's size; and a mixed-size iteration of the real Trainer
// (generations.jsonl per size).
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "common/base/errors.h"
#include "common/game/encoder.h"
#include "common/net/model.h"
#include "tests/support/tensor_lists.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/generation_log.h"
#include "trainer/net_trainer.h"
#include "trainer/replay_buffer.h"
#include "trainer/replay_by_size.h"
#include "trainer/trainer.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

using namespace gz;
using namespace gz::testing;

namespace {

// `count` random games of `size` for `iteration` (lengths vary with the seed).
std::vector<GameRecord> Games(int size, int64_t iteration, int count, uint64_t seed, int max_moves = 12) {
  std::vector<GameRecord> out;
  for (int g = 0; g < count; ++g)
    out.push_back(RandomGame(size, iteration, seed * 1000 + g, 0, max_moves - g % 3));
  return out;
}

int64_t Samples(const std::vector<GameRecord>& games) {
  int64_t n = 0;
  for (const auto& g : games) n += g.num_moves();
  return n;
}

std::vector<const GameRecord*> Cat(const std::vector<GameRecord>& a, const std::vector<GameRecord>& b) {
  std::vector<const GameRecord*> out = Ptrs(a);
  for (const auto& g : b) out.push_back(&g);
  return out;
}

std::vector<torch::Tensor> Params(PolicyValueNet& net) {
  std::vector<torch::Tensor> out;
  for (auto& p : net->parameters()) out.push_back(p.detach().clone());
  return out;
}

PolicyValueNet TinyConvNet(int size) {
  PolicyValueNet net(size, 16, 1, NetHeads::kConv);
  net->InitSeeded(3);
  return net;
}

TrainConfig TinyTrain() {
  TrainConfig c;
  c.learning_rate = 1e-2;
  return c;
}

}  // namespace

TEST_CASE("sized replay: sizes ascending, one buffer per size, the window per iteration across sizes") {
  ReplayBySize r({9, 7, 9}, 2);
  CHECK(r.sizes() == std::vector<int>{7, 9});
  CHECK(r.max_size() == 9);
  CHECK(r.buffer(7).board_size() == 7);
  CHECK(r.buffer(9).board_size() == 9);
  CHECK_THROWS_AS(r.buffer(11), GomokuError);

  auto s1_7 = Games(7, 1, 2, 11), s1_9 = Games(9, 1, 1, 12);
  r.AddIteration(1, Cat(s1_7, s1_9));
  CHECK(r.num_samples(7) == Samples(s1_7));
  CHECK(r.num_samples(9) == Samples(s1_9));
  CHECK(r.num_samples() == Samples(s1_7) + Samples(s1_9));
  CHECK(r.samples_in(1) == r.num_samples());

  auto s2_7 = Games(7, 2, 3, 21);  // iteration 2: 7x7 only
  r.AddIteration(2, Ptrs(s2_7));
  CHECK(r.iterations() == std::vector<int64_t>{1, 2});
  CHECK(r.buffer(9).iterations() == std::vector<int64_t>{1, 2});  // 9's buffer took iteration 2 too, empty
  CHECK(r.buffer(9).samples_in(2) == 0);
  CHECK(r.num_samples(9) == Samples(s1_9));

  auto s3_9 = Games(9, 3, 2, 31);  // iteration 3: 9x9 only; iteration 1 ages out of both sizes
  r.AddIteration(3, Ptrs(s3_9));
  CHECK(r.iterations() == std::vector<int64_t>{2, 3});
  CHECK(r.num_samples(7) == Samples(s2_7));
  CHECK(r.num_samples(9) == Samples(s3_9));
  CHECK(r.samples_in(1) == 0);

  SECTION("a size that gets no more games still ages out") {
    auto s4_9 = Games(9, 4, 1, 41);
    r.AddIteration(4, Ptrs(s4_9));
    CHECK(r.num_samples(7) == 0);  // its last games (iteration 2) left the window
    CHECK(r.buffer(7).iterations() == std::vector<int64_t>{3, 4});
    CHECK(r.num_samples(9) == Samples(s3_9) + Samples(s4_9));
  }
  SECTION("late games join their iteration in their size's buffer and age out with it") {
    auto late_7 = Games(7, 3, 1, 35);
    r.AppendGames(3, Ptrs(late_7));
    CHECK(r.buffer(7).samples_in(3) == Samples(late_7));
    CHECK(r.samples_in(3) == Samples(late_7) + Samples(s3_9));
    auto s4_9 = Games(9, 4, 1, 41);
    r.AddIteration(4, Ptrs(s4_9));
    CHECK(r.buffer(7).samples_in(3) == Samples(late_7));  // 3 is still in the window of step 4
    r.AddIteration(5, {});
    CHECK(r.num_samples(7) == 0);
    CHECK(r.samples_in(3) == 0);
    CHECK(r.iterations() == std::vector<int64_t>{4, 5});
    // An iteration older than the window is refused, as by ReplayBuffer.
    CHECK_THROWS_AS(r.AppendGames(3, Ptrs(late_7)), GomokuError);
  }
  SECTION("re-adding an iteration replaces it in every size") {
    auto again = Games(7, 3, 1, 39);
    r.AddIteration(3, Ptrs(again));
    CHECK(r.buffer(9).samples_in(3) == 0);
    CHECK(r.buffer(7).samples_in(3) == Samples(again));
  }
  SECTION("a game of a size the run does not use is refused, naming it") {
    auto big = Games(11, 4, 1, 51);
    CHECK_THROWS_WITH(r.AddIteration(4, Ptrs(big)), Catch::Contains("game of board size 11") &&
                                                        Catch::Contains("board sizes 7, 9"));
    CHECK_THROWS_WITH(r.AppendGames(3, Ptrs(big)), Catch::Contains("game of board size 11"));
  }
}

TEST_CASE("sized replay: every batch holds one size; sizes are drawn in proportion to their sampled samples") {
  ReplayBySize r({7, 9}, 1);
  auto g7 = Games(7, 1, 4, 61, 10), g9 = Games(9, 1, 10, 62, 12);
  r.AddIteration(1, Cat(g7, g9));
  const int64_t n7 = Samples(g7), n9 = Samples(g9);
  REQUIRE(r.sampled_samples() == n7 + n9);
  const int n = 4, big = 9;
  std::vector<float> planes(n * PlaneFloats(big)), policy(n * big * big), value(n);
  std::mt19937_64 rng(2024);
  std::map<int, int> batches;
  const int kBatches = 3000;
  for (int b = 0; b < kBatches; ++b) {
    std::fill(planes.begin(), planes.end(), -5.0f);
    std::fill(policy.begin(), policy.end(), -5.0f);
    const int s = r.SampleBatch(n, rng, planes.data(), policy.data(), value.data());
    REQUIRE((s == 7 || s == 9));
    ++batches[s];
    // n rows of s x s, nothing beyond: the batch is laid out at one size.
    bool rows_sum_to_one = true, rest_untouched = true, planes_binary = true;
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int p = 0; p < s * s; ++p) sum += policy[i * s * s + p];
      rows_sum_to_one = rows_sum_to_one && std::abs(sum - 1.0) < 1e-4;  // uniform over an s x s board's legal moves
    }
    for (size_t k = static_cast<size_t>(n) * s * s; k < policy.size(); ++k) rest_untouched &= policy[k] == -5.0f;
    for (size_t k = static_cast<size_t>(n) * PlaneFloats(s); k < planes.size(); ++k) rest_untouched &= planes[k] == -5.0f;
    for (size_t k = 0; k < static_cast<size_t>(n) * PlaneFloats(s); ++k)
      planes_binary &= planes[k] == 0.0f || planes[k] == 1.0f;
    INFO("batch " << b << " of size " << s);
    REQUIRE(rows_sum_to_one);
    REQUIRE(rest_untouched);
    REQUIRE(planes_binary);
  }
  const double p7 = static_cast<double>(n7) / (n7 + n9);
  const double sigma = std::sqrt(p7 * (1 - p7) / kBatches);
  INFO("7x7 share " << batches[7] / double(kBatches) << ", expected " << p7);
  CHECK(std::abs(batches[7] / double(kBatches) - p7) < 4 * sigma);
  CHECK(batches[7] > 0);
  CHECK(batches[9] > batches[7]);  // 9x9 holds more samples here: not 50/50

  SECTION("the power-law window is shared out in proportion to what each size holds") {
    const int64_t w = (n7 + n9) / 2;
    r.SetSampleWindow(w);
    CHECK(r.sample_window() == w);
    CHECK(r.sampled_samples(7) == std::max<int64_t>(1, w * n7 / (n7 + n9)));
    CHECK(r.sampled_samples(9) == std::max<int64_t>(1, w * n9 / (n7 + n9)));
    CHECK(r.sampled_samples() <= w + 1);
    // Each size samples only its newest samples (ReplayBuffer's rule).
    CHECK(r.buffer(7).sampled_samples() == r.sampled_samples(7));
    r.SetSampleWindow(10 * (n7 + n9));  // larger than what is held: everything
    CHECK(r.sampled_samples() == n7 + n9);
    r.SetSampleWindow(0);
    CHECK(r.sampled_samples() == n7 + n9);
  }
  SECTION("a fixed seed draws the same sizes and batches") {
    std::mt19937_64 a(5), b(5);
    std::vector<float> p2(planes.size()), q2(policy.size()), v2(n);
    for (int k = 0; k < 50; ++k) {
      CHECK(r.SampleBatch(n, a, planes.data(), policy.data(), value.data()) ==
            r.SampleBatch(n, b, p2.data(), q2.data(), v2.data()));
      CHECK(planes == p2);
    }
  }
  SECTION("no samples: an error, not a batch") {
    ReplayBySize empty({7, 9}, 1);
    CHECK_THROWS_AS(empty.SampleBatch(n, rng, planes.data(), policy.data(), value.data()), GomokuError);
  }
}

TEST_CASE("one size: exactly the plain ReplayBuffer's batches and training steps") {
  auto a = Games(7, 1, 3, 71), b = Games(7, 2, 3, 72), late = Games(7, 1, 1, 73);
  for (auto* g : {&a[0], &b[0], &late[0]}) g->q.assign(g->num_moves(), 0.5f);
  auto fill = [&](auto& buf) {
    buf.SetValueTargetQWeight(0.25);
    buf.AddIteration(1, Ptrs(a));
    buf.AddIteration(2, Ptrs(b));
    buf.AppendGames(1, Ptrs(late));
    buf.SetSampleWindow(Samples(b) + 3);
  };
  ReplayBuffer plain(7, 2);
  fill(plain);

  auto same_batches = [&](const ReplayBySize& sized) {
    REQUIRE(sized.sampled_samples() == plain.sampled_samples());
    std::mt19937_64 r1(42), r2(42);
    const int n = 16;
    std::vector<float> p1(n * PlaneFloats(9)), p2(p1.size()), q1(n * 81), q2(q1.size()), v1(n), v2(n);
    for (int k = 0; k < 40; ++k) {
      CHECK(sized.SampleBatch(n, r1, p1.data(), q1.data(), v1.data()) == 7);
      plain.SampleBatch(n, r2, p2.data(), q2.data(), v2.data());
      REQUIRE(std::memcmp(p1.data(), p2.data(), n * PlaneFloats(7) * sizeof(float)) == 0);
      REQUIRE(std::memcmp(q1.data(), q2.data(), n * 49 * sizeof(float)) == 0);
      REQUIRE(v1 == v2);
    }
    CHECK(r1 == r2);  // the same RNG draws, none for the size
  };
  SECTION("a run of one size") {
    ReplayBySize sized({7}, 2);
    fill(sized);
    same_batches(sized);

    // NetTrainer over it: the same steps as over the plain buffer, bit for bit.
    torch::manual_seed(0);
    NetTrainer t1(TinyConvNet(7), TinyTrain(), torch::kCPU), t2(TinyConvNet(7), TinyTrain(), torch::kCPU);
    REQUIRE(SameTensors(Params(t1.net()), Params(t2.net())));
    TrainMetrics m1 = t1.Train(sized, 3, 4, 16, 99);
    TrainMetrics m2 = t2.Train(plain, 3, 4, 16, 99);
    CHECK(SameTensors(Params(t1.net()), Params(t2.net())));
    CHECK(m1.total_loss == m2.total_loss);
    CHECK(m1.policy_loss == m2.policy_loss);
    CHECK(m1.steps_by_size == std::map<int, int64_t>{{7, 4}});
  }
  SECTION("a run of sizes {7, 9} while only 7x7 games are held: no size draw") {
    ReplayBySize sized({7, 9}, 2);
    fill(sized);
    CHECK(sized.num_samples(9) == 0);
    same_batches(sized);
  }
}

TEST_CASE("a conv net trains at each batch's size: finite losses, changed weights") {
  ReplayBySize r({7, 9}, 2);
  auto g7 = Games(7, 1, 3, 81), g9 = Games(9, 1, 3, 82);
  r.AddIteration(1, Cat(g7, g9));
  torch::manual_seed(0);

  SECTION("one step at each size") {
    for (int size : {7, 9}) {
      NetTrainer t(TinyConvNet(7), TinyTrain(), torch::kCPU);  // board_size 7: the run's size
      const auto before = Params(t.net());
      TrainMetrics m = t.Train(r.buffer(size), 1, 1, 8, 5);
      INFO("size " << size);
      CHECK(m.steps == 1);
      CHECK(m.steps_by_size == std::map<int, int64_t>{{size, 1}});
      CHECK(std::isfinite(m.total_loss));
      CHECK(std::isfinite(m.policy_loss));
      CHECK(std::isfinite(m.value_loss));
      CHECK(m.policy_loss > 0);
      CHECK_FALSE(SameTensors(before, Params(t.net())));
    }
  }
  SECTION("mixed steps: both sizes are trained, each batch at its own size") {
    NetTrainer t(TinyConvNet(9), TinyTrain(), torch::kCPU);
    const auto before = Params(t.net());
    TrainMetrics m = t.Train(r, 1, 8, 8, 17);
    CHECK(m.steps == 8);
    CHECK(m.samples == 64);
    REQUIRE(m.steps_by_size.size() == 2);
    CHECK(m.steps_by_size[7] + m.steps_by_size[9] == 8);
    CHECK(std::isfinite(m.total_loss));
    CHECK_FALSE(SameTensors(before, Params(t.net())));
    // The trained net still evaluates both sizes.
    for (int size : {7, 9}) {
      std::vector<float> planes(2 * PlaneFloats(size)), policy(2 * size * size), value(2);
      r.buffer(size).EncodeSample(0, 0, planes.data(), policy.data(), value.data());
      r.buffer(size).EncodeSample(1, 3, planes.data() + PlaneFloats(size), policy.data() + size * size,
                                  value.data() + 1);
      TrainMetrics e = t.Evaluate(planes.data(), policy.data(), value.data(), 2, size);
      CHECK(std::isfinite(e.total_loss));
    }
  }
  SECTION("an fc net refuses a window of other sizes") {
    PolicyValueNet fc(7, 16, 1, NetHeads::kFc);
    NetTrainer t(fc, TinyTrain(), torch::kCPU);
    CHECK_THROWS_WITH(t.Train(r, 1, 1, 8, 1), Catch::Contains("board size 9 != network 7"));
    CHECK_THROWS_AS(t.Train(r.buffer(9), 1, 1, 8, 1), GomokuError);
  }
}

TEST_CASE("a mixed-size iteration of the trainer: 7x7 and 9x9 games trained, generations.jsonl per size") {
  const std::string dir = FreshTestDir("mixed_sizes_trainer");
  Config c = TinyConfig(dir);
  c.board.size = 9;
  c.net.heads = "conv";
  c.net.channels = 16;
  c.selfplay.board_sizes = {"9:3", "7:1"};
  c.run.max_iterations = 1;
  c.run.target_games = 5;
  c.train.train_batches = 6;
  c.train.reload_timeout_s = 0.5;
  c.Validate();
  RunLayout run(dir);
  WriteGames(run, 1, 0, 0, 3, 9);
  WriteGames(run, 1, 1, 0, 2, 7);
  SaveGameRecord(RandomGame(11, 1, 5), run.games_for(1) + "/w2_g0.npz");  // not a size of the run
  std::atomic<bool> stop{false};
  Trainer trainer(c);
  REQUIRE(trainer.Run(stop) == 0);
  GenerationLog log = ReadGenerationLog(run.generations());
  REQUIRE(log.records.size() == 1);
  const nlohmann::json& rec = log.records[0];
  INFO(rec.dump());
  CHECK(rec["games_used"] == 5);
  CHECK(rec["incompatible_games"] == 1);
  CHECK(rec["games_by_size"] == nlohmann::json({{"7", 2}, {"9", 3}}));
  const int64_t s7 = rec["samples_by_size"]["7"].get<int64_t>(), s9 = rec["samples_by_size"]["9"].get<int64_t>();
  CHECK(s7 > 0);
  CHECK(s9 > 0);
  CHECK(s7 + s9 == rec["samples"].get<int64_t>());
  CHECK(rec["window_samples_by_size"]["7"].get<int64_t>() == s7);
  CHECK(rec["train_steps_by_size"]["7"].get<int64_t>() + rec["train_steps_by_size"]["9"].get<int64_t>() == 6);
  CHECK(rec["train_steps"] == 6);
}
