// Asking the inference server to load a new checkpoint, as the trainer's
// publishing step needs it (docs/trainer.md "Publishing").
//
//  - acknowledged: the server serves the new weights; its generation is returned;
//  - not running: no socket file, or nothing answered (connection refused /
//    closed) until the deadline: a WARNING is logged and the caller goes on
//    (workers then load the checkpoint file themselves);
//  - refused (ERROR kReloadFailed): ReloadRefusedError; the caller must not
//    publish metadata for these weights;
//  - a server that accepts the connection but never acknowledges within
//    train.reload_timeout_s: ReloadTimeoutError (publishing is not safe: the
//    server might still serve old weights).
// Transient failures are retried with exponential backoff (0.25 s .. 5 s)
// until the deadline.  Thread-safety: free functions.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"

namespace gz {

class ReloadRefusedError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};
class ReloadTimeoutError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};

struct ReloadOutcome {
  bool acknowledged = false;  // false = no server running
  int64_t generation = -1;    // the server's generation when acknowledged
  int attempts = 0;
  double seconds = 0;
  std::string note;           // why no server answered, for logs / generations.jsonl
};

ReloadOutcome ReloadServer(const std::string& socket_path, const std::string& weights_path, double timeout_s,
                           const std::atomic<bool>* stop = nullptr);

// The server's stats JSON, or nullopt when no server answers in timeout_s.  Never throws.
std::optional<nlohmann::json> TryFetchServerStats(const std::string& socket_path, double timeout_s);

}  // namespace gz
