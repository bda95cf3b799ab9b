// Human logs through spdlog: console (stderr) + a file; level from
// GOMOKU_LOG_LEVEL (trace|debug|info|warn|error|critical|off), default info.  Structured
// records go to their own JSON-lines files (common/base/jsonl.h), never here.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace gz {

// Sets the default spdlog logger to console + (optionally) `log_file`.
// Pattern: "2026-11-29 16:00:00.123 [name] [info] message".
// Throws ConfigError when GOMOKU_LOG_LEVEL is set to no level name (a
// misspelt level must not silently turn logging off, as spdlog's own parser
// would).
// `console`: kAlways logs to stderr too; kWhenAsked only when
// GOMOKU_LOG_LEVEL is set (the engine under a GUI: Yixin-Board and Piskvork
// never read a brain's stderr, and a full pipe would block the engine).
enum class LogConsole { kAlways, kWhenAsked };
void InitLogging(const std::string& name, const std::string& log_file = "", LogConsole console = LogConsole::kAlways);

// "trace" | "debug" | "info" | "warn" | "error" | "critical" | "off" -> the
// level; anything else throws ConfigError naming GOMOKU_LOG_LEVEL and `text`.
spdlog::level::level_enum ParseLogLevel(const std::string& text);

}  // namespace gz
