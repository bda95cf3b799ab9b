// Helpers for the config tests.
#pragma once

#include <functional>
#include <string>

#include "common/base/errors.h"

namespace gz::testing {

// The message of the ConfigError that `f` throws; "" when it throws none.
inline std::string ConfigErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace gz::testing
