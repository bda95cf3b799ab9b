#include "worker/local_model.h"

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/net/native/native_forward.h"
#include "common/net/net_api.h"
#include "common/search/simple_evaluators.h"

namespace gz {

void ReloadingLocalEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  if (!impl_ || wanted_ != loaded_) {
    GOMOKU_CHECK(!wanted_.empty(), "no weights set for local inference");
    if (wanted_ == "uniform") {
      impl_ = std::make_unique<UniformEvaluator>();
    } else {
      CheckpointExpect expect;
      expect.board_size = board_size_;
      if (UsesNativeForward(backend_, ResolveDevice(device_)))
        impl_ = std::make_unique<SymmetricEvaluator>(LoadNativeForward(wanted_, expect), mode_);
      else
        impl_ = LoadLocalEvaluator(wanted_, device_, threads_, mode_, expect);
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
