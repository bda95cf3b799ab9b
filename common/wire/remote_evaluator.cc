#include "common/wire/remote_evaluator.h"

#include "common/base/errors.h"

namespace gz {

RemoteEvaluator::RemoteEvaluator(std::string socket_path, HelloParams hello, RemoteOptions options)
    : path_(std::move(socket_path)), hello_(std::move(hello)), options_(options) {
  Connect();
}

void RemoteEvaluator::Connect() {
  client_.reset();
  auto c = std::make_unique<WireClient>(path_, options_.connect_timeout_s);
  wire::HelloOk ok = c->Hello(hello_, options_.call_timeout_s);
  last_generation_ = ok.model_generation;
  client_ = std::move(c);
}

void RemoteEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  GOMOKU_CHECK(positions.size() == results.size(), "positions/results size mismatch");
  if (positions.empty()) return;
  for (const Position& p : positions)
    if (p.size != hello_.board_size)
      GOMOKU_THROW(ModelError, "position of size " << p.size << " but the server connection plays "
                                                   << hello_.board_size);
  // The server closes connections that stay silent past its idle timeout;
  // notice that before sending and open a fresh one.
  bool fresh = false;
  if (!client_ || client_->PeerClosed()) {
    Connect();
    fresh = true;
  }
  try {
    last_generation_ = client_->Infer(positions, results, options_.call_timeout_s);
  } catch (const ServerTimeoutError&) {
    client_.reset();
    throw;
  } catch (const ServerUnavailableError&) {
    client_.reset();
    if (fresh) throw;
    // A reused connection may have been closed for idleness just as we sent;
    // evaluation is idempotent, so try once more on a new connection.  A dead
    // server fails the reconnect at once.
    Connect();
    last_generation_ = client_->Infer(positions, results, options_.call_timeout_s);
  }
}

std::string RemoteEvaluator::Describe() const {
  return "remote evaluator via inference server at " + path_ + " (board " + std::to_string(hello_.board_size) +
         ", symmetry " + SymmetryModeName(hello_.symmetry) + ")";
}

}  // namespace gz
