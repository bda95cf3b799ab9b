#include "common/base/logging.h"

#include "common/base/errors.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <cstdlib>
#include <utility>
#include <vector>

namespace gz {

spdlog::level::level_enum ParseLogLevel(const std::string& text) {
  static const std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},       {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},         {"critical", spdlog::level::critical},
      {"off", spdlog::level::off}};
  for (const auto& [name, level] : kLevels)
    if (text == name) return level;
  GOMOKU_THROW(ConfigError, "GOMOKU_LOG_LEVEL='" << text
                                                 << "' is not a log level (expected trace, debug, info, warn, "
                                                    "error, critical or off)");
}

void InitLogging(const std::string& name, const std::string& log_file, LogConsole console) {
  std::vector<spdlog::sink_ptr> sinks;
  if (console == LogConsole::kAlways || std::getenv("GOMOKU_LOG_LEVEL"))
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  if (!log_file.empty()) sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file, false));
  auto logger = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e [%n] [%l] %v");
  spdlog::level::level_enum lvl = spdlog::level::info;
  if (const char* env = std::getenv("GOMOKU_LOG_LEVEL")) lvl = ParseLogLevel(env);
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::trace);  // other processes and tests read these files live
  spdlog::set_default_logger(logger);
}

}  // namespace gz
