// A child process driven through pipes, for engine managers and tests: write
// lines to its stdin, read lines from its stdout with a timeout, reap it.
//
// Ownership: the object owns the process; the destructor kills (SIGKILL) and
// reaps it if it is still running.  Constructing one ignores SIGPIPE for the
// whole process (writes to a dead child then throw IoError instead of killing
// the caller).  Thread-safety: none.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gz {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with argv.  stderr goes to `stderr_path` (appended),
  // or is inherited when empty.  Throws IoError if the process cannot start.
  explicit ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path = "");
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes bytes as they are (no terminator added).  Throws IoError if the
  // child closed its stdin.
  void Write(const std::string& bytes);
  void WriteLine(const std::string& line) { Write(line + "\n"); }
  void CloseStdin();

  // The next stdout line without its terminator (CR, LF or CRLF), or nullopt
  // if none arrived within `timeout` or the output ended (see eof()).
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout);
  // Everything until the child closes stdout or `timeout` passes.
  std::string ReadAll(std::chrono::milliseconds timeout);
  bool eof() const { return eof_; }

  // Waits up to `timeout` for the child to exit; its exit code (128 + signal
  // when killed by a signal), or nullopt if still running.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }

 private:
  bool FillBuffer(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
  std::optional<int> exit_code_;
};

}  // namespace gz
