// Exception hierarchy and the always-on check macro.
//
// Every runtime failure is reported by throwing one of these; `assert` is never
// used for conditions that depend on input.  GOMOKU_CHECK stays active in
// Release builds.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace gz {

class GomokuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A config file, key or value is wrong.  The message names the key.
class ConfigError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};
// A wire frame or message is malformed or a peer is incompatible.
class ProtocolError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};
// A file could not be read/written, or its contents are corrupt.
class IoError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};
// An illegal move or an impossible position.
class RulesError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};
// A checkpoint is incompatible with what the caller expects.
class ModelError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};

namespace detail {
[[noreturn]] void CheckFailed(const char* expr, const char* file, int line, const std::string& msg);
}  // namespace detail

}  // namespace gz

// GOMOKU_CHECK(cond, "message " << value): throws gz::GomokuError when cond is false.
#define GOMOKU_CHECK(cond, msg)                                          \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::ostringstream gomoku_check_os_;                               \
      gomoku_check_os_ << msg;                                           \
      ::gz::detail::CheckFailed(#cond, __FILE__, __LINE__, gomoku_check_os_.str()); \
    }                                                                    \
  } while (0)

// GOMOKU_THROW(ErrorType, "message " << value)
#define GOMOKU_THROW(type, msg)                 \
  do {                                          \
    std::ostringstream gomoku_throw_os_;        \
    gomoku_throw_os_ << msg;                    \
    throw type(gomoku_throw_os_.str());         \
  } while (0)
