// Shared by the tests that start the Gomocup engine as a child process
// (tests/engine/, tests/match/test_match_engine.cc).
#pragma once

#include <string>

#include "common/base/fileio.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"

namespace gz::testing {

// The engine binary under test (GZ_BIN_DIR's pbrain-gomoku-zero).
inline std::string EngineBinary() { return BinPath("pbrain-gomoku-zero"); }

// A settings file of defaults only but the rollout baseline ("weights":
// "none": fast, and it plays any size) (GZ_TEST_TMP/engine_defaults_only.json),
// so that a pbrain-gomoku-zero.json someone left next to the binary cannot
// change what is tested.  Written once per process; entries running side by
// side rewrite the same bytes atomically, so a reader never sees a torn file.
inline const std::string& DefaultsOnlySettings() {
  static const std::string path = [] {
    std::string p = TestTmpPath("engine_defaults_only.json");
    WriteFileAtomic(p, R"({"weights": "none"})");
    return p;
  }();
  return path;
}

}  // namespace gz::testing
