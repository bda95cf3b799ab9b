#include "common/search/evaluator.h"

#include "common/base/errors.h"

namespace gz {

int64_t BatchForward::ForwardCompact(const uint8_t* /*rows*/, int /*n*/, float* /*log_policy*/, float* /*value*/) {
  GOMOKU_THROW(ModelError, "this backend (" << Describe() << ") does not take compact rows; send encoded planes");
}

}  // namespace gz
