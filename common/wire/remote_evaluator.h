// Evaluator over the inference server (see docs/protocol.md).
//
// The constructor connects and says HELLO; Evaluate sends all positions as
// one INFER (split into pipelined frames only above the server's per-frame
// limit) and waits for the answers.  EvalResult.model_generation is the
// generation the server reports.  A connection the server closed while idle
// (idle timeout) is re-opened transparently: a reused connection that fails
// with ServerUnavailableError (not a timeout) is retried once on a fresh one
// (evaluation is idempotent); any other failure throws.
//
// Errors: ServerUnavailableError (no server, connection lost, timeout) and
// ServerRefusedError (the server answered with ERROR; a refused HELLO has code
// kIncompatible or kVersionMismatch).  See wire_client.h.
// Thread-safety: none; one caller at a time (like every Evaluator).
#pragma once

#include <memory>
#include <string>

#include "common/search/evaluator.h"
#include "common/wire/wire_client.h"

namespace gz {

struct RemoteOptions {
  double connect_timeout_s = 5.0;
  double call_timeout_s = 60.0;  // per Evaluate / HELLO
};

class RemoteEvaluator : public Evaluator {
 public:
  RemoteEvaluator(std::string socket_path, HelloParams hello, RemoteOptions options = {});
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override;

  // Generation the server reported at HELLO or in the last reply (-1: none yet).
  int64_t last_generation() const { return last_generation_; }
  const std::string& socket_path() const { return path_; }

 private:
  void Connect();

  std::string path_;
  HelloParams hello_;
  RemoteOptions options_;
  std::unique_ptr<WireClient> client_;
  int64_t last_generation_ = -1;
};

}  // namespace gz
