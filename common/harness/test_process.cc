#include "common/harness/test_process.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gz::testing {

std::string BinPath(const std::string& name) {
  // GZ_BIN_DIR in the environment wins: repeated runs of a test can use a
  // frozen copy of the binaries while the build tree is being rebuilt.
  const char* env = std::getenv("GZ_BIN_DIR");
  return std::string(env && *env ? env : GZ_BIN_DIR) + "/" + name;
}

ChildOptions PipedTestChild(const std::string& stderr_path) {
  ChildOptions o;
  o.stderr_path = stderr_path;
  o.die_with_parent = true;
  return o;
}

namespace {
std::vector<std::string> Argv(const std::string& program, const std::vector<std::string>& args) {
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}
ChildOptions LoggedTestChild(const std::string& log_path, const std::map<std::string, std::string>& set_env,
                             const std::vector<std::string>& unset_env) {
  return ChildOptions{log_path, /*stderr_path=*/"", unset_env, set_env, /*die_with_parent=*/true};
}
}  // namespace

TestProcess::TestProcess(const std::string& program, const std::vector<std::string>& args,
                         const std::string& log_path, const std::map<std::string, std::string>& set_env,
                         const std::vector<std::string>& unset_env)
    : ChildProcess(Argv(program, args), LoggedTestChild(log_path, set_env, unset_env)), log_path_(log_path) {}

std::string TestProcess::Log() const {
  std::ifstream in(log_path_, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

long TestProcess::RssKb() const {
  std::ifstream in("/proc/" + std::to_string(pid()) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

int ShellStatus(const std::string& command) {
  const int rc = std::system(command.c_str());
  return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace gz::testing
