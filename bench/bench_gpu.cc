// GPU inference: correctness checks and throughput (CUDA builds only;
// docs/gpu.md).  dev/gpu_check.sh builds and runs it on a device machine.
//
//   bench_gpu [--device cuda|cuda:N] [--quick] [--board S] [--net CxB]
//             [--batches 16,64,256] [--seconds T] [--peak-tflops-bf16 X]
//             [--peak-tflops-fp32 X] [--out report.json]
//
// 1. Encode kernel vs EncodePosition (the CPU reference), bit for bit, on
//    random positions (not necessarily legal: any cells, last move none or out
//    of range, either colour to move) under all 8 symmetries, board sizes 5..22.
// 2. Equivalence: CudaForward (fp32 eager / graphs / chunked, bf16, fp16; host
//    planes, packed positions and compact rows) against TorchForward fp32 on
//    the CPU, same weights, on positions from random games; tolerances as in
//    docs/gpu.md.  Compact input must match host planes on the same forward.
// 3. Throughput of the CxB net (default 128x8 on 15x15) through the host API
//    (copies included) per batch size, for eager fp32, bf16, bf16 + CUDA
//    graphs (host planes and device-side encoding) and fp16 + graphs, and the
//    MFU: ForwardFlops x positions/s / peak, the peak measured with a large
//    matrix product in the same precision (MeasurePeakFlops) unless given.
// Exit status: 0 all checks pass, 1 a check failed, 2 an error.
#include <ATen/Parallel.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/game/board.h"
#include "common/base/guarded_main.h"
#include "common/game/encoder.h"
#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/cuda/batch_buckets.h"
#include "common/net/cuda/compact_batch.h"
#include "common/net/cuda/cuda_forward.h"
#include "common/net/cuda/encode_kernel.h"
#include "common/net/model.h"
#include "common/net/net_api.h"
#include "common/net/torch_forward.h"
#include "common/game/symmetry.h"

