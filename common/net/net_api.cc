// Implementation of the torch-free facade (net_api.h).
#include "common/net/net_api.h"

#include <malloc.h>

#include <mutex>

#include <torch/cuda.h>

#include "common/encoder.h"
#include "common/errors.h"
#include "common/net/checkpoint.h"
#include "common/net/checkpoint_format.h"
#include "common/net/model.h"
#include "common/net/torch_forward.h"

namespace gz {

CheckpointInfo ReadCheckpointInfo(const std::string& path) { return ReadCheckpointHeader(path).info; }

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
                                      uint64_t seed, int64_t iteration, int64_t model_generation) {
  PolicyValueNet net(board_size, channels, blocks);
  net->InitSeeded(seed);
  CheckpointInfo info;
  info.board_size = board_size;
  info.rule = RuleName(rule);
  info.channels = channels;
  info.blocks = blocks;
  info.iteration = iteration;
  info.model_generation = model_generation;
  info.seed = seed;
  SaveCheckpoint(path, net, info);
  info.format_version = static_cast<int>(kCheckpointFormatVersion);
  info.encoder_version = kEncoderVersion;
  return info;
}

std::unique_ptr<BatchForward> LoadForward(const std::string& path, const std::string& device, int threads,
                                          const CheckpointExpect& expect, CheckpointInfo* info_out) {
  const std::string resolved = ResolveDevice(device);
  CheckpointInfo info;
  PolicyValueNet net = LoadCheckpoint(path, expect, &info);
  auto forward = std::make_unique<TorchForward>(std::move(net), info, resolved, threads, path);
  if (info_out) *info_out = info;
  return forward;
}

std::unique_ptr<Evaluator> LoadLocalEvaluator(const std::string& path, const std::string& device, int threads,
                                              SymmetryMode mode, const CheckpointExpect& expect,
                                              CheckpointInfo* info) {
  return std::make_unique<SymmetricEvaluator>(LoadForward(path, device, threads, expect, info), mode);
}

void TuneCpuAllocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum on 64-bit
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

double ForwardFlops(int board_size, int channels, int blocks) {
  const double points = static_cast<double>(board_size) * board_size;
  const double c = channels;
  double macs = points * kNumPlanes * c * 9;          // input conv 3x3
  macs += blocks * 2.0 * points * c * c * 9;          // two 3x3 convs per block
  macs += points * c * 2 + (2 * points) * points;     // policy: conv 1x1 -> 2, linear 2P -> P
  macs += points * c + points * kValueHidden + kValueHidden;  // value: conv 1x1 -> 1, P -> 64, 64 -> 1
  return 2.0 * macs;
}

}  // namespace gz
