// Splitting a request target into path and query, and reading query values
// strictly: every malformed value is an HttpError 400 naming the parameter,
// never a default silently taken.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gz {

struct Target {
  std::string path;                           // percent-decoded
  std::map<std::string, std::string> params;  // percent-decoded; a repeated key keeps its last value
};

// Throws HttpError 400 for a bad percent escape or a NUL byte.
Target ParseTarget(const std::string& target);

// The parameter as an integer in [min, max].  Missing: `def` if given, else
// 400 "missing parameter".  Non-numeric, trailing junk, or out of range: 400.
int64_t IntParam(const Target& t, const std::string& name, int64_t min, int64_t max,
                 std::optional<int64_t> def = std::nullopt);
// The parameter as given; missing: 400.
std::string StringParam(const Target& t, const std::string& name);

}  // namespace gz
