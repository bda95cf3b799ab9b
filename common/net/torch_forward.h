// BatchForward over a PolicyValueNet on one device (CPU or CUDA): the local
// inference path and the inference server's backend.
//
// The module is put in eval mode and moved to `device` at construction; each
// Forward runs under c10::InferenceMode.  Thread-safety: one caller at a time
// (BatchForward contract).  Owns the module, whose subnormal weights it
// flushes to zero at construction (FlushSubnormalWeights).
#pragma once

#include <cstdint>
#include <string>

#include "common/net/checkpoint_info.h"
#include "common/net/model.h"
#include "common/search/evaluator.h"

namespace gz {

// Makes glibc keep freed memory for reuse instead of handing every large
// tensor back to the OS (mallopt M_MMAP_THRESHOLD 32 MiB, M_TRIM_THRESHOLD
// 1 GiB).  Without it each activation of a big batch is a fresh mmap that
// page-faults on first touch: a 15x15 128x8 CPU forward at batch 64 ran ~4x
// slower (docs/network.md).  Process-wide, idempotent, thread-safe; costs
// resident memory that is not returned to the OS.  TorchForward calls it when
// it runs on the CPU; the trainer may call it too.
void TuneCpuAllocator();

// Sets every subnormal float of `net`'s parameters and buffers to zero and
// returns how many there were.  Subnormal operands take a slow microcode path
// on many x86 cores (common/net/native/float_mode.h).  For nets loaded to
// infer: a training module would lose them too.
int64_t FlushSubnormalWeights(PolicyValueNet& net);

class TorchForward : public BatchForward {
 public:
  // `device`: a resolved device string ("cpu", "cuda", "cuda:N"; see
  // ResolveDevice).  `threads` > 0 sets LibTorch's intra-op thread count
  // (process-wide) when the device is the CPU; <= 0 leaves it alone.  On
  // the CPU it also calls TuneCpuAllocator() (process-wide malloc tuning).
  // `source` names where the weights came from (for Describe()).
  // Throws ConfigError (bad device string) or ModelError (cannot move there).
  TorchForward(PolicyValueNet net, const CheckpointInfo& info, const std::string& device, int threads,
               std::string source = "");

  // planes: n x kNumPlanes x S x S floats (host memory).  Writes n x S*S
  // log-probabilities and n values.  n == 0 is a no-op.  Returns the
  // checkpoint's model_generation.  Throws GomokuError if LibTorch fails.
  int64_t Forward(const float* planes, int n, float* log_policy, float* value) override;
  int board_size() const override { return info_.board_size; }
  std::string Describe() const override;

  const CheckpointInfo& info() const { return info_; }
  PolicyValueNet& net() { return net_; }

 private:
  PolicyValueNet net_;
  CheckpointInfo info_;
  torch::Device device_;
  int threads_;
  std::string source_;
};

}  // namespace gz
