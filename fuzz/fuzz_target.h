// The fuzz-target contract shared by the libFuzzer builds (dev/fuzz.sh)
// and the corpus replay that runs in every CI run (replay_main.cc).
//
// Each fuzz_<name>.cc defines LLVMFuzzerTestOneInput over a torch-free
// decoder.  A decoder may reject its input only with a GomokuError (the
// project's error hierarchy, errors.h); anything else -- another exception, a
// crash, a sanitizer report, or a broken round-trip property -- is a bug and
// aborts via FuzzFail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "common/base/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace gz::fuzz {

[[noreturn]] inline void FuzzFail(const char* what) {
  std::fprintf(stderr, "fuzz target failure: %s\n", what);
  std::abort();
}

// Runs body(); a GomokuError is an accepted rejection, anything else fails.
template <typename Body>
void ExpectOnlyGomokuErrors(Body&& body) {
  try {
    body();
  } catch (const GomokuError&) {
    // rejected with a reason: fine
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    FuzzFail("a decoder threw something other than GomokuError");
  }
}

}  // namespace gz::fuzz
