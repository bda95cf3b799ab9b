// Torch-free facade of the network library (gomoku_net), the top of
// common/net: the factory over every forward (LoadForward, the device
// choice), random nets and FLOP figures.  Include this, not the LibTorch
// headers, from anything that only needs to load/run a network.  The types
// below it are checkpoint_info.h (what a checkpoint says) and
// forward_options.h (how a forward runs), which it includes for its users;
// nothing in common/net includes this header but the factory itself
// (forward_choice.h, net_api.cc, net_api_native.cc).
//
// Checkpoint file format (docs/file-formats.md): a fixed binary header
// (magic "GZCK", format version, header length) + JSON header (board_size,
// rule, encoder_version, channels, blocks, iteration, model_generation, seed,
// and from format version 2 heads)
// + the tensors + a CRC-32 trailer.  Loading validates everything and throws
// ModelError naming the mismatch or corruption; it never returns a half-loaded
// model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/game/board.h"
#include "common/net/checkpoint_info.h"
#include "common/net/forward_options.h"
#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"

namespace gz {

// "auto" -> "cuda" when LibTorch sees a CUDA device, else "cpu".  Other
// settings pass through after validation (throws ConfigError if "cuda" is
// asked for and unavailable).
std::string ResolveDevice(const std::string& setting);
bool CudaAvailable();

// Creates a randomly initialised network (seeded) and writes it atomically as
// a checkpoint.  Returns its info.  `heads`: "fc" | "conv" (ModelError otherwise).
CheckpointInfo CreateRandomCheckpoint(const std::string& path, int board_size, Rule rule, int channels,
                                      int blocks, uint64_t seed, int64_t iteration, int64_t model_generation,
                                      const std::string& heads = "fc");

// Loads a checkpoint into LibTorch's forward (eval mode, no-grad) on
// `device` ("cpu", "cuda", "cuda:N"), whatever inference.backend says: a
// reference for tests and benches (what plays or serves a net goes through
// ChooseForward, forward_choice.h; the engine-only build's is the native
// forward).  `threads` sets intra-op threads on CPU.
// The returned forward reports the checkpoint's model_generation.  Its
// board_size() is expect.board_size when that is set (a conv checkpoint at
// another size than its own), else the checkpoint's; a forward always runs one
// size, so positions of different sizes never share a forward (the
// SymmetricEvaluator refuses a position of another size).  *info is the
// file's header (board_size = the checkpoint's own size).
// Throws ModelError (bad/incompatible file) or IoError.
std::unique_ptr<BatchForward> LoadForward(const std::string& path, const std::string& device, int threads,
                                          const CheckpointExpect& expect = {}, CheckpointInfo* info = nullptr);

// As above, with options: the forward ChooseForward (forward_choice.h) picks
// for options.backend, device and threads: the native forward on `threads`
// threads, or on a CUDA device in a CUDA build (GOMOKU_WITH_CUDA) a
// CudaForward (common/net/cuda/cuda_forward.h), otherwise the same
// TorchForward as the overload above (fp32, after validation).
// Throws ConfigError (ValidateForwardOptions, device), ModelError, IoError.
std::unique_ptr<BatchForward> LoadForward(const std::string& path, const std::string& device, int threads,
                                          const ForwardOptions& options, const CheckpointExpect& expect = {},
                                          CheckpointInfo* info = nullptr);

// Convenience: LoadForward (LibTorch's, as above) wrapped in a SymmetricEvaluator.
std::unique_ptr<Evaluator> LoadLocalEvaluator(const std::string& path, const std::string& device, int threads,
                                              SymmetryMode mode, const CheckpointExpect& expect = {},
                                              CheckpointInfo* info = nullptr);

// FLOPs of one forward of one position (multiply-adds x 2), for MFU reports.
double ForwardFlops(int board_size, int channels, int blocks, NetHeads heads = NetHeads::kFc);

// Measured peak throughput of `device` ("cpu", "cuda", "cuda:N", "auto") in
// FLOP/s, the MFU denominator of the server's stats and bench_gpu
// (MFU = ForwardFlops x positions/s / peak):
//   - matmul_flops: repeated n x n x n products (n = matrix_size, 0 = 384 on
//     the CPU, 8192 on CUDA) in `precision` (fp32 | bf16 | fp16);
//   - conv_flops (CPU, fp32 only; else 0): a 3x3 convolution of 128 channels
//     on 15x15 at batch 8, counted in direct-convolution FLOPs.  On the CPU the
//     convolutions run in oneDNN, which can be several times faster than the
//     BLAS product, and a product-only peak made the CPU MFU read over 100%;
//   - flops: the larger of the two.
// Each is the best of short rounds over about `seconds` (a busy neighbour
// only lowers some rounds).  On the CPU it uses the current intra-op thread
// count.  Throws ConfigError for a bad precision, matrix_size outside
// [16, 32768], seconds outside (0, 60], or an unavailable device.  Not
// thread-safe with other work on the device (it measures the device, so run
// it alone).
struct PeakFlops {
  double flops = 0;
  double matmul_flops = 0;
  double conv_flops = 0;
};
PeakFlops MeasurePeak(const std::string& device, const std::string& precision = "fp32", int matrix_size = 0,
                      double seconds = 0.25);
// MeasurePeak(...).flops.
double MeasurePeakFlops(const std::string& device, const std::string& precision = "fp32", int matrix_size = 0,
                        double seconds = 0.25);

}  // namespace gz
