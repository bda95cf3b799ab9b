#include "common/net/torch_forward.h"

#include <malloc.h>

#include <ATen/Parallel.h>
#include <cfloat>
#include <cstring>
#include <mutex>
#include <sstream>

#include "common/game/encoder.h"
#include "common/base/errors.h"

namespace gz {
namespace {

torch::Device ParseDevice(const std::string& device) {
  try {
    return torch::Device(device);
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ConfigError, "inference.device: '" << device << "' is not a device (expected cpu, cuda or cuda:N)");
  }
}

}  // namespace

void TuneCpuAllocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's maximum on 64-bit
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

int64_t FlushSubnormalWeights(PolicyValueNet& net) {
  torch::NoGradGuard no_grad;
  int64_t flushed = 0;
  auto flush = [&](torch::Tensor t) {
    if (t.scalar_type() != torch::kFloat) return;  // num_batches_tracked
    const torch::Tensor subnormal = t.abs().lt(FLT_MIN).logical_and(t.ne(0));
    flushed += subnormal.sum().item<int64_t>();
    t.masked_fill_(subnormal, 0.0);
  };
  for (const auto& p : net->parameters()) flush(p);
  for (const auto& b : net->buffers()) flush(b);
  return flushed;
}

TorchForward::TorchForward(PolicyValueNet net, const CheckpointInfo& info, const std::string& device, int threads,
                           std::string source)
    : net_(std::move(net)), info_(info), device_(ParseDevice(device)), threads_(threads), source_(std::move(source)) {
  GOMOKU_CHECK(net_->board_size == info_.board_size && net_->channels == info_.channels &&
                   net_->blocks == info_.blocks,
               "TorchForward: checkpoint info does not describe the network");
  // Subnormal weights cost a microcode assist per product on many x86 cores
  // (common/net/native/float_mode.h); flushing them changes no output by more
  // than the float32 rounding does.
  FlushSubnormalWeights(net_);
  if (device_.is_cpu()) {
    TuneCpuAllocator();
    if (threads_ > 0) at::set_num_threads(threads_);
  }
  try {
    net_->to(device_);
    net_->eval();
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ModelError, "cannot move the network to " << device << ": " << e.what_without_backtrace());
  }
}

int64_t TorchForward::Forward(const float* planes, int n, float* log_policy, float* value) {
  GOMOKU_CHECK(n >= 0, "Forward: negative batch size " << n);
  if (n == 0) return info_.model_generation;
  const int64_t size = info_.board_size;
  const int64_t points = size * size;
  try {
    c10::InferenceMode inference;
    torch::Tensor input = torch::from_blob(const_cast<float*>(planes), {n, kNumPlanes, size, size}, torch::kFloat);
    if (!device_.is_cpu()) input = input.to(device_);
    auto [logp, v] = net_->forward(input);
    logp = logp.to(torch::kCPU).contiguous();
    v = v.to(torch::kCPU).contiguous();
    std::memcpy(log_policy, logp.data_ptr<float>(), sizeof(float) * static_cast<size_t>(n * points));
    std::memcpy(value, v.data_ptr<float>(), sizeof(float) * static_cast<size_t>(n));
  } catch (const c10::Error& e) {
    GOMOKU_THROW(GomokuError, "network forward of " << n << " positions on " << device_.str()
                                                    << " failed: " << e.what_without_backtrace());
  }
  return info_.model_generation;
}

std::string TorchForward::Describe() const {
  std::ostringstream os;
  os << "torch " << device_.str();
  if (device_.is_cpu()) os << " (" << at::get_num_threads() << " intra-op threads)";
  os << ", net " << info_.channels << "x" << info_.blocks << (info_.heads == NetHeads::kFc ? "" : " conv-heads")
     << ", board " << info_.board_size << ", generation "
     << info_.model_generation;
  if (!source_.empty()) os << ", " << source_;
  return os.str();
}

}  // namespace gz
