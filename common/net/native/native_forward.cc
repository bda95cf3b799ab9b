#include "common/net/native/native_forward.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "common/base/errors.h"
#include "common/game/encoder.h"
#include "common/net/native/float_mode.h"
#include "common/net/native/kernels.h"
#include "common/net/native/native_net.h"

namespace gz {
namespace {

using native::kVec;
using native::kWinoPoints;

// Floats of one Winograd buffer (V or M) per chunk of positions, about 320 KB:
// a chunk goes through the whole net before the next one starts, so its
// activations and transformed tiles stay in the L2 cache (a batch of 16 32x4
// positions at once ran slower per position than one at a time).
constexpr size_t kChunkFloats = 80 * 1024;

class NativeForward : public BatchForward {
 public:
  NativeForward(std::shared_ptr<const native::NativeNet> net, int size, const native::Kernels& kernels,
                std::string source)
      : owner_(std::move(net)), net_(*owner_), k_(kernels), source_(std::move(source)), size_(size) {
    tiles_side_ = (size_ + 3) / 4;
    side_ = 4 * tiles_side_ + 2;
    cp_ = native::PadChannels(net_.info.channels);
    const size_t per_position = static_cast<size_t>(kWinoPoints) * tiles_side_ * tiles_side_ * std::max(cp_, kVec);
    chunk_ = static_cast<int>(std::max<size_t>(1, kChunkFloats / per_position));
  }

  int64_t Forward(const float* planes, int n, float* log_policy, float* value) override;
  // Forward of n <= chunk_ positions.
  void ForwardChunk(const float* planes, int n, float* log_policy, float* value);
  int board_size() const override { return size_; }
  std::string Describe() const override { return DescribeWith(1); }
  std::string DescribeWith(int threads) const {
    std::ostringstream os;
    os << "native CPU forward (" << k_.name << " kernels, Winograd F(4x4,3x3), " << threads
       << (threads == 1 ? " thread" : " threads") << ") of " << source_ << " (" << net_.info.channels << "x"
       << net_.info.blocks << " " << net_.info.heads << " heads, iteration " << net_.info.iteration << ") on "
       << size_ << "x" << size_;
    return os.str();
  }
  // Positions that go through the whole net together (Forward cuts a batch into chunks of it).
  int chunk() const { return chunk_; }

 private:
  size_t Plane() const { return static_cast<size_t>(side_) * side_; }
  // Grows the buffers to `n` positions; new activation memory is zero (the
  // padding ring and padded channels are never written afterwards).
  void Reserve(int n);
  void Encode(const float* planes, int n);
  void Conv(const native::Conv3x3& layer, const float* src, float* dst, const float* residual, int n);
  void FcHeads(int n, float* log_policy, float* value);
  void ConvHeads(int n, float* log_policy, float* value);
  void LogSoftmax(int n, const float* logits, size_t row_stride, size_t point_stride, float* out) const;
  void Value(int n, const float* features, float* value);

