// A checkpoint's weights in the native forward's layout, read without LibTorch.
//
// Loading checks everything LoadCheckpoint (common/net/checkpoint.cc) checks:
// the GZCK fixed header, CRC-32, JSON header (encoder version, rule, heads),
// the file size, `expect`, this build's limits, and the tensor list against the
// architecture of model.h in LibTorch's order (parameters, then BatchNorm
// buffers), names, shapes and dtypes; every float finite.  A mismatch throws
// ModelError naming it.
//
// At load every BatchNorm (eval mode: running mean and variance, eps 1e-5) is
// folded into the convolution before it, and each 3x3 convolution's kernel is
// transformed to the Winograd domain (kernels.h) in double precision.  Then
// every subnormal of the packed weights and biases is flushed to zero
// (float_mode.h: subnormal operands are slow on many x86 cores).
// Immutable after loading; thread-safe to share.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/net/checkpoint_info.h"

namespace gz::native {

// model.h's architecture constants (that header needs LibTorch);
// tests/net/test_native_forward.cc checks they are equal.
constexpr int kValueHiddenNative = 64;        // kValueHidden
constexpr int kConvHeadChannelsNative = 32;   // kConvHeadChannels
constexpr int kMaxChannelsNative = 1024;      // PolicyValueNetImpl::kMaxChannels
constexpr int kMaxBlocksNative = 64;          // PolicyValueNetImpl::kMaxBlocks

// A 3x3 convolution (+ folded BN) in the Winograd domain.
struct Conv3x3 {
  int cin = 0, cout = 0, cin_p = 0, cout_p = 0;
  std::vector<float> u;     // [36][cin_p][cout_p]
  std::vector<float> bias;  // [cout_p]
};

// A dense layer C = A W^T + b stored transposed for the gemm kernel: a linear
// layer, or a 1x1 convolution (+ folded BN) applied to every board point.
struct Dense {
  int k = 0, n = 0, n_p = 0;  // inputs, outputs, outputs padded to kVec
  std::vector<float> w;       // [k][n_p]
  std::vector<float> bias;    // [n_p] (zeros for a layer without bias)
};

struct NativeNet {
  CheckpointInfo info;  // the file's header
  bool conv_heads = false;
  Conv3x3 input;
  std::vector<Conv3x3> tower;  // 2 per residual block
  // fc heads: policy_conv (k = channels padded), policy_fc (k = 2 S^2),
  // value_conv, value_fc1 (k = S^2).  conv heads: policy_conv, policy_out
  // (k = kConvHeadChannels), value_conv, value_fc1 (k = 2 kConvHeadChannels).
  Dense policy_conv, policy_fc, policy_out;
  Dense value_conv, value_fc1, value_fc2;
  size_t subnormals_flushed = 0;  // packed floats that were subnormal and are now zero
};

// Calls f on every packed weight and bias vector of `net` (the kernels'
// operands; the unused heads' vectors are empty).
void ForEachPacked(NativeNet& net, const std::function<void(std::vector<float>&)>& f);

// Parses a whole checkpoint file held in memory; `path` names it in errors.
NativeNet ParseNativeNet(std::string_view file, const std::string& path, const CheckpointExpect& expect = {});

// Reads `path` and parses it.  Throws IoError (unreadable) or ModelError.
NativeNet LoadNativeNet(const std::string& path, const CheckpointExpect& expect = {});

}  // namespace gz::native
