#include "trainer/server_reload.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/base/fileio.h"
#include "common/wire/wire_client.h"

namespace gz {

ReloadOutcome ReloadServer(const std::string& socket_path, const std::string& weights_path, double timeout_s,
                           const std::atomic<bool>* stop) {
  ReloadOutcome out;
  const double start = MonotonicSeconds();
  const double deadline = start + timeout_s;
  double backoff = 0.25;
  for (;;) {
    if (!FileExists(socket_path)) {
      out.note = "no socket file at " + socket_path;
      break;
    }
    ++out.attempts;
    const double remaining = std::max(deadline - MonotonicSeconds(), 0.1);
    try {
      out.generation = RequestReload(socket_path, weights_path, remaining);
      out.acknowledged = true;
      out.seconds = MonotonicSeconds() - start;
      return out;
    } catch (const ServerRefusedError& e) {
      if (e.code() == wire::ErrorCode::kReloadFailed || e.code() == wire::ErrorCode::kBadFrame ||
          e.code() == wire::ErrorCode::kVersionMismatch) {
        GOMOKU_THROW(ReloadRefusedError, "the inference server at " << socket_path << " refused to load "
                                                                    << weights_path << ": " << e.what());
      }
      out.note = e.what();  // e.g. shutting down or overloaded: try again
    } catch (const ServerTimeoutError& e) {
      GOMOKU_THROW(ReloadTimeoutError, "the inference server at "
                                           << socket_path << " did not acknowledge the reload of " << weights_path
                                           << " within " << timeout_s << "s (train.reload_timeout_s): " << e.what());
    } catch (const ServerUnavailableError& e) {
      out.note = e.what();
    }
    if (stop && stop->load()) break;
    if (MonotonicSeconds() + backoff > deadline) break;
    spdlog::warn("reload of {} not acknowledged yet ({}); retrying in {:.2f}s", weights_path, out.note, backoff);
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
    backoff = std::min(backoff * 2, 5.0);
  }
  out.seconds = MonotonicSeconds() - start;
  return out;
}

std::optional<nlohmann::json> TryFetchServerStats(const std::string& socket_path, double timeout_s) {
  if (!FileExists(socket_path)) return std::nullopt;
  try {
    return FetchStats(socket_path, timeout_s);
  } catch (const std::exception& e) {
    spdlog::debug("no server stats from {}: {}", socket_path, e.what());
    return std::nullopt;
  }
}

}  // namespace gz
