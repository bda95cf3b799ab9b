#include "common/net/forward_options.h"

#include "common/base/errors.h"
#include "common/net/native/native_forward.h"

namespace gz {

void ValidateForwardOptions(const ForwardOptions& options, const std::string& resolved_device) {
  const std::string& p = options.precision;
  if (p != "fp32" && p != "bf16" && p != "fp16")
    GOMOKU_THROW(ConfigError, "server.precision: unknown precision '" << p << "' (expected fp32, bf16 or fp16)");
  UsesNativeForward(options.backend, resolved_device);  // throws for a bad backend
  if (options.max_batch < 1 || options.max_batch > kMaxForwardBatch)
    GOMOKU_THROW(ConfigError, "forward max_batch " << options.max_batch << " outside [1, " << kMaxForwardBatch
                                                   << "] (server.max_batch x symmetries per position)");
  bool cuda_device = resolved_device == "cuda" || resolved_device.rfind("cuda:", 0) == 0;
#if !defined(GOMOKU_WITH_CUDA)
  const char* why = "this build has no CUDA path (LibTorch without CUDA)";
  cuda_device = false;
#else
  const char* why = "that needs a CUDA device";
#endif
  if (cuda_device) return;
  if (p != "fp32")
    GOMOKU_THROW(ConfigError, "server.precision: '" << p << "' requested on device '" << resolved_device << "', but "
                                                    << why << "; use fp32");
  if (options.cuda_graphs)
    GOMOKU_THROW(ConfigError, "server.cuda_graphs: CUDA graphs requested on device '"
                                  << resolved_device << "', but " << why << "; set it to false");
}

}  // namespace gz
