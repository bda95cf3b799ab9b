#include "common/base/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <cstdlib>
#include <vector>

namespace gz {

void InitLogging(const std::string& name, const std::string& log_file) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  if (!log_file.empty()) sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file, false));
  auto logger = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e [%n] [%l] %v");
  spdlog::level::level_enum lvl = spdlog::level::info;
  if (const char* env = std::getenv("GOMOKU_LOG_LEVEL")) lvl = spdlog::level::from_str(env);
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::trace);  // other processes and tests read these files live
  spdlog::set_default_logger(logger);
}

}  // namespace gz
