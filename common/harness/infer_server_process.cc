#include "common/harness/infer_server_process.h"

#include <exception>

#include "common/wire/wire_client.h"
#include "common/harness/wait_until.h"

namespace gz::testing {

InferServerProcess::InferServerProcess(const std::vector<std::string>& args, const std::string& log_path,
                                       const std::map<std::string, std::string>& set_env,
                                       const std::string& program)
    : TestProcess(program, args, log_path, set_env,
                  {"GOMOKU_INFER_SOCK", "GOMOKU_MAX_BATCH", "GOMOKU_MAX_WAIT_MS"}) {}

int64_t ServedGeneration(const std::string& socket) {
  try {
    WireClient c(socket, 1.0);
    return c.Ping(2.0);
  } catch (const std::exception&) {
    return -2;
  }
}

bool WaitServing(const std::string& socket, int64_t generation, double limit_s) {
  return WaitUntil([&] { return ServedGeneration(socket) == generation; }, limit_s);
}

}  // namespace gz::testing
