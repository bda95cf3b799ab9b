#include "worker/remote_setup.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

#include "common/wire/fallback_evaluator.h"

namespace gz {

void SetUpRemote(const Config& cfg, WorkerEvaluators* evals) {
  const char* sock = std::getenv("GOMOKU_INFER_SOCK");
  if (!sock || !*sock) {
    spdlog::info("GOMOKU_INFER_SOCK not set: local inference only");
    return;
  }
  FallbackOptions opt;
  opt.reconnect_initial_s = cfg.worker.reconnect_initial_s;
  opt.reconnect_max_s = cfg.worker.reconnect_max_s;
  ReloadingLocalEvaluator* local = evals->local.get();
  auto fallback = std::make_unique<FallbackEvaluator>(
      sock, HelloParams::FromConfig(cfg, "worker"),
      [local]() -> std::unique_ptr<Evaluator> { return std::make_unique<BorrowedEvaluator>(local); }, opt);
  FallbackEvaluator* raw = fallback.get();
  evals->remote_active = [raw] { return raw->remote_active(); };
  evals->fallbacks = [raw] { return raw->fallbacks(); };
  evals->reconnects = [raw] { return raw->reconnects(); };
  evals->remote = std::move(fallback);
}

}  // namespace gz
