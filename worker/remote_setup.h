// Chooses the inference path of a worker: with GOMOKU_INFER_SOCK set, a
// FallbackEvaluator (server first, loud fallback to evals->local); unset,
// local inference only (exactly the foundation's path).
#pragma once

#include "common/config/config.h"
#include "worker/worker_loop.h"

namespace gz {

// Throws ProtocolError if the server refuses the handshake (wrong version,
// board, rule, encoder or symmetry): the worker must exit non-zero.
void SetUpRemote(const Config& cfg, WorkerEvaluators* evals);

}  // namespace gz
