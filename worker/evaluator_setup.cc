#include "worker/evaluator_setup.h"

#include <spdlog/spdlog.h>

#include "common/game/encoder.h"
#include "common/search/size_router.h"
#include "common/search/symmetric_batch.h"
#include "common/wire/fallback_evaluator.h"

namespace gz {

HelloParams HelloFromConfig(const Config& c, const std::string& client_name) {
  HelloParams p;
  p.board_size = c.board.size;
  p.rule = c.rule();
  p.symmetry = ParseSymmetryMode(c.inference.symmetry);
  p.encoder_version = kEncoderVersion;
  p.client_name = client_name;
  return p;
}

FallbackOptions FallbackOptionsFromConfig(const Config& c) {
  FallbackOptions o;
  o.reconnect_initial_s = c.worker.reconnect_initial_s;
  o.reconnect_max_s = c.worker.reconnect_max_s;
  return o;
}

void SetUpLocal(const Config& cfg, WorkerEvaluators* evals) {
  auto router = std::make_unique<SizeRouter>();
  for (int size : cfg.board_sizes()) {
    auto local = std::make_unique<ReloadingLocalEvaluator>(cfg.inference.device, cfg.inference.threads,
                                                           ParseSymmetryMode(cfg.inference.symmetry), size,
                                                           cfg.inference.backend);
    router->Add(size, std::make_unique<BorrowedEvaluator>(local.get()));
    evals->local[size] = std::move(local);
  }
  evals->local_router = std::move(router);
}

void SetUpRemote(const Config& cfg, WorkerEvaluators* evals) {
  // The seed's contract: a worker uses the server when GOMOKU_INFER_SOCK is
  // set (Config::Load binds it to server.socket), local inference otherwise.
  if (!cfg.from_environment("server.socket")) {
    spdlog::info("GOMOKU_INFER_SOCK not set: local inference only");
    return;
  }
  const std::string sock = cfg.server.socket;
  const FallbackOptions opt = FallbackOptionsFromConfig(cfg);
  auto router = std::make_unique<SizeRouter>();
  std::vector<FallbackEvaluator*> lanes;
  for (auto& [size, local_ptr] : evals->local) {
    ReloadingLocalEvaluator* local = local_ptr.get();
    HelloParams hello = HelloFromConfig(cfg, "worker");
    hello.board_size = size;
    auto fallback = std::make_unique<FallbackEvaluator>(
        sock, hello, [local]() -> std::unique_ptr<Evaluator> { return std::make_unique<BorrowedEvaluator>(local); },
        opt);
    lanes.push_back(fallback.get());
    router->Add(size, std::move(fallback));
  }
  evals->remote_active = [lanes] {
    for (auto* l : lanes)
      if (!l->remote_active()) return false;
    return true;
  };
  evals->fallbacks = [lanes] {
    int64_t n = 0;
    for (auto* l : lanes) n += l->fallbacks();
    return n;
  };
  evals->reconnects = [lanes] {
    int64_t n = 0;
    for (auto* l : lanes) n += l->reconnects();
    return n;
  };
  evals->set_min_generation = [lanes](int64_t g) {
    for (auto* l : lanes) l->set_min_generation(g);
  };
  evals->remote = std::move(router);
}

}  // namespace gz
