// Torch-free facade of the network library (gomoku_net).  Include this, not
// the LibTorch headers, from anything that only needs to load/run a network.
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
#include <map>
#include <string>

#include "common/game/board.h"
#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"

namespace gz {

struct CheckpointInfo {
  int format_version = 0;
  int board_size = 0;
  std::string rule;
  int encoder_version = 0;
  int channels = 0;
  int blocks = 0;
  int64_t iteration = 0;
  int64_t model_generation = 0;
  uint64_t seed = 0;
  // "fc" (format version 1 files, and the default) | "conv" (model.h NetHeads).
  // A conv checkpoint's board_size is the size it was made for; it plays any size.
  std::string heads = "fc";
  // The search settings of the run that trained the net (format version 3,
  // "play" in the header): config key -> value as `--set key=value` takes it,
  // e.g. {"mcts.solver": "true"}.  Players adopt them for every key nobody set
  // explicitly (Config::AdoptPlaySettings), so the net plays as it was rated.
  // Empty: none recorded (versions 1 and 2).
  std::map<std::string, std::string> play;
};

// Whether a checkpoint can play boards of `size`: fc heads only at
// info.board_size, conv heads at any size in [kMinBoardSize, kMaxBoardSize].
bool CheckpointPlaysSize(const CheckpointInfo& info, int size);

// What a loader expects; -1/empty = don't care.
struct CheckpointExpect {
  // The size the loaded forward will play: fc checkpoints must have it, conv
  // checkpoints accept any size in range and the forward then runs at it.
  int board_size = -1;
  int channels = -1;
  int blocks = -1;
};

// Reads and validates the header only (cheap).  Throws ModelError.
CheckpointInfo ReadCheckpointInfo(const std::string& path);

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

// Largest ForwardOptions::max_batch a forward accepts (rows, i.e. positions x
// symmetries); the server caps its rows a forward by it too.
constexpr int kMaxForwardBatch = 8192;

// How a forward runs on its device (docs/gpu.md).  The defaults are the plain
// fp32 path; everything else is CUDA-only.
struct ForwardOptions {
  std::string precision = "fp32";  // fp32 | bf16 | fp16 (server.precision; non-fp32 needs CUDA)
  bool cuda_graphs = false;        // capture CUDA Graphs per batch bucket (server.cuda_graphs; needs CUDA)
  bool channels_last = true;       // channels-last memory format on CUDA; ignored on the CPU
  bool device_encode = true;       // the server sends compact rows, encoded on the GPU (server.device_encode);
                                   // ignored on the CPU
  int max_batch = 256;             // rows (positions x symmetries) per device forward, in
                                   // [1, 8192]: sizes the pinned/static buffers and the largest
                                   // graph bucket; bigger batches run in chunks (CUDA only)
  std::string backend = "torch";   // auto | native | torch (inference.backend): native is the
                                   // project's own CPU forward (native/native_forward.h) on
                                   // `threads` threads; auto is native on the CPU, else
                                   // LibTorch (ChooseForward, forward_choice.h)
};

// Throws ConfigError naming the setting (server.precision, server.cuda_graphs,
// max_batch, inference.backend) when `options` is malformed or asks for a CUDA-only feature on a
// resolved device that is not CUDA (or in a build without the CUDA path).
void ValidateForwardOptions(const ForwardOptions& options, const std::string& resolved_device);

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

// Makes glibc keep freed memory for reuse instead of handing every large
// tensor back to the OS (mallopt M_MMAP_THRESHOLD 32 MiB, M_TRIM_THRESHOLD
// 1 GiB).  Without it each activation of a big batch is a fresh mmap that
// page-faults on first touch: a 15x15 128x8 CPU forward at batch 64 ran ~4x
// slower (docs/network.md).  Process-wide, idempotent, thread-safe; costs
// resident memory that is not returned to the OS.  TorchForward calls it when
// it runs on the CPU; the trainer may call it too.
void TuneCpuAllocator();

// FLOPs of one forward of one position (multiply-adds x 2), for MFU reports.
// `heads`: "fc" | "conv".
double ForwardFlops(int board_size, int channels, int blocks, const std::string& heads = "fc");

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
