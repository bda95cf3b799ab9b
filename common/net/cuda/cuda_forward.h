// BatchForward on a CUDA device: the inference server's GPU backend
// (docs/gpu.md).  Compiled only in CUDA builds (GOMOKU_WITH_CUDA); include it
// only from code that is.
//
// What it does, each part named by Describe():
//   - the module lives on the GPU in eval mode; every forward runs under
//     c10::InferenceMode;
//   - precision fp32 (default; the equivalence reference: it switches TF32
//     off process-wide for cuDNN and cuBLAS), bf16 or fp16: the
//     conv and linear weights are converted, BatchNorm parameters and running
//     statistics stay fp32; the planes are converted on the device and the
//     outputs converted back to fp32;
//   - channels-last memory format for the conv weights and the input;
//   - pinned host buffers and asynchronous copies on a dedicated CUDA stream
//     (one stream synchronisation per forward);
//   - optional CUDA Graphs: after a warm-up, one graph per batch-size bucket
//     (batch_buckets.h) is captured over static device input/output tensors;
//     a batch is padded up to its bucket (padding rows keep whatever valid
//     planes an earlier batch left, and their outputs are dropped);
//   - device-side encoding: ForwardCompact / ForwardPositions send compact
//     rows (compact_row.h) and encode them with the CUDA kernel
//     (encode_kernel.h), so only ~P+4 bytes per row cross the bus.  With
//     options.device_encode (server.device_encode, default on) the inference
//     server uses ForwardCompact for every batch (TakesCompactRows).
// Batches larger than options.max_batch are run in chunks of max_batch.
//
// Thread-safety: one caller at a time (BatchForward contract).  Graph capture
// happens in the constructor; with LibTorch < 2.3 it uses the global capture
// mode, so no other thread of the process may call CUDA while a CudaForward
// with graphs is being constructed (newer LibTorch: thread-local mode).
// Owns the module, the stream's work and the buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <c10/cuda/CUDAStream.h>

#include "common/net/checkpoint_info.h"
#include "common/net/forward_options.h"
#include "common/net/model.h"
#include "common/search/evaluator.h"

namespace at::cuda {
struct CUDAGraph;
}  // namespace at::cuda

namespace gz {

class CudaForward : public BatchForward {
 public:
  // `device`: a resolved CUDA device string ("cuda" or "cuda:N"; see
  // ResolveDevice).  `options` are validated (ValidateForwardOptions).
  // Throws ConfigError (bad device or options) or ModelError (the network
  // cannot be moved to the device, or warm-up / graph capture failed).
  CudaForward(PolicyValueNet net, const CheckpointInfo& info, const std::string& device,
              const ForwardOptions& options, std::string source = "");
  ~CudaForward() override;
  CudaForward(const CudaForward&) = delete;
  CudaForward& operator=(const CudaForward&) = delete;

  // planes: n x kNumPlanes x S x S floats in host memory.  Writes n x S*S
  // log-probabilities and n values (fp32).  n == 0 is a no-op.  Returns the
  // checkpoint's model_generation.  Throws GomokuError if CUDA/LibTorch fails.
  int64_t Forward(const float* planes, int n, float* log_policy, float* value) override;

  // rows: n compact rows in host memory (n * CompactRowBytes(S) bytes,
  // compact_row.h), encoded on the device.  Same outputs as Forward on the
  // planes EncodePosition would produce.
  int64_t ForwardCompact(const uint8_t* rows, int n, float* log_policy, float* value) override;
  // options.device_encode: the inference server sends compact rows.
  bool TakesCompactRows() const override { return options_.device_encode; }

  // Packs positions[i] under symmetry syms[i] straight into the pinned
  // staging buffer, then as ForwardCompact.  Throws ModelError for a position
  // of another board size, GomokuError for mismatched spans.
  int64_t ForwardPositions(std::span<const Position> positions, std::span<const uint8_t> syms, float* log_policy,
                           float* value);

  int board_size() const override { return info_.board_size; }
  std::string Describe() const override;

  const CheckpointInfo& info() const { return info_; }
  const ForwardOptions& options() const { return options_; }

 private:
  struct Captured;
  // Source of one chunk's input: copies/encodes rows [offset, offset+count)
  // into dev_planes_ rows [0, count) on stream_.
  enum class InputKind { kPlanes, kCompactRows, kPositions };
  struct InputRef {
    InputKind kind = InputKind::kPlanes;
    const float* planes = nullptr;
    const uint8_t* rows = nullptr;
    std::span<const Position> positions;
    std::span<const uint8_t> syms;
  };

  void PrepareModule();
  void CaptureGraphs();
  std::pair<torch::Tensor, torch::Tensor> RunNet(const torch::Tensor& planes);
  void StageChunk(const InputRef& input, int offset, int count);
  void RunChunk(int count, float* log_policy, float* value);
  int64_t ForwardAll(const InputRef& input, int n, float* log_policy, float* value);

  PolicyValueNet net_;
  CheckpointInfo info_;
  torch::Device device_;
  ForwardOptions options_;
  std::string source_;
  std::string device_name_;
  torch::ScalarType dtype_ = torch::kFloat;
  c10::cuda::CUDAStream stream_;

  torch::Tensor host_planes_, host_rows_, host_log_policy_, host_value_;  // pinned
  torch::Tensor dev_planes_, dev_rows_;                                   // static device input
  std::vector<std::unique_ptr<Captured>> graphs_;                         // ascending bucket
  std::vector<int> buckets_;
};

}  // namespace gz
