#include "worker/remote_setup.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

namespace gz {

void SetUpRemote(const Config& cfg, WorkerEvaluators* evals) {
  const char* sock = std::getenv("GOMOKU_INFER_SOCK");
  if (!sock || !*sock) {
    spdlog::info("GOMOKU_INFER_SOCK not set: local inference only");
    return;
  }
  // Wired up to FallbackEvaluator once the remote client lands.
  spdlog::error("remote inference requested ({}) but not available in this build: falling back to local inference",
                sock);
}

}  // namespace gz
