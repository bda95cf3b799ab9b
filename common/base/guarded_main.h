// main() for binaries whose body may throw: an escaping exception becomes one
// line on stderr and an exit code, never std::terminate's abort (which would
// look like a crash to the launch scripts).
#pragma once

#include <cstdio>
#include <exception>
#include <utility>

namespace gz {

// Any escaping exception: "<name>: fatal: <what>" and exit `fatal_code`.
template <class Body>
int GuardedMain(const char* name, int fatal_code, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: fatal: %s\n", name, e.what());
    return fatal_code;
  }
}

// The tools' exit convention (0 done, 2 bad input, 1 anything else): an
// escaping `InputErrorT` (the tool's bad-input error: flags, files it was
// given) prints "<name>: <what>" and exits 2; any other exception prints
// "<name>: fatal: <what>" and exits 1.
template <class InputErrorT, class Body>
int GuardedToolMain(const char* name, Body&& body) {
  return GuardedMain(name, 1, [&]() -> int {
    try {
      return std::forward<Body>(body)();
    } catch (const InputErrorT& e) {
      std::fprintf(stderr, "%s: %s\n", name, e.what());
      return 2;
    }
  });
}

}  // namespace gz
