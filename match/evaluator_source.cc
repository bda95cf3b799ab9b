#include "match/evaluator_source.h"

#include <spdlog/spdlog.h>

#include <sstream>

#include "common/base/errors.h"
#include "common/net/native/native_forward.h"
#include "common/net/net_api.h"
#include "common/search/simple_evaluators.h"
#include "common/search/symmetric_batch.h"

namespace gz {

EvaluatorSource::EvaluatorSource(const std::string& weights, const Config& config)
    : weights_(weights),
      seed_(config.run.seed),
      device_(config.inference.device),
      threads_(config.inference.threads),
      symmetry_(config.inference.symmetry),
      backend_(config.inference.backend) {
  if (weights_.empty()) {
    baseline_ = std::make_unique<RolloutEvaluator>(baseline_rule_, 1, seed_);
    return;
  }
  try {
    CheckpointInfo info;
    network_ = LoadNetwork(CheckpointExpect{}, &info);
    network_board_size_ = info.board_size;
    network_heads_ = info.heads;
    network_plays_ = info.board_size;
    network_rule_ = info.rule;
    network_iteration_ = info.iteration;
    spdlog::info("engine: loaded {} ({}x{}, {}, {} ch x {} blocks, {} heads, iteration {}): {}", weights_,
                 info.board_size, info.board_size, info.rule, info.channels, info.blocks, info.heads, info.iteration,
                 network_->Describe());
  } catch (const std::exception& e) {
    load_error_ = e.what();
    network_.reset();
    spdlog::error("engine: cannot load weights {}: {}", weights_, load_error_);
  }
}

EvaluatorSource::~EvaluatorSource() = default;

std::unique_ptr<Evaluator> EvaluatorSource::LoadNetwork(const CheckpointExpect& expect, CheckpointInfo* info) const {
  const std::string device = ResolveDevice(device_);
  const bool native = backend_ == "native" || (backend_ == "auto" && device == "cpu");
  if (!native) return LoadLocalEvaluator(weights_, device, threads_, ParseSymmetryMode(symmetry_), expect, info);
  if (device != "cpu")
    GOMOKU_THROW(ConfigError, "inference.backend native runs on the CPU, but inference.device is '"
                                  << device_ << "' (use inference.backend auto or torch for CUDA)");
  return std::make_unique<SymmetricEvaluator>(LoadNativeForward(weights_, expect, info), ParseSymmetryMode(symmetry_));
}

std::string EvaluatorSource::CheckSize(int size) const {
  std::ostringstream why;
  if (size < kMinBoardSize || size > kMaxBoardSize) {
    why << "board size " << size << " is not supported (this engine plays " << kMinBoardSize << ".."
        << kMaxBoardSize << ")";
  } else if (uses_network()) {
    if (!network_)
      why << "cannot load weights " << weights_ << ": " << load_error_;
    else if (network_heads_ != "conv" && size != network_board_size_)
      why << "board size " << size << " is not supported: the checkpoint was trained for " << network_board_size_
          << "x" << network_board_size_ << " and its " << network_heads_
          << " heads play only that size (a conv-heads checkpoint plays any size)";
  }
  std::string s = why.str();
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

Evaluator& EvaluatorSource::ForGame(int size, Rule rule) {
  if (uses_network()) {
    GOMOKU_CHECK(network_ != nullptr, "no network loaded: " << load_error_);
    if (size != network_plays_) {
      GOMOKU_CHECK(network_heads_ == "conv", "the " << network_heads_ << "-heads checkpoint " << weights_
                                                   << " plays " << network_plays_ << "x" << network_plays_
                                                   << ", not " << size << "x" << size);
      CheckpointExpect expect;
      expect.board_size = size;  // conv heads: the forward runs at the game's size
      network_ = LoadNetwork(expect, nullptr);
      network_plays_ = size;
      spdlog::info("engine: {} now plays {}x{}: {}", weights_, size, size, network_->Describe());
    }
    if (!warned_rule_ && network_rule_ != RuleName(rule)) {
      spdlog::warn("engine: the checkpoint was trained for rule '{}' but the game uses '{}'; "
                   "the search applies the game's rule",
                   network_rule_, RuleName(rule));
      warned_rule_ = true;
    }
    return *network_;
  }
  if (rule != baseline_rule_) {
    baseline_ = std::make_unique<RolloutEvaluator>(rule, 1, seed_);
    baseline_rule_ = rule;
  }
  return *baseline_;
}

std::string EvaluatorSource::Describe() const {
  std::ostringstream os;
  if (!uses_network())
    os << "pure-MCTS baseline: " << baseline_->Describe();
  else if (!network_)
    os << "network " << weights_ << " (failed to load: " << load_error_ << ")";
  else
    os << "network " << weights_ << " (" << network_board_size_ << "x" << network_board_size_ << ", "
       << network_heads_ << " heads, " << network_rule_ << ", iteration " << network_iteration_ << ")";
  return os.str();
}

}  // namespace gz
