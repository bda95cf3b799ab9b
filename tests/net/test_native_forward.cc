// The native CPU forward (common/net/native/) computes what
// the LibTorch forward computes: every shipped net and random nets of both
// heads (several sizes, rules and channel counts, BatchNorm statistics made
// non-trivial so the folding is exercised), 1,000 positions each, policy and
// value within 1e-4; and a checkpoint that does not match is refused by name.
// Subnormals (common/net/native/float_mode.h): the shipped 2026-12-06 net's
// subnormal weights are gone once packed (native) or loaded to infer
// (LibTorch), the outputs unchanged, and FTZ/DAZ hold only inside a forward.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/net/checkpoint.h"
#include "common/net/model.h"
#include "common/net/checkpoint_format.h"
#include "common/net/native/float_mode.h"
#include "common/net/native/kernels.h"
#include "common/net/native/native_forward.h"
#include "common/net/native/native_net.h"
#include "common/net/net_api.h"
#include "common/net/torch_forward.h"
#include "tests/net/checkpoint_edit.h"
#include "common/harness/temp_dir.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

namespace gz {
namespace {

static_assert(native::kValueHiddenNative == kValueHidden);
static_assert(native::kConvHeadChannelsNative == kConvHeadChannels);
static_assert(native::kMaxChannelsNative == PolicyValueNetImpl::kMaxChannels);
static_assert(native::kMaxBlocksNative == PolicyValueNetImpl::kMaxBlocks);

constexpr int kPositions = 1000;
constexpr float kTolerance = 1e-4f;
// The log-policy is compared where the reference gives a point at least 1e-4
// of the policy (the points a search can visit).  Below that the log of a
// tiny probability carries float32 rounding of a large logit (random games
// that fill two thirds of the board drive trained nets' logits far down);
// that difference is printed, not asserted.
const float kPolicyFloor = std::log(1e-4f);

std::string NativeTmpPath(const std::string& name) { return gz::testing::TestTmpPath("native_" + name); }

// `count` positions of random games (seeded): every length from the empty
// board to late middle games, each under a random symmetry.
std::vector<float> RandomPlanes(int size, Rule rule, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> planes(static_cast<size_t>(count) * PlaneFloats(size));
  for (int i = 0; i < count; ++i) {
    Board b(size, rule);
    const int moves = static_cast<int>(rng() % (size * size * 2 / 3 + 1));
    for (int m = 0; m < moves && !b.terminal(); ++m) {
      const std::vector<int> legal = b.LegalMoves();
      if (legal.empty()) break;
      b.Play(legal[rng() % legal.size()]);
    }
    EncodePosition(b.ToPosition(), static_cast<int>(rng() % 8), planes.data() + static_cast<size_t>(i) * PlaneFloats(size));
  }
  return planes;
}

struct Diff {
  float policy = 0, value = 0;  // policy: over points with reference probability >= 1e-4
  float policy_all = 0;         // over every point
};

// Runs both forwards over `count` positions in batches of varied sizes (1 to
// 64: the native forward works in chunks of positions) and returns the largest
// differences.
Diff Compare(BatchForward& reference, BatchForward& native, Rule rule, int count, uint32_t seed) {
  const int size = reference.board_size();
  REQUIRE(native.board_size() == size);
  const int points = size * size;
  const std::vector<float> planes = RandomPlanes(size, rule, count, seed);
  std::vector<float> lp_ref(static_cast<size_t>(count) * points), lp_nat(lp_ref.size());
  std::vector<float> v_ref(count), v_nat(count);
  const int batches[] = {1, 7, 64, 3, 16, 33};
  for (int start = 0, b = 0; start < count; ++b) {
    const int n = std::min(batches[b % 6], count - start);
    const float* in = planes.data() + static_cast<size_t>(start) * PlaneFloats(size);
    reference.Forward(in, n, lp_ref.data() + static_cast<size_t>(start) * points, v_ref.data() + start);
    native.Forward(in, n, lp_nat.data() + static_cast<size_t>(start) * points, v_nat.data() + start);
    start += n;
  }
  Diff d;
  for (size_t i = 0; i < lp_ref.size(); ++i) {
    const float diff = std::abs(lp_ref[i] - lp_nat[i]);
    d.policy_all = std::max(d.policy_all, diff);
    if (lp_ref[i] >= kPolicyFloor) d.policy = std::max(d.policy, diff);
  }
  for (int i = 0; i < count; ++i) d.value = std::max(d.value, std::abs(v_ref[i] - v_nat[i]));
  return d;
}

// A random net with BatchNorm statistics and affine terms drawn too (a fresh
// net's are 0/1, which would leave the folding untested).
std::string RandomNet(const std::string& name, int size, Rule rule, int channels, int blocks, const std::string& heads,
                      uint64_t seed) {
  PolicyValueNet net(size, channels, blocks, ParseNetHeads(heads));
  net->InitSeeded(seed);
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(seed);
    for (const auto& m : net->modules(/*include_self=*/false))
      if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
        bn->weight.uniform_(0.5, 1.5);
        bn->bias.uniform_(-0.2, 0.2);
        bn->running_mean.uniform_(-0.3, 0.3);
        bn->running_var.uniform_(0.5, 2.0);
      }
  }
  CheckpointInfo info;
  info.rule = RuleName(rule);
  info.heads = ParseNetHeads(heads);
  info.seed = seed;
  info.iteration = 3;
  info.model_generation = 3;
  const std::string path = NativeTmpPath(name + ".pt");
  SaveCheckpoint(path, net, info);
  return path;
}

