#include "common/wire/fallback_evaluator.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {
namespace {

// A refused HELLO means this client and the server disagree on what they
// compute; falling back would silently produce different data.
bool IsHandshakeRefusal(const ServerRefusedError& e) {
  return e.code() == wire::ErrorCode::kIncompatible || e.code() == wire::ErrorCode::kVersionMismatch;
}

}  // namespace

FallbackEvaluator::FallbackEvaluator(std::string socket_path, HelloParams hello, LocalFactory local_factory,
                                     FallbackOptions options)
    : path_(std::move(socket_path)),
      hello_(std::move(hello)),
      local_factory_(std::move(local_factory)),
      options_(options),
      backoff_s_(options.reconnect_initial_s) {
  GOMOKU_CHECK(local_factory_ != nullptr, "FallbackEvaluator needs a local evaluator factory");
  GOMOKU_CHECK(options_.reconnect_initial_s > 0 && options_.reconnect_initial_s <= options_.reconnect_max_s,
               "FallbackEvaluator: need 0 < reconnect_initial_s <= reconnect_max_s");
  if (TryConnect()) {
    spdlog::info("remote batched inference enabled: {}", path_);
  } else {
    FallBack(last_error_);
  }
}

bool FallbackEvaluator::TryConnect() {
  try {
    remote_ = std::make_unique<RemoteEvaluator>(path_, hello_, options_.remote);
    ever_connected_ = true;
    backoff_s_ = options_.reconnect_initial_s;
    return true;
  } catch (const ServerRefusedError& e) {
    remote_.reset();
    if (IsHandshakeRefusal(e)) throw;
    last_error_ = e.what();
  } catch (const ServerUnavailableError& e) {
    remote_.reset();
    last_error_ = e.what();
  }
  return false;
}

void FallbackEvaluator::FallBack(const std::string& reason) {
  remote_.reset();
  ++fallbacks_;
  last_error_ = reason;
  next_retry_at_ = MonotonicSeconds() + backoff_s_;
  spdlog::error("falling back to local inference: {} (retrying {} in {:.1f}s)", reason, path_, backoff_s_);
}

void FallbackEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  if (!remote_ && MonotonicSeconds() >= next_retry_at_) {
    if (TryConnect()) {
      ++reconnects_;
      local_.reset();
      spdlog::info("remote batched inference restored: {}", path_);
    } else {
      backoff_s_ = std::min(backoff_s_ * 2, options_.reconnect_max_s);
      next_retry_at_ = MonotonicSeconds() + backoff_s_;
      spdlog::debug("inference server still unreachable ({}); next try in {:.1f}s", last_error_, backoff_s_);
    }
  }
  if (remote_) {
    try {
      remote_->Evaluate(positions, results);
      int64_t oldest = min_generation_;
      for (const EvalResult& r : results) oldest = std::min(oldest, r.model_generation);
      if (oldest >= min_generation_) return;
      FallBack("the inference server answered with model generation " + std::to_string(oldest) +
               ", this iteration was published with generation " + std::to_string(min_generation_) +
               " (its host has not loaded the new weights yet)");
    } catch (const ServerRefusedError& e) {
      if (IsHandshakeRefusal(e)) throw;  // a restarted server with another config
      FallBack(e.what());
    } catch (const ServerUnavailableError& e) {
      FallBack(e.what());
    }
  }
  if (!local_) {
    local_ = local_factory_();
    GOMOKU_CHECK(local_ != nullptr, "FallbackEvaluator: the local evaluator factory returned null");
  }
  local_->Evaluate(positions, results);
}

std::string FallbackEvaluator::Describe() const {
  if (remote_) return remote_->Describe() + " (local fallback ready)";
  return "local fallback (inference server at " + path_ + " unreachable: " + last_error_ + ")";
}

}  // namespace gz