  std::shared_ptr<const native::NativeNet> owner_;
  const native::NativeNet& net_;
  const native::Kernels& k_;
  std::string source_;
  int size_, tiles_side_, side_, cp_, chunk_;
  int capacity_ = 0;
  std::vector<float> input_, a_, b_;    // activations [n][Plane()][Cp]
  std::vector<float> v_, m_;            // Winograd buffers of one chunk
  std::vector<float> head_, head2_;     // per point head outputs [n][Plane()][8 or 32]
  std::vector<float> features_, hidden_, logits_, out_;
};

void NativeForward::Reserve(int n) {
  if (n <= capacity_) return;
  capacity_ = n;
  const size_t plane = Plane();
  input_.assign(n * plane * kVec, 0.0f);
  a_.assign(n * plane * cp_, 0.0f);
  b_.assign(n * plane * cp_, 0.0f);
  const size_t chunk_tiles = static_cast<size_t>(chunk_) * tiles_side_ * tiles_side_;
  v_.assign(kWinoPoints * native::WinoStride(static_cast<int>(chunk_tiles), std::max(cp_, kVec)), 0.0f);
  m_.assign(kWinoPoints * native::WinoStride(static_cast<int>(chunk_tiles), cp_), 0.0f);
  const int head_width = std::max(net_.policy_conv.n_p, net_.value_conv.n_p);
  head_.assign(n * plane * head_width, 0.0f);
  head2_.assign(n * plane * head_width, 0.0f);
  const size_t points = static_cast<size_t>(size_) * size_;
  features_.assign(n * std::max<size_t>(2 * points, 2 * native::kConvHeadChannelsNative), 0.0f);
  hidden_.assign(n * static_cast<size_t>(native::kValueHiddenNative), 0.0f);
  logits_.assign(n * (points + kVec), 0.0f);
  out_.assign(n * static_cast<size_t>(kVec), 0.0f);
}

// NCHW planes -> the padded channels-last layout (interior only).
void NativeForward::Encode(const float* planes, int n) {
  const size_t plane = Plane();
  for (int pos = 0; pos < n; ++pos)
    for (int c = 0; c < kNumPlanes; ++c)
      for (int y = 0; y < size_; ++y)
        for (int x = 0; x < size_; ++x)
          input_[(pos * plane + static_cast<size_t>(y + 1) * side_ + x + 1) * kVec + c] =
              planes[((static_cast<size_t>(pos) * kNumPlanes + c) * size_ + y) * size_ + x];
}

// One 3x3 convolution of n <= chunk_ positions: input transform, the 36
// products, output transform (+ bias, + residual, ReLU).
void NativeForward::Conv(const native::Conv3x3& layer, const float* src, float* dst, const float* residual, int n) {
  const int tiles = n * tiles_side_ * tiles_side_;
  k_.winograd_input(src, n, tiles_side_, layer.cin_p, v_.data());
  for (int xi = 0; xi < kWinoPoints; ++xi)
    k_.gemm(tiles, layer.cout_p, layer.cin_p, v_.data() + xi * native::WinoStride(tiles, layer.cin_p), layer.cin_p,
            layer.u.data() + static_cast<size_t>(xi) * layer.cin_p * layer.cout_p, layer.cout_p,
            m_.data() + xi * native::WinoStride(tiles, layer.cout_p), layer.cout_p, nullptr, false);
  k_.winograd_output(m_.data(), n, tiles_side_, size_, layer.cout_p, layer.bias.data(), residual, true, dst);
}

// out[pos * points + i] = log_softmax over the points of one position; the
// logit of point i (row-major y*S+x) is logits[pos*row_stride + index(i)]
// where index walks the padded plane when point_stride is 0, else i*point_stride.
void NativeForward::LogSoftmax(int n, const float* logits, size_t row_stride, size_t point_stride, float* out) const {
  const int points = size_ * size_;
  std::vector<float> row(points);
  for (int pos = 0; pos < n; ++pos) {
    const float* l = logits + pos * row_stride;
    for (int i = 0; i < points; ++i)
      row[i] = point_stride ? l[i * point_stride]
                            : l[(static_cast<size_t>(i / size_ + 1) * side_ + i % size_ + 1) * static_cast<size_t>(kVec)];
    const float mx = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (float x : row) sum += std::exp(static_cast<double>(x - mx));
    const float lse = mx + static_cast<float>(std::log(sum));
    for (int i = 0; i < points; ++i) out[static_cast<size_t>(pos) * points + i] = row[i] - lse;
  }
}

// value_fc1 (+ReLU), value_fc2, tanh over features [n][value_fc1.k].
void NativeForward::Value(int n, const float* features, float* value) {
  const auto& fc1 = net_.value_fc1;
  const auto& fc2 = net_.value_fc2;
  k_.gemm(n, fc1.n_p, fc1.k, features, fc1.k, fc1.w.data(), fc1.n_p, hidden_.data(), fc1.n_p, fc1.bias.data(), true);
  k_.gemm(n, fc2.n_p, fc2.k, hidden_.data(), fc1.n_p, fc2.w.data(), fc2.n_p, out_.data(), fc2.n_p, fc2.bias.data(),
          false);
  for (int pos = 0; pos < n; ++pos) value[pos] = std::tanh(out_[static_cast<size_t>(pos) * fc2.n_p]);
}

void NativeForward::FcHeads(int n, float* log_policy, float* value) {
  const size_t plane = Plane();
  const int points = size_ * size_;
  const auto& pc = net_.policy_conv;
  const auto& vc = net_.value_conv;
  const int rows = static_cast<int>(n * plane);
  k_.gemm(rows, pc.n_p, pc.k, a_.data(), cp_, pc.w.data(), pc.n_p, head_.data(), pc.n_p, pc.bias.data(), true);
  k_.gemm(rows, vc.n_p, vc.k, a_.data(), cp_, vc.w.data(), vc.n_p, head2_.data(), vc.n_p, vc.bias.data(), true);
  // Flatten as LibTorch does ([c][y][x]) for the linear layers.
  const auto& fc = net_.policy_fc;
  for (int pos = 0; pos < n; ++pos)
    for (int i = 0; i < points; ++i) {
      const size_t at = pos * plane + static_cast<size_t>(i / size_ + 1) * side_ + i % size_ + 1;
      float* f = features_.data() + static_cast<size_t>(pos) * fc.k;
      for (int c = 0; c < pc.n; ++c) f[c * points + i] = head_[at * pc.n_p + c];
    }
  k_.gemm(n, fc.n_p, fc.k, features_.data(), fc.k, fc.w.data(), fc.n_p, logits_.data(), fc.n_p, fc.bias.data(), false);
  LogSoftmax(n, logits_.data(), fc.n_p, 1, log_policy);
  for (int pos = 0; pos < n; ++pos)
    for (int i = 0; i < points; ++i)
      features_[static_cast<size_t>(pos) * points + i] =
          head2_[(pos * plane + static_cast<size_t>(i / size_ + 1) * side_ + i % size_ + 1) * vc.n_p];
  Value(n, features_.data(), value);
}

void NativeForward::ConvHeads(int n, float* log_policy, float* value) {
  const size_t plane = Plane();
  const auto& pc = net_.policy_conv;
  const auto& po = net_.policy_out;
  const auto& vc = net_.value_conv;
  const int rows = static_cast<int>(n * plane);
  k_.gemm(rows, pc.n_p, pc.k, a_.data(), cp_, pc.w.data(), pc.n_p, head_.data(), pc.n_p, pc.bias.data(), true);
  k_.gemm(rows, po.n_p, po.k, head_.data(), pc.n_p, po.w.data(), po.n_p, head2_.data(), po.n_p, nullptr, false);
  LogSoftmax(n, head2_.data(), plane * po.n_p, 0, log_policy);
  k_.gemm(rows, vc.n_p, vc.k, a_.data(), cp_, vc.w.data(), vc.n_p, head_.data(), vc.n_p, vc.bias.data(), true);
  // Mean and max of each channel over the board: [n][2 * channels].
  const int hc = vc.n;
  const int width = net_.value_fc1.k;
  for (int pos = 0; pos < n; ++pos) {
    float* f = features_.data() + static_cast<size_t>(pos) * width;
    for (int c = 0; c < hc; ++c) {
      double sum = 0;
      float mx = -INFINITY;
      for (int y = 0; y < size_; ++y)
        for (int x = 0; x < size_; ++x) {
          const float h = head_[(pos * plane + static_cast<size_t>(y + 1) * side_ + x + 1) * vc.n_p + c];
          sum += h;
          mx = std::max(mx, h);
        }
      f[c] = static_cast<float>(sum / (size_ * size_));
      f[hc + c] = mx;
    }
  }
  Value(n, features_.data(), value);
}

int64_t NativeForward::Forward(const float* planes, int n, float* log_policy, float* value) {
  // FTZ/DAZ for this forward only: the caller's thread gets its MXCSR back
  // (float_mode.h: subnormal activations are slow on many x86 cores).
  const native::FlushDenormalsScope flush_denormals;
  const size_t points = static_cast<size_t>(size_) * size_;
  for (int p0 = 0; p0 < n; p0 += chunk_)
    ForwardChunk(planes + p0 * points * kNumPlanes, std::min(chunk_, n - p0), log_policy + p0 * points, value + p0);
  return net_.info.model_generation;
}

void NativeForward::ForwardChunk(const float* planes, int n, float* log_policy, float* value) {
  Reserve(n);
  Encode(planes, n);
  Conv(net_.input, input_.data(), a_.data(), nullptr, n);
  for (size_t i = 0; i + 1 < net_.tower.size(); i += 2) {
    Conv(net_.tower[i], a_.data(), b_.data(), nullptr, n);
    Conv(net_.tower[i + 1], b_.data(), a_.data(), a_.data(), n);
  }
  if (net_.conv_heads)
    ConvHeads(n, log_policy, value);
  else
    FcHeads(n, log_policy, value);
}

// Threads that run jobs 1..count-1 of a Run while the caller runs job 0.
// Run returns when every job has; it rethrows the first job's exception.
class Workers {
 public:
  explicit Workers(int threads) {
    for (int i = 1; i < threads; ++i) threads_.emplace_back([this, i] { Loop(i); });
  }
  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  void Run(int count, const std::function<void(int)>& job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      count_ = count;
      pending_ = count - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
      job(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void Loop(int index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= count_) continue;
      const std::function<void(int)>* job = job_;
      lock.unlock();
      std::exception_ptr error;
      try {
        (*job)(index);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int count_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

// The native forward on several threads: a batch is cut at the chunk
// boundaries a one-thread forward uses into up to `threads` runs of whole
// chunks, one per thread, each with its own buffers (the weights are
// shared), so every output is the same bits as on one thread.
class ThreadedNativeForward : public BatchForward {
 public:
  ThreadedNativeForward(std::shared_ptr<const native::NativeNet> net, int size, const native::Kernels& kernels,
                        const std::string& source, int threads)
      : workers_(threads) {
    for (int i = 0; i < threads; ++i) lanes_.push_back(std::make_unique<NativeForward>(net, size, kernels, source));
  }

  int64_t Forward(const float* planes, int n, float* log_policy, float* value) override {
    const int chunk = lanes_[0]->chunk();
    const int chunks = (n + chunk - 1) / chunk;
    const int used = std::min<int>(static_cast<int>(lanes_.size()), chunks);
    if (used <= 1) return lanes_[0]->Forward(planes, n, log_policy, value);
    const int per_lane = (chunks + used - 1) / used * chunk;  // positions, a multiple of chunk
    const size_t points = static_cast<size_t>(board_size()) * board_size();
    int64_t generation = 0;
    workers_.Run(used, [&](int lane) {
      const int first = lane * per_lane;
      const int count = std::min(n - first, per_lane);
      if (count <= 0) return;
      const int64_t g = lanes_[static_cast<size_t>(lane)]->Forward(planes + first * points * kNumPlanes, count,
                                                                    log_policy + first * points, value + first);
      if (lane == 0) generation = g;
    });
    return generation;
  }
  int board_size() const override { return lanes_[0]->board_size(); }
  std::string Describe() const override { return lanes_[0]->DescribeWith(static_cast<int>(lanes_.size())); }

 private:
  std::vector<std::unique_ptr<NativeForward>> lanes_;
  Workers workers_;
};

}  // namespace

bool UsesNativeForward(const std::string& backend, const std::string& resolved_device) {
  if (backend != "auto" && backend != "native" && backend != "torch")
    GOMOKU_THROW(ConfigError, "inference.backend: unknown backend '" << backend << "' (expected auto, native or torch)");
  if (backend == "native" && resolved_device != "cpu")
    GOMOKU_THROW(ConfigError, "inference.backend native runs on the CPU, but inference.device is '"
                                  << resolved_device << "' (use inference.backend auto or torch for CUDA)");
  return backend == "native" || (backend == "auto" && resolved_device == "cpu");
}

std::unique_ptr<BatchForward> LoadNativeForwardWith(const std::string& path, const std::string& kernels,
                                                    const CheckpointExpect& expect, CheckpointInfo* info) {
  const native::Kernels* table = native::KernelsNamed(kernels);
  if (!table)
    GOMOKU_THROW(ConfigError, "native forward: kernels '" << kernels << "' are not available on this CPU or build"
                                                          << " (avx2 needs AVX2 and FMA; generic always runs)");
  auto net = std::make_shared<const native::NativeNet>(native::LoadNativeNet(path, expect));
  const int size = expect.board_size > 0 ? expect.board_size : net->info.board_size;
  if (info) *info = net->info;
  return std::make_unique<NativeForward>(std::move(net), size, *table, path);
}

std::unique_ptr<BatchForward> LoadNativeForwardWithTable(const std::string& path, const native::Kernels& kernels,
                                                         const CheckpointExpect& expect) {
  auto net = std::make_shared<const native::NativeNet>(native::LoadNativeNet(path, expect));
  const int size = expect.board_size > 0 ? expect.board_size : net->info.board_size;
  return std::make_unique<NativeForward>(std::move(net), size, kernels, path);
}

std::unique_ptr<BatchForward> LoadNativeForward(const std::string& path, const CheckpointExpect& expect,
                                                CheckpointInfo* info) {
  return LoadNativeForwardWith(path, native::BestKernels().name, expect, info);
}

std::unique_ptr<BatchForward> MakeNativeForward(std::shared_ptr<const native::NativeNet> net, int size, int threads,
                                                const std::string& source) {
  GOMOKU_CHECK(net && threads >= 1, "MakeNativeForward: no net, or threads " << threads << " < 1");
  const native::Kernels& kernels = native::BestKernels();
  if (threads == 1) return std::make_unique<NativeForward>(std::move(net), size, kernels, source);
  return std::make_unique<ThreadedNativeForward>(std::move(net), size, kernels, source, threads);
}

}  // namespace gz
