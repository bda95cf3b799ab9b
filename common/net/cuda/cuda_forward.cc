#include "common/net/cuda/cuda_forward.h"

#include <cuda_runtime_api.h>

#include <ATen/Context.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <tuple>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/net/cuda/batch_buckets.h"
#include "common/net/cuda/compact_batch.h"
#include "common/net/cuda/encode_kernel.h"

// LibTorch 2.3+ lets a capture use cudaStreamCaptureModeThreadLocal (other
// threads may keep using CUDA meanwhile); older versions capture in global mode.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define GZ_CAPTURE_THREAD_LOCAL 1
#else
#define GZ_CAPTURE_THREAD_LOCAL 0
#endif

namespace gz {

struct CudaForward::Captured {
  int batch = 0;
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  torch::Tensor log_policy, value;  // static outputs, in the graphs' shared pool
};

namespace {

// Eager forwards per bucket before its capture: the first picks kernels and
// fills the caching allocator, the second runs the way the capture will.
constexpr int kWarmupForwards = 2;

torch::Device ParseCudaDevice(const std::string& device) {
  torch::Device parsed(torch::kCPU);
  try {
    parsed = torch::Device(device);
  } catch (const c10::Error&) {
    GOMOKU_THROW(ConfigError, "inference.device: '" << device << "' is not a device (expected cuda or cuda:N)");
  }
  if (!parsed.is_cuda()) GOMOKU_THROW(ConfigError, "CudaForward needs a CUDA device, got '" << device << "'");
  if (!torch::cuda::is_available())
    GOMOKU_THROW(ConfigError, "inference.device: '" << device << "' requested but LibTorch sees no CUDA device");
  if (!parsed.has_index()) parsed = torch::Device(torch::kCUDA, c10::cuda::current_device());
  if (parsed.index() >= static_cast<int>(torch::cuda::device_count()))
    GOMOKU_THROW(ConfigError, "inference.device: '" << device << "' but only " << torch::cuda::device_count()
                                                    << " CUDA device(s) exist");
  return parsed;
}

torch::ScalarType PrecisionType(const std::string& precision) {
  if (precision == "bf16") return torch::kBFloat16;
  if (precision == "fp16") return torch::kHalf;
  return torch::kFloat;  // ValidateForwardOptions has rejected anything else
}

std::string DeviceName(int index) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) return "unknown GPU";
  return prop.name;
}

}  // namespace

CudaForward::CudaForward(PolicyValueNet net, const CheckpointInfo& info, const std::string& device,
                         const ForwardOptions& options, std::string source)
    : net_(std::move(net)),
      info_(info),
      device_(ParseCudaDevice(device)),
      options_(options),
      source_(std::move(source)),
      stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device_.index())) {
  ValidateForwardOptions(options_, device_.str());
  GOMOKU_CHECK(net_->board_size == info_.board_size && net_->channels == info_.channels &&
                   net_->blocks == info_.blocks,
               "CudaForward: checkpoint info does not describe the network");
  dtype_ = PrecisionType(options_.precision);
  device_name_ = DeviceName(device_.index());
  if (dtype_ == torch::kFloat) {
    // fp32 is the equivalence reference: no TF32 in convolutions or matmuls
    // (LibTorch enables TF32 for cuDNN convolutions by default).  Process-wide.
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setAllowTF32CuBLAS(false);
  }
  try {
    // Everything (weights, buffers, warm-up, capture) is ordered on stream_.
    c10::cuda::CUDAGuard device_guard(device_);
    c10::cuda::CUDAStreamGuard stream_guard(stream_);
    PrepareModule();
    const int64_t size = info_.board_size;
    const int64_t rows = options_.max_batch;
    const auto pinned = [](torch::ScalarType t) { return torch::TensorOptions().dtype(t).pinned_memory(true); };
    host_planes_ = torch::empty({rows, kNumPlanes, size, size}, pinned(torch::kFloat));
    host_rows_ = torch::empty({rows * CompactRowBytes(static_cast<int>(size))}, pinned(torch::kByte));
    host_log_policy_ = torch::empty({rows, size * size}, pinned(torch::kFloat));
    host_value_ = torch::empty({rows}, pinned(torch::kFloat));
    const auto on_device = torch::TensorOptions().device(device_);
    dev_planes_ = torch::zeros({rows, kNumPlanes, size, size}, on_device.dtype(torch::kFloat));
    dev_rows_ = torch::zeros({rows * CompactRowBytes(static_cast<int>(size))}, on_device.dtype(torch::kByte));
    if (options_.cuda_graphs) CaptureGraphs();
    stream_.synchronize();
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ModelError, "cannot set up the network on " << device_.str() << " (" << options_.precision
                                                             << "): " << e.what_without_backtrace());
  }
}

