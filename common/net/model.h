// The policy/value network: a small AlphaZero-style residual tower.
//
//   planes [N, kNumPlanes, H, W]
//     -> conv3x3(kNumPlanes -> C) + BN + ReLU
//     -> `blocks` x residual block (conv3x3-BN-ReLU-conv3x3-BN, + skip, ReLU)
//     -> policy head: conv1x1(C -> 2) + BN + ReLU -> linear(2HW -> HW) -> log_softmax
//     -> value head:  conv1x1(C -> 1) + BN + ReLU -> linear(HW -> kValueHidden) + ReLU
//                     -> linear(kValueHidden -> 1) -> tanh
//   forward() returns (log_policy [N, H*W], value [N]).
//
// Heads (NetHeads, checkpoint_info.h; the checkpoint's "heads" field): kFc is the layout above,
// tied to one board size by its linear layers.  kConv replaces both heads by
// size-independent ones, so one net evaluates any size kMinBoardSize..kMaxBoardSize
// (the tower is all 3x3 convolutions):
//     -> policy head: conv1x1(C -> kConvHeadChannels) + BN + ReLU -> conv1x1(-> 1)
//                     -> flatten -> log_softmax over the H*W points
//     -> value head:  conv1x1(C -> kConvHeadChannels) + BN + ReLU -> mean and max over
//                     the board (2 x kConvHeadChannels) -> linear(-> kValueHidden) + ReLU
//                     -> linear(kValueHidden -> 1) -> tanh
// A kConv net's board_size is the size it was created (trained) for; forward
// accepts any square size in range.  One forward holds one size.
//
// The planes are defined by common/game/encoder.h only.  This is a normal
// trainable torch::nn::Module: the trainer uses it directly (train()/eval(),
// parameters(), to(device)).  The 3x3/1x1 convolutions that feed a BatchNorm
// have no bias.
//
// Determinism: the constructor initialises from LibTorch's global generator
// (so torch::manual_seed(s) before construction is reproducible);
// InitSeeded(seed) re-initialises every parameter and buffer from a private
// CPU generator, independent of global state, and is what
// CreateRandomCheckpoint uses.
//
// Thread-safety: a module is not thread-safe; one caller at a time (forward in
// eval mode under InferenceMode from several threads is safe in LibTorch, but
// nothing here relies on it).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <torch/torch.h>

#include "common/net/checkpoint_info.h"

namespace gz {

// Width of the value head's hidden layer (part of the architecture: changing
// it changes checkpoint shapes and ForwardFlops).
constexpr int kValueHidden = 64;
// Channels of the two 1x1 convolutions of the conv heads (architecture, like kValueHidden).
constexpr int kConvHeadChannels = 32;

struct ResidualBlockImpl : torch::nn::Module {
  explicit ResidualBlockImpl(int channels);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};
TORCH_MODULE(ResidualBlock);

struct PolicyValueNetImpl : torch::nn::Module {
  // Preconditions (GomokuError otherwise): kMinBoardSize <= board_size <=
  // kMaxBoardSize, 1 <= channels <= kMaxChannels, 0 <= blocks <= kMaxBlocks.
  PolicyValueNetImpl(int board_size, int channels, int blocks, NetHeads heads = NetHeads::kFc);

  // planes: float [N, kNumPlanes, S, S] on the module's device, S ==
  // board_size for fc heads, any S in [kMinBoardSize, kMaxBoardSize] for conv
  // heads.  Returns (log_policy [N, S^2], value [N] in [-1, 1]).
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor planes);

  // Re-initialises all parameters (LibTorch's default fan-in uniform bounds
  // for conv/linear, BN weight 1 / bias 0) and resets the BN running stats,
  // drawing only from a CPU generator seeded with `seed`.  The result is
  // identical on every machine for a given seed.
  void InitSeeded(uint64_t seed);

  // The conv-heads forward (forward() dispatches on `heads`).
  std::pair<torch::Tensor, torch::Tensor> ForwardConv(torch::Tensor planes);
  // The two halves of a forward: the stem and residual tower ([N, C, S, S]
  // features), and the conv heads on such features (heads kConv only).
  // ForwardConv(planes) == ConvHeads(Tower(planes)); common/net/head_fit.h fits
  // new heads on a trained tower's features.
  torch::Tensor Tower(torch::Tensor planes);
  std::pair<torch::Tensor, torch::Tensor> ConvHeads(torch::Tensor features);

  static constexpr int kMaxChannels = 1024;
  static constexpr int kMaxBlocks = 64;

  int board_size;
  int channels;
  int blocks;
  NetHeads heads;

  torch::nn::Conv2d input_conv{nullptr};
  torch::nn::BatchNorm2d input_bn{nullptr};
  torch::nn::ModuleList tower{nullptr};  // of ResidualBlock
  torch::nn::Conv2d policy_conv{nullptr};
  torch::nn::BatchNorm2d policy_bn{nullptr};
  torch::nn::Linear policy_fc{nullptr};   // fc heads only
  torch::nn::Conv2d policy_out{nullptr};  // conv heads only (no bias: softmax ignores it)
  torch::nn::Conv2d value_conv{nullptr};
  torch::nn::BatchNorm2d value_bn{nullptr};
  torch::nn::Linear value_fc1{nullptr}, value_fc2{nullptr};
};
TORCH_MODULE(PolicyValueNet);

}  // namespace gz
