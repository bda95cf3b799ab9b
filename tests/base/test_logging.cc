// common/base/logging: the level comes from GOMOKU_LOG_LEVEL, and a name that
// is no level is an error naming it, never a silent "off".
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "common/base/errors.h"
#include "common/base/logging.h"

using namespace gz;

TEST_CASE("log levels: every documented name parses; anything else is refused by name") {
  CHECK(ParseLogLevel("trace") == spdlog::level::trace);
  CHECK(ParseLogLevel("debug") == spdlog::level::debug);
  CHECK(ParseLogLevel("info") == spdlog::level::info);
  CHECK(ParseLogLevel("warn") == spdlog::level::warn);
  CHECK(ParseLogLevel("error") == spdlog::level::err);
  CHECK(ParseLogLevel("off") == spdlog::level::off);
  for (const char* bad : {"infoo", "INFO", "", "warning "}) {
    INFO(bad);
    CHECK_THROWS_AS(ParseLogLevel(bad), ConfigError);
    CHECK_THROWS_WITH(ParseLogLevel(bad), Catch::Contains("GOMOKU_LOG_LEVEL") && Catch::Contains(std::string("'") + bad + "'"));
  }
}

TEST_CASE("log levels: InitLogging applies GOMOKU_LOG_LEVEL and refuses a misspelt one") {
  ::setenv("GOMOKU_LOG_LEVEL", "debug", 1);
  InitLogging("test_logging");
  CHECK(spdlog::default_logger()->level() == spdlog::level::debug);
  ::setenv("GOMOKU_LOG_LEVEL", "degub", 1);
  CHECK_THROWS_WITH(InitLogging("test_logging"), Catch::Contains("degub"));
  ::unsetenv("GOMOKU_LOG_LEVEL");
  InitLogging("test_logging");
  CHECK(spdlog::default_logger()->level() == spdlog::level::info);
}
