// main() for binaries whose body may throw: an escaping exception becomes one
// line "<name>: fatal: <what>" on stderr and the exit code `fatal_code`, never
// std::terminate's abort (which would look like a crash to the launch scripts).
#pragma once

#include <cstdio>
#include <exception>
#include <utility>

namespace gz {

template <class Body>
int GuardedMain(const char* name, int fatal_code, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: fatal: %s\n", name, e.what());
    return fatal_code;
  }
}

}  // namespace gz