CudaForward::~CudaForward() {
  // Pending copies may still read the pinned buffers or write the outputs.
  try {
    stream_.synchronize();
  } catch (...) {
  }
}

void CudaForward::PrepareModule() {
  torch::NoGradGuard no_grad;
  net_->to(device_);
  net_->eval();
  const auto format = options_.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  // Conv/linear weights take the compute precision; BatchNorm parameters and
  // running statistics stay fp32 (LibTorch's batch norm takes reduced-precision
  // input with fp32 parameters), which keeps the normalisation accurate.
  for (const auto& module : net_->modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2d>()) {
      conv->weight.set_data(conv->weight.to(dtype_).contiguous(format));
      if (conv->bias.defined()) conv->bias.set_data(conv->bias.to(dtype_));
    } else if (auto* fc = module->as<torch::nn::Linear>()) {
      fc->weight.set_data(fc->weight.to(dtype_));
      if (fc->bias.defined()) fc->bias.set_data(fc->bias.to(dtype_));
    }
  }
}

std::pair<torch::Tensor, torch::Tensor> CudaForward::RunNet(const torch::Tensor& planes) {
  torch::Tensor x = planes.to(dtype_);
  if (options_.channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);
  auto [log_policy, value] = net_->forward(x);
  return {log_policy.to(torch::kFloat), value.to(torch::kFloat)};
}

void CudaForward::CaptureGraphs() {
  // Caller holds the device and stream guards.  One shared memory pool,
  // captured largest bucket first.  Sharing is safe here because replays are
  // serialised on stream_ and each replay's outputs are copied out before the
  // next replay; every graph's static outputs stay allocated.
  buckets_ = GraphBatchBuckets(options_.max_batch);
  const auto pool = at::cuda::graph_pool_handle();
  c10::InferenceMode inference;
  for (auto it = buckets_.rbegin(); it != buckets_.rend(); ++it) {
    const int batch = *it;
    const torch::Tensor input = dev_planes_.narrow(0, 0, batch);
    for (int i = 0; i < kWarmupForwards; ++i) RunNet(input);
    stream_.synchronize();
    auto captured = std::make_unique<Captured>();
    captured->batch = batch;
    captured->graph = std::make_unique<at::cuda::CUDAGraph>();
#if GZ_CAPTURE_THREAD_LOCAL
    captured->graph->capture_begin(pool, cudaStreamCaptureModeThreadLocal);
#else
    captured->graph->capture_begin(pool);
#endif
    try {
      std::tie(captured->log_policy, captured->value) = RunNet(input);
    } catch (...) {
      try {
        captured->graph->capture_end();  // leave the stream out of capture mode
      } catch (...) {
      }
      throw;
    }
    captured->graph->capture_end();
    graphs_.push_back(std::move(captured));
  }
  std::reverse(graphs_.begin(), graphs_.end());
}

void CudaForward::StageChunk(const InputRef& input, int offset, int count) {
  const int size = info_.board_size;
  if (input.kind == InputKind::kPlanes) {
    const size_t stride = PlaneFloats(size);
    std::memcpy(host_planes_.data_ptr<float>(), input.planes + offset * stride, sizeof(float) * count * stride);
    dev_planes_.narrow(0, 0, count).copy_(host_planes_.narrow(0, 0, count), /*non_blocking=*/true);
    return;
  }
  const int64_t row_bytes = CompactRowBytes(size);
  uint8_t* staged = host_rows_.data_ptr<uint8_t>();
  if (input.kind == InputKind::kCompactRows) {
    std::memcpy(staged, input.rows + offset * row_bytes, static_cast<size_t>(count * row_bytes));
  } else {
    PackCompactRows(input.positions.subspan(offset, count), input.syms.subspan(offset, count), size, staged);
  }
  dev_rows_.narrow(0, 0, count * row_bytes).copy_(host_rows_.narrow(0, 0, count * row_bytes), /*non_blocking=*/true);
  LaunchEncodeCompactRows(dev_rows_.data_ptr<uint8_t>(), count, size, dev_planes_.data_ptr<float>(), stream_.stream());
}

