// The native CPU forward: the policy/value network of model.h evaluated by the
// project's own kernels, with no LibTorch, BLAS or OpenMP (library
// gomoku_net_native; docs/network.md "The native CPU forward").
//
// Every net the project trains runs here: fc and conv heads, any board size a
// net plays, every rule's input planes.  BatchNorm is folded at load; the 3x3
// convolutions run as Winograd F(4x4, 3x3) products on one thread, in AVX2+FMA
// kernels where the CPU has them, else the portable ones (kernels.h).  It
// computes what TorchForward computes to within 1e-4 (tests/net/
// test_native_forward.cc checks every shipped net and random nets of both heads).
//
// Threads: LoadNativeForward's forward runs on the calling thread;
// MakeNativeForward's runs a batch on `threads` threads (inference.threads,
// docs/network.md "Which forward runs").
// Thread-safety: one caller at a time (BatchForward contract); separate
// forwards are independent.
#pragma once

#include <memory>
#include <string>

#include "common/net/checkpoint_info.h"
#include "common/search/evaluator.h"

namespace gz {

namespace native {
struct NativeNet;
}

// The backend half of the rule for inference.backend ("auto" | "native" |
// "torch"); ChooseForward (forward_choice.h) applies it wherever a net is
// loaded for inference, so call that, not this:
// whether a net on `resolved_device` ("cpu", "cuda", "cuda:N") runs on the
// native forward.  native: yes; torch: no; auto: yes on the CPU, where it is
// 2-3x faster per CPU-second (docs/benchmarks.md "The native CPU forward").
// Throws ConfigError naming inference.backend for another value, or for native
// on a device that is not the CPU.
bool UsesNativeForward(const std::string& backend, const std::string& resolved_device);

// The same contract as LoadForward (net_api.h): validates the GZCK header,
// CRC-32, encoder version, rule and heads, `expect` (board size, channels,
// blocks) and every tensor's name and shape, throwing ModelError that names
// the mismatch (IoError when the file cannot be read).  The forward's
// board_size() is expect.board_size when set (a conv net at another size),
// else the checkpoint's; *info is the file's header.  Describe() names the
// kernels used.
std::unique_ptr<BatchForward> LoadNativeForward(const std::string& path, const CheckpointExpect& expect = {},
                                                CheckpointInfo* info = nullptr);

// As above with a chosen kernel table ("avx2" | "generic", native/kernels.h),
// for tests and benchmarks that compare them.  ConfigError when this CPU or
// build lacks it.
std::unique_ptr<BatchForward> LoadNativeForwardWith(const std::string& path, const std::string& kernels,
                                                    const CheckpointExpect& expect = {}, CheckpointInfo* info = nullptr);

// A forward of weights already in memory (native_net.h; shared, immutable)
// playing size x size, on `threads` threads (>= 1), with the fastest kernels
// of this CPU.  A batch is cut at the chunk boundaries one thread uses into
// up to `threads` runs of whole chunks, one per thread (each with its own
// buffers), so the outputs are the same bits whatever `threads` is.  The
// caller has checked that the net plays `size` (CheckpointPlaysSize).  No
// file is read.  `source` names the weights in Describe(), which also says
// the thread count.
std::unique_ptr<BatchForward> MakeNativeForward(std::shared_ptr<const native::NativeNet> net, int size, int threads,
                                                const std::string& source);

namespace native {
struct Kernels;
}
// As above with a kernel table of the caller's (native/kernels.h), which must
// outlive the forward: bench_native_kernels measures other products (Eigen's)
// inside the same forward.
std::unique_ptr<BatchForward> LoadNativeForwardWithTable(const std::string& path, const native::Kernels& kernels,
                                                         const CheckpointExpect& expect = {});

}  // namespace gz
