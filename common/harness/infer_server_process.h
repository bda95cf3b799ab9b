// build/bin/infer_server as a child of a test or bench, and waiting until it
// serves on its socket.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/harness/test_process.h"

namespace gz::testing {

// An infer_server (a TestProcess: output in `log_path`, dies with the test).
// The GOMOKU_* variables that would override its settings (socket, max batch,
// max wait) are not passed on from the test's environment; `set_env` may set
// them again.
class InferServerProcess : public TestProcess {
 public:
  InferServerProcess(const std::vector<std::string>& args, const std::string& log_path,
                     const std::map<std::string, std::string>& set_env = {},
                     const std::string& program = BinPath("infer_server"));
};

// The generation the server on `socket` serves (PING), -1 when it has no
// model yet, -2 when no server answers.
int64_t ServedGeneration(const std::string& socket);

// Waits up to `limit_s` for the server on `socket` to serve `generation`.
bool WaitServing(const std::string& socket, int64_t generation, double limit_s = 60.0);

}  // namespace gz::testing
