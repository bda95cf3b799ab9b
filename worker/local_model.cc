#include "worker/local_model.h"

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/net/forward_choice.h"
#include "common/search/simple_evaluators.h"

namespace gz {

void ReloadingLocalEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  if (!impl_ || wanted_ != loaded_) {
    GOMOKU_CHECK(!wanted_.empty(), "no weights set for local inference");
    if (wanted_ == "uniform") {
      impl_ = std::make_unique<UniformEvaluator>();
      forward_.clear();
    } else {
      CheckpointExpect expect;
      expect.board_size = board_size_;
      InferenceSettings settings;
      settings.backend = backend_;
      settings.device = device_;
      settings.threads = threads_;
      NetForwards net(wanted_, settings, expect);
      forward_ = net.choice().name();
      impl_ = std::make_unique<SymmetricEvaluator>(net.Make(), mode_);
    }
    loaded_ = wanted_;
    spdlog::info("local inference loaded: {}", impl_->Describe());
  }
  impl_->Evaluate(positions, results);
}

std::string ReloadingLocalEvaluator::Describe() const {
  return impl_ ? "local: " + impl_->Describe() : "local (not loaded yet): " + wanted_;
}

}  // namespace gz
