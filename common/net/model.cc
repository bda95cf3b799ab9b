#include "common/net/model.h"

#include <ATen/CPUGeneratorImpl.h>
#include <cmath>

#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/base/errors.h"

namespace gz {
namespace {

torch::nn::Conv2d Conv(int in, int out, int kernel) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(false));
}

}  // namespace

ResidualBlockImpl::ResidualBlockImpl(int channels) {
  conv1 = register_module("conv1", Conv(channels, channels, 3));
  bn1 = register_module("bn1", torch::nn::BatchNorm2d(channels));
  conv2 = register_module("conv2", Conv(channels, channels, 3));
  bn2 = register_module("bn2", torch::nn::BatchNorm2d(channels));
}

torch::Tensor ResidualBlockImpl::forward(torch::Tensor x) {
  torch::Tensor y = torch::relu(bn1->forward(conv1->forward(x)));
  y = bn2->forward(conv2->forward(y));
  return torch::relu(y + x);
}

PolicyValueNetImpl::PolicyValueNetImpl(int board_size_in, int channels_in, int blocks_in, NetHeads heads_in)
    : board_size(board_size_in), channels(channels_in), blocks(blocks_in), heads(heads_in) {
  GOMOKU_CHECK(board_size >= kMinBoardSize && board_size <= kMaxBoardSize,
               "network board size " << board_size << " outside [" << kMinBoardSize << ", " << kMaxBoardSize << "]");
  GOMOKU_CHECK(channels >= 1 && channels <= kMaxChannels,
               "network channels " << channels << " outside [1, " << kMaxChannels << "]");
  GOMOKU_CHECK(blocks >= 0 && blocks <= kMaxBlocks, "network blocks " << blocks << " outside [0, " << kMaxBlocks << "]");
  const int points = board_size * board_size;
  input_conv = register_module("input_conv", Conv(kNumPlanes, channels, 3));
  input_bn = register_module("input_bn", torch::nn::BatchNorm2d(channels));
  tower = register_module("tower", torch::nn::ModuleList());
  for (int i = 0; i < blocks; ++i) tower->push_back(ResidualBlock(channels));
  if (heads == NetHeads::kConv) {
    policy_conv = register_module("policy_conv", Conv(channels, kConvHeadChannels, 1));
    policy_bn = register_module("policy_bn", torch::nn::BatchNorm2d(kConvHeadChannels));
    policy_out = register_module("policy_out", Conv(kConvHeadChannels, 1, 1));
    value_conv = register_module("value_conv", Conv(channels, kConvHeadChannels, 1));
    value_bn = register_module("value_bn", torch::nn::BatchNorm2d(kConvHeadChannels));
    value_fc1 = register_module("value_fc1", torch::nn::Linear(2 * kConvHeadChannels, kValueHidden));
    value_fc2 = register_module("value_fc2", torch::nn::Linear(kValueHidden, 1));
    return;
  }
  policy_conv = register_module("policy_conv", Conv(channels, 2, 1));
  policy_bn = register_module("policy_bn", torch::nn::BatchNorm2d(2));
  policy_fc = register_module("policy_fc", torch::nn::Linear(2 * points, points));
  value_conv = register_module("value_conv", Conv(channels, 1, 1));
  value_bn = register_module("value_bn", torch::nn::BatchNorm2d(1));
  value_fc1 = register_module("value_fc1", torch::nn::Linear(points, kValueHidden));
  value_fc2 = register_module("value_fc2", torch::nn::Linear(kValueHidden, 1));
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::forward(torch::Tensor planes) {
  if (heads == NetHeads::kConv) return ForwardConv(planes);
  TORCH_CHECK(planes.dim() == 4 && planes.size(1) == kNumPlanes && planes.size(2) == board_size &&
                  planes.size(3) == board_size,
              "PolicyValueNet expects [N, ", kNumPlanes, ", ", board_size, ", ", board_size, "] planes, got ",
              planes.sizes());
  const int64_t n = planes.size(0);
  torch::Tensor x = Tower(planes);

  torch::Tensor p = torch::relu(policy_bn->forward(policy_conv->forward(x)));
  p = policy_fc->forward(p.reshape({n, -1}));
  torch::Tensor log_policy = torch::log_softmax(p, /*dim=*/1);

  torch::Tensor v = torch::relu(value_bn->forward(value_conv->forward(x)));
  v = torch::relu(value_fc1->forward(v.reshape({n, -1})));
  torch::Tensor value = torch::tanh(value_fc2->forward(v)).reshape({n});
  return {log_policy, value};
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::ForwardConv(torch::Tensor planes) {
  TORCH_CHECK(planes.dim() == 4 && planes.size(1) == kNumPlanes && planes.size(2) == planes.size(3) &&
                  planes.size(2) >= kMinBoardSize && planes.size(2) <= kMaxBoardSize,
              "PolicyValueNet (conv heads) expects [N, ", kNumPlanes, ", S, S] planes with S in [", kMinBoardSize,
              ", ", kMaxBoardSize, "], got ", planes.sizes());
  return ConvHeads(Tower(planes));
}

torch::Tensor PolicyValueNetImpl::Tower(torch::Tensor planes) {
  torch::Tensor x = torch::relu(input_bn->forward(input_conv->forward(planes)));
  for (const auto& block : *tower) x = block->as<ResidualBlock>()->forward(x);
  return x;
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::ConvHeads(torch::Tensor x) {
  const int64_t n = x.size(0);
  torch::Tensor p = torch::relu(policy_bn->forward(policy_conv->forward(x)));
  p = policy_out->forward(p).reshape({n, -1});
  torch::Tensor log_policy = torch::log_softmax(p, /*dim=*/1);

  torch::Tensor v = torch::relu(value_bn->forward(value_conv->forward(x)));
  v = torch::cat({v.mean({2, 3}), v.amax({2, 3})}, /*dim=*/1);  // [N, 2 * kConvHeadChannels]
  v = torch::relu(value_fc1->forward(v));
  torch::Tensor value = torch::tanh(value_fc2->forward(v)).reshape({n});
  return {log_policy, value};
}

void PolicyValueNetImpl::InitSeeded(uint64_t seed) {
  torch::NoGradGuard no_grad;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  // Fills `param` (any device) with U(-bound, bound) drawn on the CPU.
  auto fill_uniform = [&gen](torch::Tensor& param, double bound) {
    torch::Tensor t = torch::empty(param.sizes(), torch::TensorOptions().dtype(param.dtype()));
    t.uniform_(-bound, bound, gen);
    param.copy_(t);
  };
  // modules() lists submodules in registration order, so the draw order (and
  // hence the result) is fixed by the architecture.
  for (const auto& m : modules(/*include_self=*/false)) {
    if (auto* conv = m->as<torch::nn::Conv2d>()) {
      const double fan_in = static_cast<double>(conv->weight.numel() / conv->weight.size(0));
      fill_uniform(conv->weight, 1.0 / std::sqrt(fan_in));
      if (conv->bias.defined()) fill_uniform(conv->bias, 1.0 / std::sqrt(fan_in));
    } else if (auto* fc = m->as<torch::nn::Linear>()) {
      const double fan_in = static_cast<double>(fc->weight.size(1));
      fill_uniform(fc->weight, 1.0 / std::sqrt(fan_in));
      if (fc->bias.defined()) fill_uniform(fc->bias, 1.0 / std::sqrt(fan_in));
    } else if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
      bn->weight.fill_(1.0);
      bn->bias.zero_();
      bn->running_mean.zero_();
      bn->running_var.fill_(1.0);
      bn->num_batches_tracked.zero_();
    }
  }
}

}  // namespace gz