void CudaForward::RunChunk(int count, float* log_policy, float* value) {
  torch::Tensor logp, v;
  if (!graphs_.empty()) {
    const int bucket = BucketFor(buckets_, count);
    const size_t index = std::lower_bound(buckets_.begin(), buckets_.end(), bucket) - buckets_.begin();
    Captured& captured = *graphs_[index];
    captured.graph->replay();
    logp = captured.log_policy.narrow(0, 0, count);
    v = captured.value.narrow(0, 0, count);
  } else {
    std::tie(logp, v) = RunNet(dev_planes_.narrow(0, 0, count));
  }
  host_log_policy_.narrow(0, 0, count).copy_(logp, /*non_blocking=*/true);
  host_value_.narrow(0, 0, count).copy_(v, /*non_blocking=*/true);
  stream_.synchronize();
  const size_t points = static_cast<size_t>(info_.board_size) * info_.board_size;
  std::memcpy(log_policy, host_log_policy_.data_ptr<float>(), sizeof(float) * count * points);
  std::memcpy(value, host_value_.data_ptr<float>(), sizeof(float) * count);
}

int64_t CudaForward::ForwardAll(const InputRef& input, int n, float* log_policy, float* value) {
  GOMOKU_CHECK(n >= 0, "Forward: negative batch size " << n);
  if (n == 0) return info_.model_generation;
  const size_t points = static_cast<size_t>(info_.board_size) * info_.board_size;
  try {
    c10::cuda::CUDAGuard device_guard(device_);
    c10::cuda::CUDAStreamGuard stream_guard(stream_);
    c10::InferenceMode inference;
    for (int offset = 0; offset < n; offset += options_.max_batch) {
      const int count = std::min(options_.max_batch, n - offset);
      StageChunk(input, offset, count);
      RunChunk(count, log_policy + offset * points, value + offset);
    }
  } catch (const c10::Error& e) {
    GOMOKU_THROW(GomokuError, "network forward of " << n << " positions on " << device_.str()
                                                    << " failed: " << e.what_without_backtrace());
  }
  return info_.model_generation;
}

int64_t CudaForward::Forward(const float* planes, int n, float* log_policy, float* value) {
  InputRef input;
  input.kind = InputKind::kPlanes;
  input.planes = planes;
  return ForwardAll(input, n, log_policy, value);
}

int64_t CudaForward::ForwardCompact(const uint8_t* rows, int n, float* log_policy, float* value) {
  InputRef input;
  input.kind = InputKind::kCompactRows;
  input.rows = rows;
  return ForwardAll(input, n, log_policy, value);
}

int64_t CudaForward::ForwardPositions(std::span<const Position> positions, std::span<const uint8_t> syms,
                                      float* log_policy, float* value) {
  GOMOKU_CHECK(positions.size() == syms.size(),
               positions.size() << " positions but " << syms.size() << " symmetry indices");
  GOMOKU_CHECK(positions.size() <= static_cast<size_t>(INT32_MAX), "too many positions");
  for (const Position& pos : positions)
    if (pos.size != info_.board_size)
      GOMOKU_THROW(ModelError, "position of size " << pos.size << " but the network plays " << info_.board_size);
  InputRef input;
  input.kind = InputKind::kPositions;
  input.positions = positions;
  input.syms = syms;
  return ForwardAll(input, static_cast<int>(positions.size()), log_policy, value);
}

std::string CudaForward::Describe() const {
  std::ostringstream os;
  os << "torch " << device_.str() << " (" << device_name_ << "), precision " << options_.precision;
  os << (dtype_ == torch::kFloat ? " (TF32 off)" : " (conv/linear weights; batch norm fp32)");
  os << (options_.channels_last ? ", channels-last" : ", NCHW");
  if (buckets_.empty()) {
    os << ", eager (no CUDA graphs)";
  } else {
    os << ", CUDA graphs for " << buckets_.size() << " batch buckets 1.." << buckets_.back();
  }
  os << ", pinned async copies on a dedicated stream, "
     << (options_.device_encode ? "device-side encoding of the server's batches" : "host encoding (device-side encoding off)")
     << ", max batch " << options_.max_batch
     << ", net " << info_.channels << "x" << info_.blocks << ", board " << info_.board_size << ", generation "
     << info_.model_generation;
  if (!source_.empty()) os << ", " << source_;
  return os.str();
}

}  // namespace gz
