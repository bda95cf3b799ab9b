// Issue #17 section 2: the "conv" heads variant (one net for every board size)
// next to the fully-connected "fc" heads, and the checkpoint field that says
// which (docs/network.md "Heads").
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/checkpoint.h"
#include "common/net/model.h"
#include "common/net/net_api.h"
#include "common/harness/temp_dir.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

namespace gz {
namespace {

std::string HeadsTmpPath(const std::string& name) { return gz::testing::TestTmpPath("net_heads_" + name); }

// A few fixed positions of `size` (a diagonal run of moves from the centre).
std::vector<Position> FixedPositions(int size) {
  std::vector<Position> out;
  Board b(size, Rule::kFreestyle);
  out.push_back(b.ToPosition());
  const int c = size / 2;
  const int moves[][2] = {{c, c}, {c, c + 1}, {c + 1, c}, {c - 1, c + 2}, {c + 2, c - 1}};
  for (const auto& m : moves) {
    b.Play(m[0] * size + m[1]);
    out.push_back(b.ToPosition());
  }
  return out;
}

struct Outputs {
  std::vector<float> logp, values;
};

Outputs Run(BatchForward& f, const std::vector<Position>& positions) {
  const int size = f.board_size();
  const int n = static_cast<int>(positions.size());
  std::vector<float> planes(static_cast<size_t>(n) * PlaneFloats(size));
  for (int i = 0; i < n; ++i) EncodePosition(positions[i], 0, planes.data() + static_cast<size_t>(i) * PlaneFloats(size));
  Outputs o;
  o.logp.assign(static_cast<size_t>(n) * size * size, 0.0f);
  o.values.assign(n, 0.0f);
  f.Forward(planes.data(), n, o.logp.data(), o.values.data());
  return o;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Position-weighted sums of the golden net's outputs (the test below),
// measured on an Intel Xeon; its outputs differ from the original golden
// build's (an AMD EPYC) by a few ulps (values[0]: 2 ulps).
constexpr double kGoldenWeightedLogp = -8518.24949;
constexpr double kGoldenWeightedValues = -0.581287481;

}  // namespace

// Golden values taken from the build before the conv variant existed
// (commit 31b7380): the fc file bytes and outputs must not move.
TEST_CASE("fc heads: file bytes and outputs are bit-identical to before the conv variant", "[heads]") {
  const std::string path = HeadsTmpPath("golden_fc.gzck");
  const CheckpointInfo made =
      CreateRandomCheckpoint(path, 9, Rule::kFreestyle, 8, 2, /*seed=*/1234, /*iteration=*/3, /*generation=*/4);
  CHECK(made.heads == NetHeads::kFc);
  CHECK(made.format_version == 1);
  const std::string bytes = ReadFileOrThrow(path);
  CHECK(bytes.size() == 88731);
  CHECK(Crc32(bytes.data(), bytes.size()) == 0x2144df1cu);
  CHECK(bytes.find("heads") == std::string::npos);
  CheckpointInfo info;
  auto forward = LoadForward(path, "cpu", 1, CheckpointExpect{}, &info);
  CHECK(info.heads == NetHeads::kFc);
  CHECK(info.format_version == 1);
  Outputs o = Run(*forward, FixedPositions(9));
  // The outputs agree to rounding, not to the bit: the CPU's SIMD kernels
  // (AVX2 / AVX-512, chosen by LibTorch and OpenBLAS at run time) sum in
  // different orders, so bit patterns differ from one machine to the next
  // by an ulp or two.  A real change of the net moves them by far more.
  CHECK(o.values[0] == Approx(FromBits(0xbd0b0c6eu)).margin(1e-6));
  CHECK(o.values[5] == Approx(FromBits(0xbcb7d587u)).margin(1e-6));
  double weighted_logp = 0, weighted_values = 0;  // position-weighted, so a permutation shows
  for (size_t i = 0; i < o.logp.size(); ++i) weighted_logp += o.logp[i] * static_cast<double>(i % 7 + 1);
  for (size_t i = 0; i < o.values.size(); ++i) weighted_values += o.values[i] * static_cast<double>(i + 1);
  INFO("weighted logp " << weighted_logp << ", weighted values " << weighted_values);
  CHECK(weighted_logp == Approx(kGoldenWeightedLogp).epsilon(1e-6));
  CHECK(weighted_values == Approx(kGoldenWeightedValues).margin(1e-5));
}

TEST_CASE("conv heads: one checkpoint evaluates 9x9, 15x15 and 22x22", "[heads]") {
  const std::string path = HeadsTmpPath("conv15.gzck");
  const CheckpointInfo made = CreateRandomCheckpoint(path, 15, Rule::kFreestyle, 8, 1, /*seed=*/7, 2, 5, "conv");
  CHECK(made.heads == NetHeads::kConv);
  CHECK(made.format_version == 2);
  for (int size : {9, 15, 22}) {
    INFO("size " << size);
    CheckpointExpect expect;
    expect.board_size = size;
    CheckpointInfo info;
    auto forward = LoadForward(path, "cpu", 1, expect, &info);
    CHECK(info.board_size == 15);  // the file's own size
    CHECK(info.heads == NetHeads::kConv);
    REQUIRE(forward->board_size() == size);
    CHECK(forward->Describe().find("conv-heads, board " + std::to_string(size)) != std::string::npos);
    const std::vector<Position> positions = FixedPositions(size);
    Outputs o = Run(*forward, positions);
    REQUIRE(o.logp.size() == positions.size() * size * size);
    for (size_t i = 0; i < positions.size(); ++i) {
      double total = 0;
      for (int p = 0; p < size * size; ++p) {
        const float lp = o.logp[i * size * size + p];
        REQUIRE(std::isfinite(lp));
        total += std::exp(static_cast<double>(lp));
      }
      CHECK(total == Approx(1.0).margin(1e-4));
      CHECK(std::isfinite(o.values[i]));
      CHECK(std::abs(o.values[i]) <= 1.0f);
    }
    // A batch is the positions one by one (batch mates do not leak through the pooling).
    Outputs one = Run(*forward, {positions[3]});
    for (int p = 0; p < size * size; ++p) CHECK(one.logp[p] == Approx(o.logp[3 * size * size + p]).margin(1e-5));
    CHECK(one.values[0] == Approx(o.values[3]).margin(1e-5));
    // One size per forward: a position of another size is refused.
    auto eval = LoadLocalEvaluator(path, "cpu", 1, SymmetryMode::kNone, expect);
    std::vector<Position> mixed = {FixedPositions(size)[1], FixedPositions(size == 9 ? 15 : 9)[1]};
    std::vector<EvalResult> results(2);
    CHECK_THROWS_WITH(eval->Evaluate(mixed, results), Catch::Contains("but the network plays " + std::to_string(size)));
  }
  // Without an expected size it plays the size it was made for.
  auto plain = LoadForward(path, "cpu", 1);
  CHECK(plain->board_size() == 15);
  CheckpointExpect bad;
  bad.board_size = 23;
  CHECK_THROWS_AS(LoadForward(path, "cpu", 1, bad), ModelError);
}

TEST_CASE("fc heads at another size are refused with a clear error", "[heads]") {
  const std::string path = HeadsTmpPath("fc15.gzck");
  CreateRandomCheckpoint(path, 15, Rule::kFreestyle, 8, 1, /*seed=*/7, 2, 5);
  CheckpointExpect expect;
  expect.board_size = 20;
  CHECK_THROWS_WITH(LoadForward(path, "cpu", 1, expect),
                    Catch::Contains("has board size 15 but 20 was expected") && Catch::Contains("fc heads"));
  CHECK(CheckpointPlaysSize(ReadCheckpointInfo(path), 15));
  CHECK_FALSE(CheckpointPlaysSize(ReadCheckpointInfo(path), 20));
}

TEST_CASE("conv heads: save/load round-trips the variant and the weights", "[heads]") {
  torch::manual_seed(3);
  PolicyValueNet net(13, 8, 1, NetHeads::kConv);
  CheckpointInfo in;
  in.iteration = 4;
  in.model_generation = 6;
  const std::string path = HeadsTmpPath("roundtrip_conv.gzck");
  SaveCheckpoint(path, net, in);
  const CheckpointInfo header = ReadCheckpointInfo(path);
  CHECK(header.heads == NetHeads::kConv);
  CHECK(header.format_version == 2);
  CHECK(header.board_size == 13);
  CheckpointInfo info;
  PolicyValueNet back = LoadCheckpoint(path, {}, &info);
  CHECK(info.heads == NetHeads::kConv);
  CHECK(back->heads == NetHeads::kConv);
  auto a = net->named_parameters(), b = back->named_parameters();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(torch::equal(a[i].value(), b[i].value()));
  // Same bytes when saved again.
  const std::string again = HeadsTmpPath("roundtrip_conv2.gzck");
  SaveCheckpoint(again, back, info);
  CHECK(ReadFileOrThrow(path) == ReadFileOrThrow(again));
  // Any size goes through the module directly too.
  net->eval();
  torch::NoGradGuard no_grad;
  auto [logp, value] = net->forward(torch::zeros({2, kNumPlanes, 21, 21}));
  CHECK(logp.sizes().vec() == std::vector<int64_t>{2, 441});
  CHECK(value.sizes().vec() == std::vector<int64_t>{2});
  CHECK_THROWS(net->forward(torch::zeros({1, kNumPlanes, 9, 10})));
  PolicyValueNet fc(13, 8, 1);
  CHECK_THROWS(fc->forward(torch::zeros({1, kNumPlanes, 15, 15})));
}

TEST_CASE("conv heads: the module trains at two sizes, gradients reach every parameter", "[heads]") {
  torch::manual_seed(2);
  PolicyValueNet net(15, 8, 2, NetHeads::kConv);
  net->train();
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.1));
  for (int size : {9, 20}) {  // one size per forward, as the trainer's batches would be
    INFO("size " << size);
    sgd.zero_grad();
    torch::manual_seed(size);
    torch::Tensor planes = (torch::rand({4, kNumPlanes, size, size}) > 0.7).to(torch::kFloat);
    auto [logp, value] = net->forward(planes);
    REQUIRE(logp.sizes().vec() == std::vector<int64_t>{4, size * size});
    torch::Tensor loss = -logp.select(1, 0).mean() + value.pow(2).mean();
    loss.backward();
    for (const auto& p : net->named_parameters()) {
      INFO(p.key());
      REQUIRE(p.value().grad().defined());
      CHECK(p.value().grad().abs().sum().item<double>() > 0);
    }
    sgd.step();
  }
  CHECK(net->input_bn->num_batches_tracked.item<int64_t>() == 2);
}

