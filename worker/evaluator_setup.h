// Builds a worker's evaluators: one local evaluator per board size of the run
// (Config::board_sizes()), and with GOMOKU_INFER_SOCK set one
// FallbackEvaluator per size (server first, loud fallback to that size's
// local evaluator); unset, local inference only (exactly the foundation's
// path).  Each size has its own server connection (a connection has one
// board size, fixed by HELLO), and SizeRouter sends each position to the
// evaluator of its size, so positions of different sizes never share a batch.
#pragma once

#include "common/config/config.h"
#include "common/wire/fallback_evaluator.h"
#include "worker/worker_loop.h"

namespace gz {

// The worker's side of the wire client's settings, from its config: HELLO
// promises the run's board, rule, symmetry and our encoder version (the
// caller sets board_size per lane); the fallback's reconnect back-off is
// worker.reconnect_initial_s / worker.reconnect_max_s, default timeouts.
HelloParams HelloFromConfig(const Config& c, const std::string& client_name);
FallbackOptions FallbackOptionsFromConfig(const Config& c);

// Fills evals->local and evals->local_router.  Call before SetUpRemote.
void SetUpLocal(const Config& cfg, WorkerEvaluators* evals);

// Throws ProtocolError if the server refuses the handshake (wrong version,
// board, rule, encoder or symmetry): the worker must exit non-zero.
void SetUpRemote(const Config& cfg, WorkerEvaluators* evals);

}  // namespace gz
