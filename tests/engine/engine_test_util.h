// Shared by the tests that start the Gomocup engine as a child process
// (tests/engine/, tests/match/test_match_engine.cc).
#pragma once

#include <string>

#include "common/base/fileio.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_process.h"

namespace gz::testing {

// The engine binary under test (GZ_BIN_DIR's pbrain-gomoku-zero).
inline std::string EngineBinary() { return BinPath("pbrain-gomoku-zero"); }

// A settings file of defaults only, GZ_TEST_TMP/name, so that a
// pbrain-gomoku-zero.json someone left next to the binary cannot change what
// is tested.  Each test file passes its own name (entries run side by side).
inline std::string DefaultsOnlySettings(const std::string& name) {
  std::string path = TestTmpPath(name);
  WriteFileAtomic(path, "{}");
  return path;
}

}  // namespace gz::testing