void CheckParity(const std::string& path, Rule rule, int play_size, uint32_t seed) {
  CheckpointExpect expect;
  expect.board_size = play_size;
  CheckpointInfo torch_info, native_info;
  auto reference = LoadForward(path, "cpu", 1, expect, &torch_info);
  auto native = LoadNativeForward(path, expect, &native_info);
  CHECK(native_info.board_size == torch_info.board_size);
  CHECK(native_info.iteration == torch_info.iteration);
  const Diff d = Compare(*reference, *native, rule, kPositions, seed);
  INFO(path << " at " << reference->board_size() << "x" << reference->board_size() << ": max |d log-policy| "
            << d.policy << ", max |d value| " << d.value << "; " << native->Describe());
  // The figures for docs/benchmarks.md (ctest --output-on-failure -V shows them).
  std::printf("parity %s at %d: max |d log-policy| %.3g (every point: %.3g), max |d value| %.3g\n", path.c_str(),
              reference->board_size(), d.policy, d.policy_all, d.value);
  CHECK(d.policy <= kTolerance);
  CHECK(d.value <= kTolerance);
}

}  // namespace

TEST_CASE("native forward: every shipped net matches LibTorch within 1e-4 on 1,000 positions") {
  const std::string dir = std::string(GZ_SOURCE_DIR) + "/nets";
  int nets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pt") continue;
    const CheckpointInfo info = ReadCheckpointInfo(entry.path().string());
    // The positions' seed comes from the file's name, so that a net's
    // positions do not depend on the directory's order.
    uint32_t seed = 2166136261u;
    for (const unsigned char ch : entry.path().filename().string()) seed = (seed ^ ch) * 16777619u;
    CheckParity(entry.path().string(), ParseRule(info.rule), -1, seed);
    ++nets;
  }
  CHECK(nets >= 1);
}

TEST_CASE("native forward: random nets of both heads match LibTorch within 1e-4 on 1,000 positions") {
  struct Case {
    const char* name;
    int size;
    Rule rule;
    int channels, blocks;
    const char* heads;
    int play_size;  // -1: its own
  };
  const Case cases[] = {
      {"fc15", 15, Rule::kFreestyle, 32, 4, "fc", -1},
      {"fc9_renju", 9, Rule::kRenju, 12, 2, "fc", -1},      // channels not a multiple of 8
      {"fc7_standard", 7, Rule::kStandard, 8, 0, "fc", -1},  // no residual block
      {"conv15", 15, Rule::kFreestyle, 24, 3, "conv", -1},
      {"conv11_at_13", 11, Rule::kRenju, 16, 2, "conv", 13},  // a conv net at another size
      {"conv15_at_20", 15, Rule::kStandard, 8, 1, "conv", 20},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string path = RandomNet(c.name, c.size, c.rule, c.channels, c.blocks, c.heads, seed);
      CheckParity(path, c.rule, c.play_size, 1000 + seed);
    }
    ++seed;
  }
}

TEST_CASE("native forward: the portable kernels compute what the AVX2 ones do") {
  const std::string path = RandomNet("kernels", 15, Rule::kFreestyle, 16, 2, "conv", 77);
  auto generic = LoadNativeForwardWith(path, "generic");
  if (!native::KernelsNamed("avx2")) {
    // Without AVX2 the generic table is the one in use, checked against LibTorch above.
    CHECK(std::string(native::BestKernels().name) == "generic");
    return;
  }
  auto avx2 = LoadNativeForwardWith(path, "avx2");
  CHECK(generic->Describe().find("generic kernels") != std::string::npos);
  CHECK(avx2->Describe().find("avx2 kernels") != std::string::npos);
  const Diff d = Compare(*avx2, *generic, Rule::kFreestyle, 200, 5);
  CHECK(d.policy <= 1e-5f);
  CHECK(d.value <= 1e-5f);
}

