#include "worker/remote_setup.h"

#include <spdlog/spdlog.h>

#include "common/wire/fallback_evaluator.h"

namespace gz {

void SetUpRemote(const Config& cfg, WorkerEvaluators* evals) {
  // The seed's contract: a worker uses the server when GOMOKU_INFER_SOCK is
  // set (Config::Load binds it to server.socket), local inference otherwise.
  if (!cfg.from_environment("server.socket")) {
    spdlog::info("GOMOKU_INFER_SOCK not set: local inference only");
    return;
  }
  const std::string sock = cfg.server.socket;
  const FallbackOptions opt = FallbackOptions::FromConfig(cfg);
  ReloadingLocalEvaluator* local = evals->local.get();
  auto fallback = std::make_unique<FallbackEvaluator>(
      sock, HelloParams::FromConfig(cfg, "worker"),
      [local]() -> std::unique_ptr<Evaluator> { return std::make_unique<BorrowedEvaluator>(local); }, opt);
  FallbackEvaluator* raw = fallback.get();
  evals->remote_active = [raw] { return raw->remote_active(); };
  evals->fallbacks = [raw] { return raw->fallbacks(); };
  evals->reconnects = [raw] { return raw->reconnects(); };
  evals->set_min_generation = [raw](int64_t g) { raw->set_min_generation(g); };
  evals->remote = std::move(fallback);
}

}  // namespace gz
