// Tests of the network library: the module, TorchForward, the symmetric
// evaluator over it, device resolution and the FLOP count.  Tiny nets only.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/model.h"
#include "common/net/net_api.h"
#include "common/net/torch_forward.h"
#include "common/search/symmetric_batch.h"
#include "common/game/symmetry.h"
#include "common/harness/temp_dir.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

namespace gz {
namespace {

constexpr int kSize = 7;
constexpr int kChannels = 8;
constexpr int kBlocks = 1;
constexpr int kPoints = kSize * kSize;

std::string NetworkTmpPath(const std::string& name) { return gz::testing::TestTmpPath("network_" + name); }

// Positions from short random games (distinct move counts, both colours to move).
std::vector<Position> RandomPositions(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Position> out;
  for (int i = 0; i < count; ++i) {
    Board b(kSize);
    const int moves = i % 9;
    for (int m = 0; m < moves && !b.terminal(); ++m) {
      auto legal = b.LegalMoves();
      b.Play(legal[rng() % legal.size()]);
    }
    out.push_back(b.ToPosition());
  }
  return out;
}

torch::Tensor RandomPlanes(int n, uint64_t seed) {
  torch::manual_seed(seed);
  return (torch::rand({n, kNumPlanes, kSize, kSize}) > 0.7).to(torch::kFloat);
}

std::string MakeCheckpoint(const std::string& name, uint64_t seed, int64_t generation = 3) {
  const std::string path = NetworkTmpPath(name);
  CreateRandomCheckpoint(path, kSize, Rule::kFreestyle, kChannels, kBlocks, seed, /*iteration=*/5, generation);
  return path;
}

struct Output {
  std::vector<float> logp;
  std::vector<float> values;
};

Output RunForward(BatchForward& f, const std::vector<float>& planes, int n) {
  Output o;
  o.logp.assign(static_cast<size_t>(n) * kPoints, 0.0f);
  o.values.assign(n, 0.0f);
  f.Forward(planes.data(), n, o.logp.data(), o.values.data());
  return o;
}

std::vector<float> Encode(const Position& p, int sym) {
  std::vector<float> planes(PlaneFloats(kSize));
  EncodePosition(p, sym, planes.data());
  return planes;
}

// The answers of `eval` to `positions`, in one Evaluate call.
std::vector<EvalResult> Answers(Evaluator& eval, const std::vector<Position>& positions) {
  std::vector<EvalResult> results(positions.size());
  eval.Evaluate(positions, results);
  return results;
}

}  // namespace

TEST_CASE("forward gives log-probabilities and values in range", "[network]") {
  torch::manual_seed(1);
  PolicyValueNet net(kSize, kChannels, kBlocks);
  net->eval();
  torch::NoGradGuard no_grad;
  auto [logp, value] = net->forward(RandomPlanes(5, 2));
  REQUIRE(logp.sizes() == torch::IntArrayRef({5, kPoints}));
  REQUIRE(value.sizes() == torch::IntArrayRef({5}));
  torch::Tensor sums = logp.exp().sum(1);
  for (int i = 0; i < 5; ++i) CHECK(sums[i].item<float>() == Approx(1.0f).margin(1e-5));
  CHECK(value.abs().max().item<float>() <= 1.0f);
  CHECK(torch::isfinite(logp).all().item<bool>());
}

TEST_CASE("the module trains: gradients reach every parameter", "[network]") {
  torch::manual_seed(2);
  PolicyValueNet net(kSize, kChannels, 2);
  net->train();
  auto [logp, value] = net->forward(RandomPlanes(4, 3));
  torch::Tensor loss = -logp.select(1, 0).mean() + value.pow(2).mean();
  loss.backward();
  for (const auto& p : net->named_parameters()) {
    INFO(p.key());
    REQUIRE(p.value().grad().defined());
  }
  // Training-mode BN updated its running statistics.
  CHECK(net->input_bn->num_batches_tracked.item<int64_t>() == 1);
}

TEST_CASE("a net without residual blocks runs", "[network]") {
  PolicyValueNet net(kSize, kChannels, 0);
  net->eval();
  torch::NoGradGuard no_grad;
  auto [logp, value] = net->forward(RandomPlanes(2, 4));
  CHECK(logp.sizes() == torch::IntArrayRef({2, kPoints}));
}

TEST_CASE("bad architecture arguments are rejected", "[network]") {
  CHECK_THROWS_AS(PolicyValueNet(3, kChannels, kBlocks), GomokuError);
  CHECK_THROWS_AS(PolicyValueNet(kSize, 0, kBlocks), GomokuError);
  CHECK_THROWS_AS(PolicyValueNet(kSize, kChannels, -1), GomokuError);
}

TEST_CASE("InitSeeded is deterministic and independent of the global generator", "[network]") {
  PolicyValueNet a(kSize, kChannels, kBlocks), b(kSize, kChannels, kBlocks), c(kSize, kChannels, kBlocks);
  torch::manual_seed(100);
  a->InitSeeded(42);
  torch::manual_seed(200);
  b->InitSeeded(42);
  c->InitSeeded(43);
  auto pa = a->parameters(), pb = b->parameters(), pc = c->parameters();
  REQUIRE(pa.size() == pb.size());
  bool any_diff = false;
  for (size_t i = 0; i < pa.size(); ++i) {
    CHECK(torch::equal(pa[i], pb[i]));
    if (!torch::equal(pa[i], pc[i])) any_diff = true;
  }
  CHECK(any_diff);
  CHECK(a->input_bn->running_var.eq(1).all().item<bool>());
}

TEST_CASE("TorchForward: a batch equals the positions one by one", "[network]") {
  const std::string path = MakeCheckpoint("batch.gzck", 11);
  CheckpointInfo info;
  auto f = LoadForward(path, "cpu", 1, {}, &info);
  CHECK(f->board_size() == kSize);
  CHECK(info.model_generation == 3);
  const auto positions = RandomPositions(6, 5);
  std::vector<float> planes;
  for (const auto& p : positions) {
    auto one = Encode(p, 0);
    planes.insert(planes.end(), one.begin(), one.end());
  }
  const int n = static_cast<int>(positions.size());
  Output batch = RunForward(*f, planes, n);
  double max_diff = 0;
  for (int i = 0; i < n; ++i) {
    Output single = RunForward(*f, Encode(positions[i], 0), 1);
    for (int p = 0; p < kPoints; ++p)
      max_diff = std::max(max_diff, std::abs(double(single.logp[p]) - batch.logp[i * kPoints + p]));
    max_diff = std::max(max_diff, std::abs(double(single.values[0]) - batch.values[i]));
    CHECK(batch.values[i] >= -1.0f);
    CHECK(batch.values[i] <= 1.0f);
  }
  CHECK(max_diff < 1e-5);
  // Distinct positions give distinct outputs (the net is not constant).
  CHECK(batch.logp[0] != batch.logp[5 * kPoints]);
  // An empty batch is a no-op that still reports the generation.
  CHECK(f->Forward(planes.data(), 0, nullptr, nullptr) == 3);
}

TEST_CASE("TorchForward describes device, size and generation", "[network]") {
  auto f = LoadForward(MakeCheckpoint("describe.gzck", 12, 9), "auto", 1);
  const std::string d = f->Describe();
  INFO(d);
  CHECK(d.find(CudaAvailable() ? "cuda" : "cpu") != std::string::npos);
  CHECK(d.find("8x1") != std::string::npos);
  CHECK(d.find("board 7") != std::string::npos);
  CHECK(d.find("generation 9") != std::string::npos);
}

TEST_CASE("TorchForward over a module built in memory", "[network]") {
  PolicyValueNet net(kSize, kChannels, kBlocks);
  net->InitSeeded(5);
  CheckpointInfo info;
  info.board_size = kSize;
  info.channels = kChannels;
  info.blocks = kBlocks;
  info.model_generation = 4;
  TorchForward f(net, info, "cpu", 1);
  Output o = RunForward(f, Encode(RandomPositions(1, 1)[0], 0), 1);
  CHECK(std::isfinite(o.values[0]));
  CHECK_THROWS_AS(TorchForward(net, info, "tpu", 1), ConfigError);
  info.channels = 16;
  CHECK_THROWS_AS(TorchForward(net, info, "cpu", 1), GomokuError);
}

TEST_CASE("SymmetricEvaluator all8 averages the 8 symmetric forwards", "[network]") {
  const std::string path = MakeCheckpoint("all8.gzck", 13, 7);
  auto raw = LoadForward(path, "cpu", 1);
  const auto positions = RandomPositions(3, 9);
  const std::vector<EvalResult> results = Answers(*LoadLocalEvaluator(path, "cpu", 1, SymmetryMode::kAll8), positions);
  for (size_t i = 0; i < positions.size(); ++i) {
    std::vector<double> prob(kPoints, 0.0);
    double value = 0;
    for (int s = 0; s < kNumSymmetries; ++s) {
      Output o = RunForward(*raw, Encode(positions[i], s), 1);
      for (int p = 0; p < kPoints; ++p) prob[p] += std::exp(double(o.logp[TransformPoint(s, p, kSize)])) / 8;
      value += o.values[0] / 8.0;
    }
    REQUIRE(results[i].log_policy.size() == static_cast<size_t>(kPoints));
    double max_diff = 0;
    for (int p = 0; p < kPoints; ++p)
      max_diff = std::max(max_diff, std::abs(std::log(prob[p]) - results[i].log_policy[p]));
    CHECK(max_diff < 1e-4);
    CHECK(results[i].value == Approx(value).margin(1e-5));
    CHECK(results[i].model_generation == 7);
  }
}

TEST_CASE("SymmetricEvaluator random mode is deterministic and uses the chosen symmetry", "[network]") {
  const std::string path = MakeCheckpoint("random.gzck", 14);
  auto e1 = LoadLocalEvaluator(path, "cpu", 1, SymmetryMode::kRandom);
  auto e2 = LoadLocalEvaluator(path, "cpu", 1, SymmetryMode::kRandom);
  auto raw = LoadForward(path, "cpu", 1);
  const auto positions = RandomPositions(8, 21);
  std::vector<EvalResult> r1(positions.size()), r2(positions.size()), r3(positions.size());
  e1->Evaluate(positions, r1);
  e1->Evaluate(positions, r3);
  e2->Evaluate(positions, r2);
  for (size_t i = 0; i < positions.size(); ++i) {
    CHECK(r1[i].log_policy == r2[i].log_policy);
    CHECK(r1[i].log_policy == r3[i].log_policy);
    CHECK(r1[i].value == r2[i].value);
    int sym = 0;
    SymmetriesFor(positions[i], SymmetryMode::kRandom, &sym);
    Output o = RunForward(*raw, Encode(positions[i], sym), 1);
    std::vector<float> expected(kPoints);
    UntransformPolicy(sym, o.logp.data(), expected.data(), kSize);
    for (int p = 0; p < kPoints; ++p) CHECK(r1[i].log_policy[p] == Approx(expected[p]).margin(1e-5));
    CHECK(r1[i].value == Approx(o.values[0]).margin(1e-6));
  }
}

TEST_CASE("SymmetricEvaluator none equals the raw forward", "[network]") {
  const std::string path = MakeCheckpoint("none.gzck", 15);
  auto eval = LoadLocalEvaluator(path, "cpu", 1, SymmetryMode::kNone);
  auto raw = LoadForward(path, "cpu", 1);
  const auto positions = RandomPositions(2, 3);
  const std::vector<EvalResult> results = Answers(*eval, positions);
  for (size_t i = 0; i < positions.size(); ++i) {
    Output o = RunForward(*raw, Encode(positions[i], 0), 1);
    for (int p = 0; p < kPoints; ++p) CHECK(results[i].log_policy[p] == Approx(o.logp[p]).margin(1e-5));
  }
  CHECK(eval->Describe().find("symmetry none") != std::string::npos);
}

TEST_CASE("LoadForward applies expectations", "[network]") {
  const std::string path = MakeCheckpoint("expect.gzck", 16);
  CheckpointExpect expect;
  expect.board_size = 15;
  CHECK_THROWS_AS(LoadForward(path, "cpu", 1, expect), ModelError);
  CHECK_THROWS_AS(LoadLocalEvaluator(path, "cpu", 1, SymmetryMode::kNone, expect), ModelError);
  CHECK_THROWS_AS(LoadForward(NetworkTmpPath("does-not-exist.gzck"), "cpu", 1), IoError);
}

TEST_CASE("ResolveDevice", "[network]") {
  CHECK(ResolveDevice("cpu") == "cpu");
  CHECK(ResolveDevice("auto") == (CudaAvailable() ? "cuda" : "cpu"));
  CHECK_THROWS_AS(ResolveDevice("gpu"), ConfigError);
  CHECK_THROWS_AS(ResolveDevice("cuda:x"), ConfigError);
  CHECK_THROWS_AS(ResolveDevice("cuda:999"), ConfigError);
  if (CudaAvailable()) {
    CHECK(ResolveDevice("cuda") == "cuda");
    CHECK(ResolveDevice("cuda:0") == "cuda:0");
  } else {
    CHECK_THROWS_AS(ResolveDevice("cuda"), ConfigError);
    CHECK_THROWS_AS(ResolveDevice("cuda:0"), ConfigError);
    CHECK_THROWS_AS(LoadForward(MakeCheckpoint("cuda.gzck", 17), "cuda", 1), ConfigError);
  }
}

TEST_CASE("ForwardFlops counts 2 x multiply-adds of every conv and linear", "[network]") {
  // 7x7, 8 channels, 1 block, by hand:
  const double p = 49;
  const double macs = p * kNumPlanes * 8 * 9   // input conv (5 planes)
                      + 2 * p * 8 * 8 * 9      // one block
                      + p * 8 * 2 + 2 * p * p  // policy head
                      + p * 8 + p * 64 + 64;   // value head
  CHECK(ForwardFlops(7, 8, 1) == Approx(2 * macs));
  CHECK(ForwardFlops(7, 8, 2) - ForwardFlops(7, 8, 1) == Approx(2 * 2 * p * 8 * 8 * 9));
  // The seed net: about 1.064 GFLOP per position.
  CHECK(ForwardFlops(15, 128, 8) == Approx(1.064e9).epsilon(0.002));
}

}  // namespace gz