TEST_CASE("native forward: a checkpoint that does not match is refused by name") {
  const std::string path = RandomNet("mismatch", 9, Rule::kFreestyle, 8, 1, "fc", 5);
  auto message = [&](auto&& load) -> std::string {
    try {
      load();
    } catch (const ModelError& e) {
      return e.what();
    }
    return "(loaded)";
  };
  CheckpointExpect wrong_size;
  wrong_size.board_size = 11;  // an fc net plays its own size only
  CHECK_THAT(message([&] { LoadNativeForward(path, wrong_size); }), Catch::Contains("board"));
  CheckpointExpect wrong_channels;
  wrong_channels.channels = 16;
  CHECK_THAT(message([&] { LoadNativeForward(path, wrong_channels); }), Catch::Contains("channels"));
  CheckpointExpect wrong_blocks;
  wrong_blocks.blocks = 2;
  CHECK_THAT(message([&] { LoadNativeForward(path, wrong_blocks); }), Catch::Contains("blocks"));

  const std::string bytes = ReadFileOrThrow(path);
  const uint32_t json_len = gz::testing::JsonLen(bytes);
  std::string json = bytes.substr(12, json_len);
  auto edited = [&](const std::string& from, const std::string& to, const std::string& name) {
    std::string j = json;
    const size_t at = j.find(from);
    REQUIRE(at != std::string::npos);
    j.replace(at, from.size(), to);
    REQUIRE(j.size() == json.size());  // same length: the offsets stay valid
    std::string b = bytes;
    b.replace(12, json_len, j);
    const std::string p = NativeTmpPath(name + ".pt");
    WriteFileAtomic(p, gz::testing::WithFixedCrc(b));
    return p;
  };
  // Encoder version, rule, a tensor's shape and name: each named in the error.
  const std::string bad_encoder = edited("\"encoder_version\":2", "\"encoder_version\":9", "bad_encoder");
  CHECK_THAT(message([&] { LoadNativeForward(bad_encoder); }), Catch::Contains("encoder"));
  const std::string bad_rule = edited("\"rule\":\"freestyle\"", "\"rule\":\"freestylX\"", "bad_rule");
  CHECK_THAT(message([&] { LoadNativeForward(bad_rule); }), Catch::Contains("freestylX"));
  const std::string bad_shape = edited("\"shape\":[8,5,3,3]", "\"shape\":[8,3,5,3]", "bad_shape");
  const std::string shape_error = message([&] { LoadNativeForward(bad_shape); });
  CHECK_THAT(shape_error, Catch::Contains("input_conv.weight"));
  CHECK_THAT(shape_error, Catch::Contains("[8,3,5,3]"));
  const std::string bad_name = edited("\"value_fc1.bias\"", "\"value_fc1.bixs\"", "bad_name");
  CHECK_THAT(message([&] { LoadNativeForward(bad_name); }), Catch::Contains("value_fc1.bixs"));
  // A damaged byte in the weights: the CRC names it.
  std::string damaged = bytes;
  damaged[damaged.size() - 40] ^= 0x5a;
  const std::string bad_crc = NativeTmpPath("bad_crc.pt");
  WriteFileAtomic(bad_crc, damaged);
  CHECK_THAT(message([&] { LoadNativeForward(bad_crc); }), Catch::Contains("CRC"));
  // NaN weights are refused like LoadCheckpoint refuses them.
  std::string nan_file = bytes;
  const float nan = std::nanf("");
  std::memcpy(nan_file.data() + 12 + json_len + 4, &nan, 4);  // input_conv.weight[1]
  const std::string bad_nan = NativeTmpPath("bad_nan.pt");
  WriteFileAtomic(bad_nan, gz::testing::WithFixedCrc(nan_file));
  CHECK_THAT(message([&] { LoadNativeForward(bad_nan); }), Catch::Contains("NaN"));
}

}  // namespace gz

