// Implementation of the torch-free facade (net_api.h).
#include "common/net/net_api.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <torch/cuda.h>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/net/checkpoint.h"
#include "common/net/forward_choice.h"
#include "common/net/native/native_forward.h"
#include "common/net/checkpoint_format.h"
#include "common/net/model.h"
#include "common/net/cuda/batch_buckets.h"
#include "common/net/torch_forward.h"
#if defined(GOMOKU_WITH_CUDA)
#include "common/net/cuda/cuda_forward.h"
#endif

namespace gz {

namespace {

// A conv net plays `size` when it differs from the size it was made for: the
// forward's net and info then say `size` (the heads have no size-dependent
// weights, so only the nominal field changes), and every forward backend
// (TorchForward, CudaForward) shapes its input by it.
void RetargetToSize(PolicyValueNet& net, CheckpointInfo* info, int size) {
  if (size <= 0 || size == info->board_size) return;
  GOMOKU_CHECK(net->heads == NetHeads::kConv && CheckpointPlaysSize(*info, size),
               "a " << info->heads << "-heads net of size " << info->board_size << " cannot play size " << size);
  net->board_size = size;
  info->board_size = size;
}

}  // namespace

bool CudaAvailable() { return torch::cuda::is_available(); }

std::string ResolveDevice(const std::string& setting) {
  if (setting == "auto") return CudaAvailable() ? "cuda" : "cpu";
  if (setting == "cpu") return setting;
  if (setting == "cuda" || setting.rfind("cuda:", 0) == 0) {
    if (!CudaAvailable())
      GOMOKU_THROW(ConfigError, "inference.device: '" << setting << "' requested but LibTorch sees no CUDA device"
                                                      << " (this build or machine is CPU-only; use auto or cpu)");
    if (setting == "cuda") return setting;
    const std::string index = setting.substr(5);
    int n = -1;
    if (!index.empty() && index.size() <= 3 && index.find_first_not_of("0123456789") == std::string::npos)
      n = std::stoi(index);
    if (n < 0)
      GOMOKU_THROW(ConfigError, "inference.device: '" << setting << "' is not a device (expected cuda:N)");
    const int count = static_cast<int>(torch::cuda::device_count());
    if (n >= count)
      GOMOKU_THROW(ConfigError, "inference.device: '" << setting << "' but only " << count << " CUDA device(s) exist");
    return setting;
  }
  GOMOKU_THROW(ConfigError, "inference.device: unknown device '" << setting << "' (expected auto, cpu, cuda or cuda:N)");
}

CheckpointInfo CreateRandomCheckpoint(const std::string& path, int board_size, Rule rule, int channels, int blocks,
                                      uint64_t seed, int64_t iteration, int64_t model_generation,
                                      const std::string& heads) {
  PolicyValueNet net(board_size, channels, blocks, ParseNetHeads(heads));
  net->InitSeeded(seed);
  CheckpointInfo info;
  info.board_size = board_size;
  info.rule = RuleName(rule);
  info.channels = channels;
  info.blocks = blocks;
  info.iteration = iteration;
  info.model_generation = model_generation;
  info.seed = seed;
  info.heads = net->heads;
  SaveCheckpoint(path, net, info);
  info.format_version = static_cast<int>(CheckpointFormatVersionFor(info));
  info.encoder_version = kEncoderVersion;
  return info;
}

std::unique_ptr<BatchForward> LoadForward(const std::string& path, const std::string& device, int threads,
                                          const CheckpointExpect& expect, CheckpointInfo* info_out) {
  const std::string resolved = ResolveDevice(device);
  CheckpointInfo info;
  PolicyValueNet net = LoadCheckpoint(path, expect, &info);
  CheckpointInfo played = info;
  RetargetToSize(net, &played, expect.board_size);
  auto forward = std::make_unique<TorchForward>(std::move(net), played, resolved, threads, path);
  if (info_out) *info_out = info;
  return forward;
}

std::unique_ptr<BatchForward> LoadForward(const std::string& path, const std::string& device, int threads,
                                          const ForwardOptions& options, const CheckpointExpect& expect,
                                          CheckpointInfo* info_out) {
  ValidateForwardOptions(options, ResolveDevice(device));
  InferenceSettings settings;
  settings.backend = options.backend;
  settings.device = device;
  settings.threads = threads;
  NetForwards net(path, settings, expect, options);
  if (info_out) *info_out = net.info();
  return net.Make();
}

bool TorchForwardAvailable() { return true; }

std::unique_ptr<BatchForward> MakeTorchForward(std::string_view file, const std::string& path,
                                               const ForwardChoice& choice, const ForwardOptions& cuda, int size,
                                               CheckpointInfo* info_out) {
  ValidateForwardOptions(cuda, choice.device);
  CheckpointExpect expect;
  expect.board_size = size;
  CheckpointInfo info;
  PolicyValueNet net = ParseCheckpoint(file, path, expect, &info);
  CheckpointInfo played = info;
  RetargetToSize(net, &played, size);
  std::unique_ptr<BatchForward> forward;
#if defined(GOMOKU_WITH_CUDA)
  if (choice.device != "cpu") forward = std::make_unique<CudaForward>(net, played, choice.device, cuda, path);
#endif
  if (!forward) forward = std::make_unique<TorchForward>(net, played, choice.device, choice.threads, path);
  if (info_out) *info_out = info;
  return forward;
}

std::unique_ptr<Evaluator> LoadLocalEvaluator(const std::string& path, const std::string& device, int threads,
                                              SymmetryMode mode, const CheckpointExpect& expect,
                                              CheckpointInfo* info) {
  return std::make_unique<SymmetricEvaluator>(LoadForward(path, device, threads, expect, info), mode);
}

double ForwardFlops(int board_size, int channels, int blocks, NetHeads heads) {
  const double points = static_cast<double>(board_size) * board_size;
  const double c = channels;
  double macs = points * kNumPlanes * c * 9;          // input conv 3x3
  macs += blocks * 2.0 * points * c * c * 9;          // two 3x3 convs per block
  if (heads == NetHeads::kConv) {
    const double h = kConvHeadChannels;
    macs += points * c * h + points * h;                          // policy: conv 1x1 -> h, conv 1x1 -> 1
    macs += points * c * h + 2 * h * kValueHidden + kValueHidden;  // value: conv 1x1 -> h, 2h -> 64, 64 -> 1
    return 2.0 * macs;
  }
  macs += points * c * 2 + (2 * points) * points;     // policy: conv 1x1 -> 2, linear 2P -> P
  macs += points * c + points * kValueHidden + kValueHidden;  // value: conv 1x1 -> 1, P -> 64, 64 -> 1
  return 2.0 * macs;
}

namespace {

// The best rate of `call` (flops_per_call each) over rounds of about
// seconds/16 for about `seconds` in all (at least 3 rounds): the best round,
// not the mean, because another process taking the core for part of the
// window (a trainer starting, a worker loading) only lowers some rounds.
template <class Call, class Sync>
double BestRate(Call call, Sync sync, double flops_per_call, double seconds) {
  using Clock = std::chrono::steady_clock;
  call();  // warm-up: kernel selection, clocks, first-touch of the output
  sync();
  double best = 0;
  int group = 1, rounds = 0;
  const auto start = Clock::now();
  for (double elapsed = 0; elapsed < seconds || rounds < 3; ++rounds) {
    const auto t0 = Clock::now();
    for (int i = 0; i < group; ++i) call();
    sync();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (dt > 0) best = std::max(best, flops_per_call * group / dt);
    if (dt < seconds / 16) group *= 2;  // fewer syncs for fast devices
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return best;
}

}  // namespace

PeakFlops MeasurePeak(const std::string& device, const std::string& precision, int matrix_size, double seconds) {
  const std::string resolved = ResolveDevice(device);
  torch::ScalarType dtype = torch::kFloat;
  if (precision == "bf16") dtype = torch::kBFloat16;
  else if (precision == "fp16") dtype = torch::kHalf;
  else if (precision != "fp32")
    GOMOKU_THROW(ConfigError, "peak FLOPs: unknown precision '" << precision << "' (expected fp32, bf16 or fp16)");
  const bool cpu = resolved == "cpu";
  const int64_t n = matrix_size != 0 ? matrix_size : (cpu ? 384 : 8192);
  if (n < 16 || n > 32768) GOMOKU_THROW(ConfigError, "peak FLOPs: matrix size " << n << " outside [16, 32768]");
  if (!(seconds > 0 && seconds <= 60)) GOMOKU_THROW(ConfigError, "peak FLOPs: " << seconds << " s outside (0, 60]");
  try {
    c10::InferenceMode inference;
    const torch::Device dev(resolved);
    const auto on_device = torch::TensorOptions().device(dev);
    PeakFlops peak;
    torch::Tensor a = torch::randn({n, n}, on_device).to(dtype);
    torch::Tensor b = torch::randn({n, n}, on_device).to(dtype);
    torch::Tensor c = torch::empty({n, n}, torch::TensorOptions().device(dev).dtype(dtype));
    // Reading one element back waits for the device (a plain sync on the CPU).
    auto sync = [&c] { (void)c[0][0].item<double>(); };
    peak.matmul_flops = BestRate([&] { torch::mm_out(c, a, b); }, sync, 2.0 * static_cast<double>(n) * n * n, seconds);
    if (cpu && dtype == torch::kFloat) {
      // On the CPU the forward's convolutions run in another library (oneDNN)
      // than the matrix product (BLAS) and can be several times faster, so a
      // product-only peak gives an MFU over 1.  A 3x3 convolution of a wide
      // net at a small batch, counted in direct-convolution FLOPs, is the
      // second candidate.
      const int64_t batch = 8, ch = 128, side = 15;
      torch::Tensor x = torch::randn({batch, ch, side, side});
      torch::Tensor w = torch::randn({ch, ch, 3, 3});
      torch::Tensor y;
      peak.conv_flops = BestRate([&] { y = torch::conv2d(x, w, {}, 1, 1); }, [] {},
                                 2.0 * batch * side * side * ch * ch * 9, seconds);
    }
    peak.flops = std::max(peak.matmul_flops, peak.conv_flops);
    GOMOKU_CHECK(std::isfinite(peak.flops) && peak.flops > 0, "peak FLOPs measurement gave " << peak.flops);
    return peak;
  } catch (const c10::Error& e) {
    GOMOKU_THROW(GomokuError, "peak FLOPs on " << resolved << " (" << precision << ", n=" << n
                                                << ") failed: " << e.what_without_backtrace());
  }
}

double MeasurePeakFlops(const std::string& device, const std::string& precision, int matrix_size, double seconds) {
  return MeasurePeak(device, precision, matrix_size, seconds).flops;
}

}  // namespace gz