namespace gz {
namespace {

using nlohmann::json;

struct Options {
  std::string device = "cuda";
  bool quick = false;
  int board = 15;
  int channels = 128;
  int blocks = 8;
  std::vector<int> batches = {16, 64, 256};
  double seconds = 1.0;
  double peak_bf16 = 0;  // FLOP/s; 0 = measure
  double peak_fp32 = 0;
  std::string out;
};

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::vector<int> ParseInts(const std::string& s) {
  std::vector<int> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    out.push_back(std::stoi(s.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

Options ParseArgs(int argc, char** argv) {
  const char* usage =
      "usage: bench_gpu [--device D] [--quick] [--board S] [--net CxB] [--batches a,b,...] [--seconds S]\n"
      "                 [--peak-tflops-bf16 T] [--peak-tflops-fp32 T] [--out FILE]\n";
  CliArgs args = ParseCli(argc, argv,
                          CliSpec{usage,
                                  {"--device", "--board", "--net", "--batches", "--seconds", "--peak-tflops-bf16",
                                   "--peak-tflops-fp32", "--out"},
                                  {"--quick"}});
  if (args.help) {
    std::fputs(usage, stdout);
    std::exit(0);
  }
  Options o;
  o.device = args.get("--device", o.device);
  o.quick = args.has("--quick");
  o.board = static_cast<int>(args.get_int("--board", o.board));
  if (args.has("--net")) {
    const std::string v = args.get("--net");
    if (std::sscanf(v.c_str(), "%dx%d", &o.channels, &o.blocks) != 2)
      GOMOKU_THROW(ConfigError, "--net: '" << v << "' is not CxB");
  }
  if (args.has("--batches")) o.batches = ParseInts(args.get("--batches"));
  o.seconds = args.get_double("--seconds", o.quick ? 0.3 : o.seconds);
  o.peak_bf16 = args.get_double("--peak-tflops-bf16", 0) * 1e12;
  o.peak_fp32 = args.get_double("--peak-tflops-fp32", 0) * 1e12;
  o.out = args.get("--out");
  for (int b : o.batches)
    if (b < 1 || b > kMaxForwardBatch) GOMOKU_THROW(ConfigError, "--batches: " << b << " out of range");
  return o;
}

// Any cells, either colour to move, last move none / in range / out of range.
std::vector<Position> RandomPositions(int count, int size, std::mt19937& rng) {
  const int points = size * size;
  std::vector<Position> out(count);
  for (Position& pos : out) {
    pos.size = size;
    pos.cells.resize(points);
    const int fill = static_cast<int>(rng() % 101);  // percent of stones
    for (int8_t& c : pos.cells) {
      const int r = static_cast<int>(rng() % 200);
      c = r < fill ? kBlack : (r < 2 * fill ? kWhite : kEmpty);
    }
    pos.to_move = (rng() % 2) ? kBlack : kWhite;
    const int kind = static_cast<int>(rng() % 8);
    pos.last_move = kind == 0 ? kNoMove : (kind == 1 ? points + static_cast<int>(rng() % 5) : static_cast<int>(rng() % points));
  }
  return out;
}

// Positions from random legal games: the network checks use realistic inputs.
std::vector<Position> GamePositions(int count, int size, std::mt19937& rng) {
  std::vector<Position> out;
  for (int i = 0; i < count; ++i) {
    Board b(size);
    const int moves = static_cast<int>(rng() % (size * size / 3 + 1));
    for (int m = 0; m < moves && !b.terminal(); ++m) {
      const auto legal = b.LegalMoves();
      b.Play(legal[rng() % legal.size()]);
    }
    out.push_back(b.ToPosition());
  }
  return out;
}

// `count` such positions encoded one after another, position i under symmetry
// i % 8 (PlaneFloats(size) floats each).
std::vector<float> GamePlanes(int count, int size, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<Position> positions = GamePositions(count, size, rng);
  const size_t stride = PlaneFloats(size);
  std::vector<float> planes(count * stride);
  for (int i = 0; i < count; ++i) EncodePosition(positions[i], i % kNumSymmetries, planes.data() + i * stride);
  return planes;
}

bool CheckEncodeKernel(const Options& o, json* report) {
  std::mt19937 rng(12345);
  const torch::Device device(ResolveDevice(o.device));
  const int per_size = o.quick ? 256 : 2048;
  bool ok = true;
  json sizes = json::array();
  std::printf("== encode kernel vs EncodePosition (bit for bit, all 8 symmetries)\n");
  for (int size : {5, 9, 15, 19, kMaxBoardSize}) {
    const std::vector<Position> positions = RandomPositions(per_size, size, rng);
    const int n = per_size * kNumSymmetries;
    const size_t row_bytes = CompactRowBytes(size);
    const size_t stride = PlaneFloats(size);
    std::vector<uint8_t> rows(n * row_bytes);
    std::vector<float> expect(n * stride), host(n * stride);
    for (int i = 0; i < per_size; ++i)
      for (int s = 0; s < kNumSymmetries; ++s) {
        const int r = i * kNumSymmetries + s;
        PackCompactRow(positions[i], s, rows.data() + r * row_bytes);
        EncodePosition(positions[i], s, expect.data() + r * stride);
      }
    EncodeCompactRowsOnHost(rows.data(), n, size, host.data());
    torch::Tensor dev_rows =
        torch::from_blob(rows.data(), {static_cast<int64_t>(rows.size())}, torch::kByte).to(device);
    // NaN-filled: a float the kernel fails to write cannot compare equal.
    torch::Tensor dev_planes = torch::full({static_cast<int64_t>(n * stride)}, std::nanf(""),
                                           torch::TensorOptions().device(device).dtype(torch::kFloat));
    LaunchEncodeCompactRows(dev_rows.data_ptr<uint8_t>(), n, size, dev_planes.data_ptr<float>(),
                            c10::cuda::getCurrentCUDAStream(device.index()).stream());
    const torch::Tensor got = dev_planes.to(torch::kCPU).contiguous();
    const float* g = got.data_ptr<float>();
    int bad = 0, bad_host = 0;
    for (int r = 0; r < n; ++r) {
      if (std::memcmp(g + r * stride, expect.data() + r * stride, sizeof(float) * stride) != 0) {
        if (bad++ == 0) {
          for (size_t k = 0; k < stride; ++k)
            if (std::memcmp(&g[r * stride + k], &expect[r * stride + k], sizeof(float)) != 0) {
              std::printf("   size %d row %d (symmetry %d) plane %zu point %zu: kernel %g, encoder %g\n", size, r,
                          r % kNumSymmetries, k / (size * size), k % (size * size), g[r * stride + k],
                          expect[r * stride + k]);
              break;
            }
        }
      }
      if (std::memcmp(host.data() + r * stride, expect.data() + r * stride, sizeof(float) * stride) != 0) ++bad_host;
    }
    std::printf("   size %2d: %d rows, %d differ on the GPU, %d differ on the host copy of the kernel code\n", size,
                n, bad, bad_host);
    ok = ok && bad == 0 && bad_host == 0;
    sizes.push_back({{"size", size}, {"rows", n}, {"gpu_mismatches", bad}, {"host_mismatches", bad_host}});
  }
  std::printf("   %s\n", ok ? "PASS" : "FAIL");
  (*report)["kernel_check"] = {{"ok", ok}, {"sizes", sizes}};
  return ok;
}

PolicyValueNet MakeNet(const Options& o) {
  PolicyValueNet net(o.board, o.channels, o.blocks);
  net->InitSeeded(7);
  return net;
}

CheckpointInfo MakeInfo(const Options& o) {
  CheckpointInfo info;
  info.board_size = o.board;
  info.channels = o.channels;
  info.blocks = o.blocks;
  info.model_generation = 1;
  return info;
}

struct Outputs {
  std::vector<float> log_policy, value;
};

struct Diff {
  double prob = 0, log_prob = 0, value = 0;
};

Diff Compare(const Outputs& a, const Outputs& b) {
  Diff d;
  for (size_t i = 0; i < a.log_policy.size(); ++i) {
    d.prob = std::max(d.prob, static_cast<double>(std::fabs(std::exp(a.log_policy[i]) - std::exp(b.log_policy[i]))));
    d.log_prob = std::max(d.log_prob, static_cast<double>(std::fabs(a.log_policy[i] - b.log_policy[i])));
  }
  for (size_t i = 0; i < a.value.size(); ++i)
    d.value = std::max(d.value, static_cast<double>(std::fabs(a.value[i] - b.value[i])));
  if (!std::isfinite(d.prob) || !std::isfinite(d.value)) d.prob = d.value = std::numeric_limits<double>::infinity();
  return d;
}

// Batch n through `forward` (TorchForward or CudaForward) from the first n
// rows of `planes`.
template <typename Forward>
Outputs RunPlanes(Forward& forward, const std::vector<float>& planes, int n, int points) {
  Outputs out{std::vector<float>(static_cast<size_t>(n) * points), std::vector<float>(n)};
  forward.Forward(planes.data(), n, out.log_policy.data(), out.value.data());
  return out;
}

struct Variant {
  std::string name;
  ForwardOptions options;
  double prob_tolerance;
  double value_tolerance;
};

bool CheckEquivalence(const Options& o, json* report) {
  std::mt19937 rng(99);
  const int n = 100;  // not a bucket: exercises padding (and chunking at max_batch 64)
  const std::vector<Position> positions = GamePositions(n, o.board, rng);
  std::vector<uint8_t> syms(n);
  for (int i = 0; i < n; ++i) syms[i] = static_cast<uint8_t>(i % kNumSymmetries);
  const size_t stride = PlaneFloats(o.board), points = o.board * o.board;
  std::vector<float> planes(n * stride);
  std::vector<uint8_t> rows(n * CompactRowBytes(o.board));
  for (int i = 0; i < n; ++i) {
    EncodePosition(positions[i], syms[i], planes.data() + i * stride);
    PackCompactRow(positions[i], syms[i], rows.data() + i * CompactRowBytes(o.board));
  }
  auto fresh = [&] { return Outputs{std::vector<float>(n * points), std::vector<float>(n)}; };

  const Outputs reference = [&] {
    TorchForward cpu(MakeNet(o), MakeInfo(o), "cpu", static_cast<int>(std::thread::hardware_concurrency()));
    return RunPlanes(cpu, planes, n, static_cast<int>(points));
  }();
  auto with = [](const char* precision, bool graphs, bool channels_last, int max_batch) {
    ForwardOptions f;
    f.precision = precision;
    f.cuda_graphs = graphs;
    f.channels_last = channels_last;
    f.max_batch = max_batch;
    return f;
  };
  // Tolerances: docs/gpu.md ("Equivalence").
  const std::vector<Variant> variants = {
      {"fp32 eager NCHW", with("fp32", false, false, 128), 1e-4, 1e-4},
      {"fp32 eager channels-last", with("fp32", false, true, 128), 1e-4, 1e-4},
      {"fp32 graphs channels-last", with("fp32", true, true, 128), 1e-4, 1e-4},
      {"fp32 graphs, max_batch 64 (chunked)", with("fp32", true, true, 64), 1e-4, 1e-4},
      {"bf16 eager channels-last", with("bf16", false, true, 128), 2e-2, 3e-2},
      {"bf16 graphs channels-last", with("bf16", true, true, 128), 2e-2, 3e-2},
      {"fp16 graphs channels-last", with("fp16", true, true, 128), 5e-3, 5e-3},
  };
  std::printf("\n== equivalence vs TorchForward fp32 on the CPU (%d positions, %dx%d net, board %d)\n", n,
              o.channels, o.blocks, o.board);
  std::printf("   %-38s %10s %10s %10s %10s  %s\n", "variant", "max|dp|", "max|dlogp|", "max|dv|", "compact", "result");
  bool ok = true;
  json list = json::array();
  for (const Variant& v : variants) {
    CudaForward gpu(MakeNet(o), MakeInfo(o), ResolveDevice(o.device), v.options);
    Outputs from_planes = fresh(), from_rows = fresh(), from_positions = fresh();
    gpu.Forward(planes.data(), n, from_planes.log_policy.data(), from_planes.value.data());
    gpu.ForwardCompact(rows.data(), n, from_rows.log_policy.data(), from_rows.value.data());
    gpu.ForwardPositions(positions, syms, from_positions.log_policy.data(), from_positions.value.data());
    const Diff d = Compare(from_planes, reference);
    const Diff c1 = Compare(from_rows, from_planes), c2 = Compare(from_positions, from_planes);
    const double compact = std::max({c1.log_prob, c1.value, c2.log_prob, c2.value});
    const bool pass = d.prob <= v.prob_tolerance && d.value <= v.value_tolerance && compact <= 1e-6;
    ok = ok && pass;
    std::printf("   %-38s %10.2e %10.2e %10.2e %10.2e  %s (tolerance %.0e / %.0e)\n", v.name.c_str(), d.prob,
                d.log_prob, d.value, compact, pass ? "PASS" : "FAIL", v.prob_tolerance, v.value_tolerance);
    list.push_back({{"variant", v.name}, {"describe", gpu.Describe()}, {"max_prob_diff", d.prob},
                    {"max_log_prob_diff", d.log_prob}, {"max_value_diff", d.value},
                    {"compact_vs_planes_diff", compact}, {"prob_tolerance", v.prob_tolerance},
                    {"value_tolerance", v.value_tolerance}, {"ok", pass}});
  }
  std::printf("   %s\n", ok ? "PASS" : "FAIL");
  (*report)["equivalence"] = {{"ok", ok}, {"positions", n}, {"variants", list}};
  return ok;
}

// CUDA Graph replay against eager, fp32 on the GPU, at every bucket of max
// batch 256: n equal to the bucket (same shapes as eager) and n one below it
// (the replay pads).  Bound: docs/gpu.md ("Equivalence").
bool CheckGraphBuckets(const Options& o, json* report) {
  constexpr int kMaxBatch = 256;
  constexpr double kTolerance = 1e-5;
  const std::vector<float> planes = GamePlanes(kMaxBatch, o.board, 17);
  const int points = o.board * o.board;
  ForwardOptions eager_opts, graph_opts;
  eager_opts.max_batch = graph_opts.max_batch = kMaxBatch;
  eager_opts.channels_last = graph_opts.channels_last = true;
  graph_opts.cuda_graphs = true;
  CudaForward eager(MakeNet(o), MakeInfo(o), ResolveDevice(o.device), eager_opts);
  CudaForward graphs(MakeNet(o), MakeInfo(o), ResolveDevice(o.device), graph_opts);
  std::printf("\n== CUDA Graph replay vs eager, fp32, every bucket of max batch %d (tolerance %.0e)\n", kMaxBatch,
              kTolerance);
  bool ok = true;
  double worst = 0;
  json list = json::array();
  for (int bucket : GraphBatchBuckets(kMaxBatch)) {
    for (int n : {bucket, bucket - 1}) {
      if (n < 1) continue;
      const Diff d = Compare(RunPlanes(graphs, planes, n, points), RunPlanes(eager, planes, n, points));
      const double diff = std::max(d.log_prob, d.value);
      worst = std::max(worst, diff);
      ok = ok && diff <= kTolerance;
      list.push_back({{"bucket", bucket}, {"n", n}, {"max_log_prob_diff", d.log_prob}, {"max_value_diff", d.value}});
    }
  }
  std::printf("   %zu batch sizes, worst max|dlogp|/max|dv| %.2e: %s\n", list.size(), worst, ok ? "PASS" : "FAIL");
  (*report)["graph_buckets"] = {{"ok", ok}, {"tolerance", kTolerance}, {"worst", worst}, {"sizes", list}};
  return ok;
}

// A reload while graphs are captured, as the server does it: a second
// CudaForward (other weights) is built and captured while the first still
// serves; both answer for their own weights, and the second still does after
// the first is gone.
bool CheckReloadWhileCaptured(const Options& o, json* report) {
  constexpr int n = 50;
  constexpr double kTolerance = 1e-4;  // against the CPU, as the equivalence check
  const std::vector<float> planes = GamePlanes(n, o.board, 23);
  const int points = o.board * o.board;
  auto net_with_seed = [&](uint64_t seed) {
    PolicyValueNet net(o.board, o.channels, o.blocks);
    net->InitSeeded(seed);
    return net;
  };
  auto cpu_reference = [&](uint64_t seed) {
    TorchForward cpu(net_with_seed(seed), MakeInfo(o), "cpu", static_cast<int>(std::thread::hardware_concurrency()));
    return RunPlanes(cpu, planes, n, points);
  };
  const Outputs ref_a = cpu_reference(7), ref_b = cpu_reference(8);
  ForwardOptions f;
  f.cuda_graphs = true;
  f.channels_last = true;
  f.max_batch = 64;
  auto first = std::make_unique<CudaForward>(net_with_seed(7), MakeInfo(o), ResolveDevice(o.device), f);
  const Diff a0 = Compare(RunPlanes(*first, planes, n, points), ref_a);
  CudaForward second(net_with_seed(8), MakeInfo(o), ResolveDevice(o.device), f);
  const Diff a1 = Compare(RunPlanes(*first, planes, n, points), ref_a);
  const Diff b0 = Compare(RunPlanes(second, planes, n, points), ref_b);
  first.reset();
  const Diff b1 = Compare(RunPlanes(second, planes, n, points), ref_b);
  const Diff cross = Compare(RunPlanes(second, planes, n, points), ref_a);
  double worst = 0;
  for (const Diff& d : {a0, a1, b0, b1}) worst = std::max({worst, d.prob, d.value});
  // The two nets differ, so the second must not answer like the first.
  const bool distinct = std::max(cross.prob, cross.value) > 100 * kTolerance;
  const bool ok = worst <= kTolerance && distinct;
  std::printf("\n== reload while CUDA graphs are captured (fp32, max batch 64)\n"
              "   worst difference from each net's CPU output %.2e (tolerance %.0e), new vs old net %.2e: %s\n",
              worst, kTolerance, std::max(cross.prob, cross.value), ok ? "PASS" : "FAIL");
  (*report)["reload_while_captured"] = {{"ok", ok}, {"worst", worst}, {"new_vs_old", std::max(cross.prob, cross.value)}};
  return ok;
}

double PeakFor(const Options& o, const std::string& precision, json* peaks) {
  const std::string key = precision + "_flops";
  if (peaks->contains(key)) return (*peaks)[key].get<double>();
  double peak = precision == "fp32" ? o.peak_fp32 : o.peak_bf16;  // fp16 tensor cores run at the bf16 rate
  const bool measured = peak <= 0;
  if (measured) peak = MeasurePeakFlops(o.device, precision, 0, o.quick ? 0.5 : 1.5);
  (*peaks)[key] = peak;
  (*peaks)[precision + "_source"] = measured ? "measured (8192^3 matrix products)" : "given";
  std::printf("   peak %s: %.1f TFLOP/s (%s)\n", precision.c_str(), peak / 1e12, measured ? "measured" : "given");
  return peak;
}

void Throughput(const Options& o, json* report) {
  struct Config {
    std::string name;
    const char* precision;
    bool graphs;
    bool channels_last;
    bool compact;
  };
  const std::vector<Config> configs = {
      {"fp32 eager NCHW", "fp32", false, false, false},
      {"fp32 eager channels-last", "fp32", false, true, false},
      {"bf16 eager channels-last", "bf16", false, true, false},
      {"bf16 graphs channels-last", "bf16", true, true, false},
      {"bf16 graphs + device encoding", "bf16", true, true, true},
      {"fp16 graphs channels-last", "fp16", true, true, false},
  };
  const double flops = ForwardFlops(o.board, o.channels, o.blocks);
  const int max_batch = *std::max_element(o.batches.begin(), o.batches.end());
  std::printf("\n== throughput, %dx%d net on %dx%d (%.3f GFLOP per position), host API incl. copies\n", o.channels,
              o.blocks, o.board, o.board, flops / 1e9);
  json peaks = json::object();
  for (const char* p : {"fp32", "bf16", "fp16"}) PeakFor(o, p, &peaks);
  std::mt19937 rng(5);
  const std::vector<Position> pool = GamePositions(512, o.board, rng);
  json rows_out = json::array();
  std::printf("   %-32s %6s %10s %12s %10s %7s\n", "config", "batch", "ms/batch", "positions/s", "TFLOP/s", "MFU");
  for (const Config& c : configs) {
    ForwardOptions f;
    f.precision = c.precision;
    f.cuda_graphs = c.graphs;
    f.channels_last = c.channels_last;
    f.max_batch = max_batch;
    const double t0 = Now();
    CudaForward gpu(MakeNet(o), MakeInfo(o), ResolveDevice(o.device), f);
    const double setup_s = Now() - t0;
    std::printf("   %s  [set-up %.2f s: %s]\n", c.name.c_str(), setup_s, gpu.Describe().c_str());
    const double peak = PeakFor(o, c.precision, &peaks);
    for (int batch : o.batches) {
      const size_t stride = PlaneFloats(o.board);
      std::vector<float> planes(batch * stride), logp(batch * o.board * o.board), value(batch);
      std::vector<uint8_t> rows(batch * CompactRowBytes(o.board));
      for (int i = 0; i < batch; ++i) {
        const Position& pos = pool[i % pool.size()];
        EncodePosition(pos, i % kNumSymmetries, planes.data() + i * stride);
        PackCompactRow(pos, i % kNumSymmetries, rows.data() + i * CompactRowBytes(o.board));
      }
      auto once = [&] {
        if (c.compact) gpu.ForwardCompact(rows.data(), batch, logp.data(), value.data());
        else gpu.Forward(planes.data(), batch, logp.data(), value.data());
      };
      for (int i = 0; i < 5; ++i) once();
      int iters = 0;
      const double start = Now();
      double elapsed = 0;
      while (iters < 10 || elapsed < o.seconds) {
        once();
        ++iters;
        elapsed = Now() - start;
      }
      const double pos_s = iters * batch / elapsed;
      const double achieved = pos_s * flops;
      std::printf("   %-32s %6d %10.3f %12.0f %10.2f %6.2f%%\n", "", batch, 1e3 * elapsed / iters, pos_s,
                  achieved / 1e12, 100.0 * achieved / peak);
      std::fflush(stdout);
      rows_out.push_back({{"config", c.name}, {"precision", c.precision}, {"cuda_graphs", c.graphs},
                          {"channels_last", c.channels_last}, {"device_encoding", c.compact}, {"batch", batch},
                          {"ms_per_batch", 1e3 * elapsed / iters}, {"positions_per_s", pos_s},
                          {"achieved_flops", achieved}, {"mfu", achieved / peak}, {"setup_s", setup_s}});
    }
  }
  (*report)["throughput"] = rows_out;
  (*report)["peak"] = peaks;
  (*report)["forward_flops_per_position"] = flops;
}

int Main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const std::string device = ResolveDevice(o.device);
  if (device == "cpu") GOMOKU_THROW(ConfigError, "bench_gpu needs a CUDA device; LibTorch sees none");
  json report;
  report["device"] = device;
  report["torch_threads"] = at::get_num_threads();
  report["quick"] = o.quick;
  std::printf("bench_gpu: device %s, %s\n", device.c_str(), o.quick ? "quick" : "full");
  const bool kernel_ok = CheckEncodeKernel(o, &report);
  const bool equal_ok = CheckEquivalence(o, &report) & CheckGraphBuckets(o, &report) &
                        CheckReloadWhileCaptured(o, &report);
  Throughput(o, &report);
  report["ok"] = kernel_ok && equal_ok;
  if (!o.out.empty()) WriteFileAtomic(o.out, report.dump(2) + "\n");
  std::printf("\nbench_gpu: %s\n", kernel_ok && equal_ok ? "all checks PASS" : "CHECK FAILED");
  return kernel_ok && equal_ok ? 0 : 1;
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) {
  return gz::GuardedMain("bench_gpu", 2, [&] { return gz::Main(argc, argv); });
}