namespace gz {
namespace {

// inference.backend's backend half (UsesNativeForward), which ChooseForward
// (common/net/forward_choice.h) applies for every caller; LoadForward's options follow it.
TEST_CASE("inference.backend: native on the CPU by default, LibTorch when asked; a bad value is refused by name") {
  CHECK(UsesNativeForward("auto", "cpu"));
  CHECK_FALSE(UsesNativeForward("auto", "cuda"));
  CHECK_FALSE(UsesNativeForward("auto", "cuda:1"));
  CHECK(UsesNativeForward("native", "cpu"));
  CHECK_FALSE(UsesNativeForward("torch", "cpu"));
  CHECK_THROWS_WITH(UsesNativeForward("fast", "cpu"),
                    Catch::Contains("inference.backend") && Catch::Contains("'fast'"));
  CHECK_THROWS_AS(UsesNativeForward("native", "cuda:0"), ConfigError);
  CHECK_THROWS_WITH(UsesNativeForward("native", "cuda:0"), Catch::Contains("inference.device is 'cuda:0'"));

  ForwardOptions options;
  options.backend = "fast";
  CHECK_THROWS_AS(ValidateForwardOptions(options, "cpu"), ConfigError);

  const std::string path = RandomNet("backend", 9, Rule::kFreestyle, 8, 1, "fc", 6);
  options.backend = "auto";
  auto native = LoadForward(path, "cpu", 1, options);
  CHECK_THAT(native->Describe(), Catch::Contains("native CPU forward"));
  options.backend = "torch";
  auto torch_forward = LoadForward(path, "cpu", 1, options);
  CHECK_THAT(torch_forward->Describe(), Catch::StartsWith("torch cpu"));
  // The same net either way, and the same generation reported.
  Board b(9, Rule::kFreestyle);
  b.Play(40);
  b.Play(41);
  std::vector<float> planes(PlaneFloats(9));
  EncodePosition(b.ToPosition(), 0, planes.data());
  std::vector<float> lp_native(81), lp_torch(81);
  float v_native = 0, v_torch = 0;
  CHECK(native->Forward(planes.data(), 1, lp_native.data(), &v_native) ==
        torch_forward->Forward(planes.data(), 1, lp_torch.data(), &v_torch));
  float worst = std::fabs(v_native - v_torch);
  for (int i = 0; i < 81; ++i) worst = std::max(worst, std::fabs(lp_native[i] - lp_torch[i]));
  CHECK(worst < kTolerance);
}


// The shipped net with subnormal weights (docs/network.md "Subnormals").
std::string SubnormalNetPath() { return std::string(GZ_SOURCE_DIR) + "/nets/gz-15x15-freestyle-2026-12-06.pt"; }

size_t CountSubnormals(const float* p, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) count += native::IsSubnormal(p[i]);
  return count;
}

size_t CountSubnormals(PolicyValueNet& net) {
  size_t count = 0;
  auto add = [&](const torch::Tensor& t) {
    if (t.scalar_type() != torch::kFloat) return;
    const torch::Tensor c = t.detach().contiguous();
    count += CountSubnormals(c.data_ptr<float>(), static_cast<size_t>(c.numel()));
  };
  for (const auto& p : net->parameters()) add(p);
  for (const auto& b : net->buffers()) add(b);
  return count;
}

TEST_CASE("subnormals: the 2026-12-06 net holds 947, and neither forward keeps one") {
  const std::string path = SubnormalNetPath();
  // The checkpoint's own floats, read without either loader: the flush below
  // has something to do (281 on input_conv's renju plane, 658 in value_fc1,
  // 8 in value_fc2).
  const std::string file = ReadFileOrThrow(path);
  const CheckpointHeader h = ValidateCheckpointBytes(file, path);
  std::map<std::string, size_t> raw;
  size_t raw_total = 0;
  const char* p = file.data() + kCheckpointFixedHeaderBytes + h.json_len;
  for (const CheckpointTensorEntry& e : h.tensors) {
    if (e.dtype == "float32") {
      std::vector<float> t(e.Bytes() / sizeof(float));
      std::memcpy(t.data(), p, e.Bytes());
      if (const size_t n = CountSubnormals(t.data(), t.size())) raw[e.name] = n;
      raw_total += CountSubnormals(t.data(), t.size());
    }
    p += e.Bytes();
  }
  CHECK(raw_total == 947);
  CHECK(raw["input_conv.weight"] == 281);
  CHECK(raw["value_fc1.weight"] == 658);
  CHECK(raw["value_fc2.weight"] == 8);

  // Native: what the kernels multiply holds none.
  native::NativeNet net = native::LoadNativeNet(path);
  CHECK(net.subnormals_flushed > 0);
  size_t packed = 0, floats = 0;
  native::ForEachPacked(net, [&](std::vector<float>& v) {
    packed += CountSubnormals(v.data(), v.size());
    floats += v.size();
  });
  CHECK(floats > 0);
  CHECK(packed == 0);

  // LibTorch: the module as loaded holds them; the forward's module does not.
  CheckpointInfo info;
  PolicyValueNet loaded = LoadCheckpoint(path, {}, &info);
  CHECK(CountSubnormals(loaded) == 947);
  TorchForward forward(LoadCheckpoint(path), info, "cpu", 1);
  CHECK(CountSubnormals(forward.net()) == 0);
}

TEST_CASE("subnormals: flushing changes neither forward's output beyond float rounding") {
  // The module exactly as the file holds it, run by hand (no flush, the
  // thread's default MXCSR), against both forwards as shipped.
  const std::string path = SubnormalNetPath();
  CheckpointInfo info;
  PolicyValueNet raw = LoadCheckpoint(path, {}, &info);
  raw->eval();
  const int size = info.board_size, points = size * size, count = 1000;
  const std::vector<float> planes = RandomPlanes(size, Rule::kFreestyle, count, 4242);
  std::vector<float> lp_raw(static_cast<size_t>(count) * points), v_raw(count);
  {
    c10::InferenceMode inference;
    auto [logp, v] = raw->forward(torch::from_blob(const_cast<float*>(planes.data()), {count, kNumPlanes, size, size}));
    std::memcpy(lp_raw.data(), logp.contiguous().data_ptr<float>(), lp_raw.size() * sizeof(float));
    std::memcpy(v_raw.data(), v.contiguous().data_ptr<float>(), v_raw.size() * sizeof(float));
  }
  auto worst = [&](BatchForward& f) {
    std::vector<float> lp(lp_raw.size()), v(count);
    f.Forward(planes.data(), count, lp.data(), v.data());
    Diff d;
    for (size_t i = 0; i < lp.size(); ++i) d.policy = std::max(d.policy, std::fabs(lp[i] - lp_raw[i]));
    for (int i = 0; i < count; ++i) d.value = std::max(d.value, std::fabs(v[i] - v_raw[i]));
    return d;
  };
  TorchForward torch_forward(LoadCheckpoint(path), info, "cpu", 1);
  const Diff t = worst(torch_forward);
  auto native_forward = LoadNativeForward(path);
  const Diff n = worst(*native_forward);
  std::printf("subnormals flushed: LibTorch max |d log-policy| %.3g, |d value| %.3g; native %.3g, %.3g\n", t.policy,
              t.value, n.policy, n.value);
  CHECK(t.policy <= 1e-6f);
  CHECK(t.value <= 1e-6f);
  CHECK(n.policy <= kTolerance);
  CHECK(n.value <= kTolerance);
}

TEST_CASE("subnormals: FTZ/DAZ hold inside a scope and a forward, and the caller's MXCSR comes back") {
  if (!native::FlushDenormalsScope::kActive) {
    // Not x86: the scope is a no-op by contract; the weights are still flushed (above).
    SUCCEED("no MXCSR on this architecture");
    return;
  }
#if defined(GZ_NATIVE_HAVE_MXCSR)
  const unsigned before = _mm_getcsr();
  REQUIRE((before & (native::kMxcsrFtz | native::kMxcsrDaz)) == 0);  // the thread's default mode
  volatile float tiny = 1e-39f;  // subnormal
  volatile float small = 1e-20f;
  CHECK(tiny * 1.0f != 0.0f);
  CHECK(small * small != 0.0f);  // 1e-40: subnormal, not zero
  {
    const native::FlushDenormalsScope scope;
    CHECK((_mm_getcsr() & (native::kMxcsrFtz | native::kMxcsrDaz)) == (native::kMxcsrFtz | native::kMxcsrDaz));
    CHECK(tiny * 1.0f == 0.0f);    // DAZ: the operand reads as zero
    CHECK(small * small == 0.0f);  // FTZ: the result becomes zero
  }
  CHECK(_mm_getcsr() == before);
  CHECK(tiny * 1.0f != 0.0f);

  // A forward leaves the caller's mode as it was, even a mode of its own
  // (round toward zero here) that is not the default.
  auto forward = LoadNativeForward(SubnormalNetPath());
  std::vector<float> planes(PlaneFloats(15)), lp(225);
  float v = 0;
  EncodePosition(Board(15, Rule::kFreestyle).ToPosition(), 0, planes.data());
  const unsigned custom = (before & ~_MM_ROUND_MASK) | _MM_ROUND_TOWARD_ZERO;
  _mm_setcsr(custom);
  forward->Forward(planes.data(), 1, lp.data(), &v);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(before);
  CHECK(after == custom);
#endif
}

}  // namespace
}  // namespace gz
