// Two output channels:
//  - human logs through spdlog: console (stderr) + a file; level from
//    GOMOKU_LOG_LEVEL (trace|debug|info|warn|error), default info;
//  - metrics as JSON lines (MetricsWriter), one object per line, for tools.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>
#include <spdlog/spdlog.h>

namespace gz {

// Sets the default spdlog logger to console + (optionally) `log_file`.
// Pattern: "2026-11-29 16:00:00.123 [name] [info] message".
void InitLogging(const std::string& name, const std::string& log_file = "");

// Appends JSON objects as lines to a file (fsync per line).  Thread-safe.
class MetricsWriter {
 public:
  explicit MetricsWriter(std::string path) : path_(std::move(path)) {}
  void Write(const nlohmann::json& record);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace gz