TEST_CASE("conv heads: ForwardFlops counts the conv heads", "[heads]") {
  const double p = 225, c = 32, h = kConvHeadChannels;
  const double trunk = p * kNumPlanes * c * 9 + 4 * 2 * p * c * c * 9;
  const double heads = p * c * h + p * h + p * c * h + 2 * h * kValueHidden + kValueHidden;
  CHECK(ForwardFlops(15, 32, 4, NetHeads::kConv) == Approx(2 * (trunk + heads)));
  CHECK(ForwardFlops(15, 32, 4) == ForwardFlops(15, 32, 4, NetHeads::kFc));
  CHECK_THROWS_AS(ParseNetHeads("attention"), ModelError);
}

namespace {

// The JSON header of `bytes` replaced by `json` (lengths fixed, CRC fixed), with format `version`.
std::string WithHeader(const std::string& bytes, const std::string& json, uint32_t version) {
  uint32_t old_len;
  std::memcpy(&old_len, bytes.data() + 8, 4);
  std::string out = bytes.substr(0, 4);
  out.append(reinterpret_cast<const char*>(&version), 4);
  const uint32_t len = static_cast<uint32_t>(json.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += json;
  out += bytes.substr(12 + old_len);
  const uint32_t crc = Crc32(out.data(), out.size() - 4);
  std::memcpy(out.data() + out.size() - 4, &crc, 4);
  return out;
}

std::string JsonOf(const std::string& bytes) {
  uint32_t len;
  std::memcpy(&len, bytes.data() + 8, 4);
  return bytes.substr(12, len);
}

// The loader's error for `bytes`; with header_refuses, ReadCheckpointInfo must refuse them too.
std::string HeadsLoadError(const std::string& bytes, const std::string& name, bool header_refuses = true) {
  const std::string path = HeadsTmpPath(name);
  WriteFileAtomic(path, bytes);
  try {
    LoadCheckpoint(path);
  } catch (const ModelError& e) {
    std::string header_error;
    try {
      ReadCheckpointInfo(path);
    } catch (const ModelError& h) {
      header_error = h.what();
    }
    if (header_refuses) CHECK(!header_error.empty());
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST_CASE("the heads field: unknown, missing, misplaced or truncated headers are refused naming the problem",
          "[heads]") {
  const std::string conv_path = HeadsTmpPath("field_conv.gzck");
  CreateRandomCheckpoint(conv_path, 9, Rule::kFreestyle, 4, 1, /*seed=*/9, 1, 1, "conv");
  const std::string conv = ReadFileOrThrow(conv_path);
  const std::string json = JsonOf(conv);
  REQUIRE(json.find("\"heads\":\"conv\"") != std::string::npos);
  uint32_t version;
  std::memcpy(&version, conv.data() + 4, 4);
  CHECK(version == 2);

  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string j = json;
    const size_t at = j.find(from);
    REQUIRE(at != std::string::npos);
    return j.replace(at, from.size(), to);
  };
  CHECK_THAT(HeadsLoadError(WithHeader(conv, replaced("\"heads\":\"conv\"", "\"heads\":\"transformer\""), 2), "unknown.gzck"),
             Catch::Contains("network heads 'transformer'") && Catch::Contains("does not know"));
  CHECK_THAT(HeadsLoadError(WithHeader(conv, replaced("\"heads\":\"conv\",", ""), 2), "missing.gzck"),
             Catch::Contains("lacks field 'heads'"));
  CHECK_THAT(HeadsLoadError(WithHeader(conv, replaced("\"heads\":\"conv\"", "\"heads\":7"), 2), "notstring.gzck"),
             Catch::Contains("'heads' is not a string"));
  CHECK_THAT(HeadsLoadError(WithHeader(conv, json, 1), "v1heads.gzck"),
             Catch::Contains("'heads' needs format version 2"));
  CHECK_THAT(HeadsLoadError(WithHeader(conv, json, 4), "v4.gzck"), Catch::Contains("format version 4") &&
                                                                   Catch::Contains("reads versions 1 to 3"));
  // A conv header over fc-shaped tensors (or the other way round) names the tensor.
  const std::string fc_path = HeadsTmpPath("field_fc.gzck");
  CreateRandomCheckpoint(fc_path, 9, Rule::kFreestyle, 4, 1, /*seed=*/9, 1, 1);
  const std::string fc = ReadFileOrThrow(fc_path);
  std::string fc_json = JsonOf(fc);
  fc_json.insert(1, "\"heads\":\"conv\",");
  CHECK_THAT(HeadsLoadError(WithHeader(fc, fc_json, 2), "conv_over_fc.gzck", /*header_refuses=*/false),
             Catch::Contains("4x1 conv-heads on 9x9 architecture"));
  // Truncated inside the header (the heads field cut off) and at every length near it.
  const size_t heads_at = 12 + json.find("\"heads\"");
  for (size_t len : {size_t{3}, size_t{11}, heads_at, heads_at + 5, conv.size() - 1}) {
    INFO("length " << len);
    CHECK_THAT(HeadsLoadError(conv.substr(0, len), "trunc.gzck"), Catch::Contains("truncated"));
  }
}

}  // namespace gz
