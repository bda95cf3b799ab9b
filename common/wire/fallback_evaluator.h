// Remote inference with automatic local fallback (the worker's evaluator when
// GOMOKU_INFER_SOCK is set).
//
// - At construction it tries the server once.  Success logs one INFO line
//   "remote batched inference enabled: <path>".  An unreachable server logs an
//   ERROR "falling back to local inference: <reason>" and continues locally.
// - When a remote Evaluate fails (server died, timeout, server error), it logs
//   an ERROR "falling back to local inference: <reason>", redoes that same
//   evaluation locally (so the game goes on) and counts a fallback.
// - While local, it retries the server before an Evaluate once the backoff has
//   passed (reconnect_initial_s, doubling up to reconnect_max_s).  Success logs
//   INFO "remote batched inference restored: <path>" and counts a reconnect.
// - Answers from a model older than set_min_generation (the generation the
//   current iteration was published with) are not used: a server whose host
//   has not loaded the new weights yet (multi-host reload) is treated like
//   one that failed, the evaluation is redone locally and a fallback counted,
//   so no move of the iteration is evaluated by older weights.
// - A server that REFUSES the HELLO (protocol version, board size, rule,
//   encoder version or symmetry mismatch) is a configuration error, not a
//   fallback case: the constructor / Evaluate throws ProtocolError (a
//   ServerRefusedError) with the server's reason.
//
// The local evaluator comes from `local_factory`, called lazily the first time
// it is needed; it is dropped when the remote path is restored (the next
// fallback builds a fresh one, e.g. with newer weights).
// Thread-safety: none; one caller at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/wire/remote_evaluator.h"

namespace gz {

struct FallbackOptions {
  double reconnect_initial_s = 1.0;  // worker.reconnect_initial_s
  double reconnect_max_s = 30.0;     // worker.reconnect_max_s
  RemoteOptions remote;
};

class FallbackEvaluator : public Evaluator {
 public:
  using LocalFactory = std::function<std::unique_ptr<Evaluator>()>;
  FallbackEvaluator(std::string socket_path, HelloParams hello, LocalFactory local_factory,
                    FallbackOptions options = {});

  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override;

  // Answers of an older generation are refused from now on (see above); -1 = any.
  void set_min_generation(int64_t generation) { min_generation_ = generation; }
  bool remote_active() const { return remote_ != nullptr; }
  int64_t fallbacks() const { return fallbacks_; }    // remote -> local switches (incl. at start)
  int64_t reconnects() const { return reconnects_; }  // local -> remote switches

 private:
  // Tries to connect; true on success.  Rethrows a refused HELLO.
  bool TryConnect();
  void FallBack(const std::string& reason);

  std::string path_;
  HelloParams hello_;
  LocalFactory local_factory_;
  FallbackOptions options_;
  std::unique_ptr<RemoteEvaluator> remote_;
  std::unique_ptr<Evaluator> local_;
  double backoff_s_;
  double next_retry_at_ = 0;
  int64_t fallbacks_ = 0;
  int64_t reconnects_ = 0;
  bool ever_connected_ = false;
  int64_t min_generation_ = -1;
  std::string last_error_;
};

}  // namespace gz
