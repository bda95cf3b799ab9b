// How a forward runs on its device (docs/gpu.md): the options LibTorch's
// forwards take (CudaForward, common/net/cuda/cuda_forward.h) and the factory
// passes on (net_api.h LoadForward, forward_choice.h NetForwards).  Torch-free;
// defined in forward_options.cc (library gomoku_net, in both builds), below the
// factory and beside LibTorch's forwards.
//
// Thread-safety: plain data and a pure function.
#pragma once

#include <string>

namespace gz {

// Largest ForwardOptions::max_batch a forward accepts (rows, i.e. positions x
// symmetries); the server caps its rows a forward by it too.
constexpr int kMaxForwardBatch = 8192;

// The defaults are the plain fp32 path; everything else is CUDA-only.
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

}  // namespace gz
