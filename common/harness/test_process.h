// Child processes for tests and benches, on common/base/child_process.h:
// every child a test starts dies with the test (parent-death signal), so a
// crashed, failed or killed test leaves no process behind.
//
// Thread-safety: none (as ChildProcess).  Start children from the test's main
// thread: the parent-death signal follows the thread that forked.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/base/child_process.h"

namespace gz::testing {

// GZ_BIN_DIR/name: a program this build made (build/bin).
// build/bin/NAME, or $GZ_BIN_DIR/NAME when that variable is set.
std::string BinPath(const std::string& name);

// Options for a child driven through pipes (engines): stdin and stdout are
// pipes, stderr is appended to `stderr_path`, and it dies with the test.
ChildOptions PipedTestChild(const std::string& stderr_path);

// A program whose stdout and stderr are appended to a log file, stdin
// /dev/null, environment the test's with `unset_env` dropped and `set_env`
// set.  Killed (SIGKILL) and reaped at scope exit if still running.
class TestProcess : public ChildProcess {
 public:
  TestProcess(const std::string& program, const std::vector<std::string>& args, const std::string& log_path,
              const std::map<std::string, std::string>& set_env = {}, const std::vector<std::string>& unset_env = {});

  const std::string& log_path() const { return log_path_; }
  // The log as written so far.
  std::string Log() const;
  // The child's resident memory (VmRSS) in kB, -1 when it cannot be read.
  long RssKb() const;

 private:
  std::string log_path_;
};

// Runs `command` with /bin/sh (std::system): its exit code, -1 when it did
// not exit normally.
int ShellStatus(const std::string& command);

}  // namespace gz::testing
