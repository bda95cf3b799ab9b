#include "engine/evaluator_source.h"

#include <spdlog/spdlog.h>

#include <sstream>

#include "common/base/errors.h"
#include "common/net/net_api.h"
#include "common/search/simple_evaluators.h"
#include "common/search/symmetric_batch.h"

namespace gz {

EvaluatorSource::EvaluatorSource(const EngineSettings& settings)
    : weights_(settings.weights), seed_(settings.config.run.seed) {
  if (weights_.empty()) {
    baseline_ = std::make_unique<RolloutEvaluator>(baseline_rule_, 1, seed_);
    return;
  }
  try {
    const InferenceConfig& inf = settings.config.inference;
    CheckpointInfo info;
    network_ = LoadLocalEvaluator(weights_, ResolveDevice(inf.device), inf.threads, ParseSymmetryMode(inf.symmetry),
                                  CheckpointExpect{}, &info);
    network_board_size_ = info.board_size;
    network_rule_ = info.rule;
    network_iteration_ = info.iteration;
    spdlog::info("engine: loaded {} ({}x{}, {}, {} ch x {} blocks, iteration {}): {}", weights_, info.board_size,
                 info.board_size, info.rule, info.channels, info.blocks, info.iteration, network_->Describe());
  } catch (const std::exception& e) {
    load_error_ = e.what();
    network_.reset();
    spdlog::error("engine: cannot load weights {}: {}", weights_, load_error_);
  }
}

EvaluatorSource::~EvaluatorSource() = default;

std::string EvaluatorSource::CheckSize(int size) const {
  std::ostringstream why;
  if (size < kMinBoardSize || size > kMaxBoardSize) {
    why << "board size " << size << " is not supported (this engine plays " << kMinBoardSize << ".."
        << kMaxBoardSize << ")";
  } else if (uses_network()) {
    if (!network_)
      why << "cannot load weights " << weights_ << ": " << load_error_;
    else if (size != network_board_size_)
      why << "board size " << size << " is not supported: the checkpoint was trained for " << network_board_size_
          << "x" << network_board_size_;
  }
  std::string s = why.str();
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

Evaluator& EvaluatorSource::ForRule(Rule rule) {
  if (uses_network()) {
    GOMOKU_CHECK(network_ != nullptr, "no network loaded: " << load_error_);
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
       << network_rule_ << ", iteration " << network_iteration_ << ")";
  return os.str();
}

}  // namespace gz
