// A child process, for engine managers and tests: either driven through pipes
// (write lines to its stdin, read lines from its stdout with a timeout) or
// writing its output to a log file; polled, waited for, terminated, reaped.
//
// Ownership: the object owns the process; the destructor kills (SIGKILL) and
// reaps it if it is still running.  Constructing one ignores SIGPIPE for the
// whole process (writes to a dead child then throw IoError instead of killing
// the caller).  Thread-safety: none.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gz {

// How a child is started.  The defaults give stdin and stdout pipes, stderr
// inherited, the parent's environment.
struct ChildOptions {
  // Set: stdin is /dev/null and stdout and stderr are appended to this file;
  // there are no pipes (Write and ReadLine then fail).  Empty: pipes.
  std::string log_path;
  // With pipes: stderr is appended to this file; empty: inherited.
  std::string stderr_path;
  // The child's environment is the parent's without `unset_env`, plus
  // `set_env` (which wins over both).  Built before fork: the child of a
  // multithreaded parent may not call setenv.
  std::vector<std::string> unset_env;
  std::map<std::string, std::string> set_env;
  // The child gets SIGKILL when the parent dies (PR_SET_PDEATHSIG), so a
  // crashed or killed parent leaves no process behind.  Linux ties this to the
  // *thread* that started the child: start such children from a thread that
  // outlives them.
  bool die_with_parent = false;
};

class ChildProcess {
 public:
  // Starts argv[0] (a path) with argv.  Throws IoError if the process cannot
  // start (a failed exec shows as exit code 127).
  ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options);
  // Pipes; stderr goes to `stderr_path` (appended), or is inherited when empty.
  explicit ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path = "");
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Writes bytes as they are (no terminator added).  Throws IoError if the
  // child closed its stdin.  Precondition: started with pipes, stdin open.
  void Write(const std::string& bytes);
  void WriteLine(const std::string& line) { Write(line + "\n"); }
  void CloseStdin();

  // The next stdout line without its terminator (CR, LF or CRLF), or nullopt
  // if none arrived within `timeout` or the output ended (see eof()).
  // Precondition: started with pipes.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout);
  // Everything until the child closes stdout or `timeout` passes.
  std::string ReadAll(std::chrono::milliseconds timeout);
  bool eof() const { return eof_; }

  // Exit codes are the child's status, or 128 + signal when a signal ended it.
  // Waits up to `timeout` for the child to exit; its exit code, or nullopt if
  // still running.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);
  // The exit code if the child has exited by now (it is then reaped), else nullopt.
  std::optional<int> Poll() { return WaitExit(std::chrono::milliseconds(0)); }
  // Blocks until the child exits; its exit code.
  int Wait();
  // Sends `signal` unless the child has already been reaped (its pid may
  // then belong to another process).
  void Signal(int signal);
  // SIGTERM, then up to `grace` for the child to exit: its exit code, or
  // nullopt when it did not exit in time and was killed (SIGKILL) and reaped.
  std::optional<int> Terminate(std::chrono::milliseconds grace = std::chrono::seconds(15));
  // SIGKILL and reap; the exit code (137 unless it had exited before).
  int Kill();
  pid_t pid() const { return pid_; }

 private:
  bool FillBuffer(std::chrono::steady_clock::time_point deadline);
  void Reaped(int status);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
  std::optional<int> exit_code_;
};

}  // namespace gz
