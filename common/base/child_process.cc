#include "common/base/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "common/base/errors.h"

extern char** environ;

namespace gz {

namespace {

// A descriptor closed at scope exit unless released: the constructor may
// throw between opening one and handing it over.
class OwnedFd {
 public:
  OwnedFd() = default;
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

int OpenForAppend(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) GOMOKU_THROW(IoError, "cannot open " << path << ": " << std::strerror(errno));
  return fd;
}

// "KEY=VALUE" entries: the parent's environment as `o` edits it.
std::vector<std::string> ChildEnvironment(const ChildOptions& o) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    const bool unset = std::find(o.unset_env.begin(), o.unset_env.end(), key) != o.unset_env.end();
    if (!unset && !o.set_env.count(key)) env.push_back(entry);
  }
  for (const auto& [key, value] : o.set_env) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

namespace {
ChildOptions PipesWithStderrTo(const std::string& stderr_path) {
  ChildOptions o;
  o.stderr_path = stderr_path;
  return o;
}
}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path)
    : ChildProcess(argv, PipesWithStderrTo(stderr_path)) {}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const ChildOptions& options) {
  GOMOKU_CHECK(!argv.empty(), "ChildProcess needs a program");
  ::signal(SIGPIPE, SIG_IGN);  // a write to a dead child must fail with EPIPE, not kill us
  const bool pipes = options.log_path.empty();
  // The parent's ends (kept) and the child's ends (closed here after fork).
  OwnedFd parent_in, parent_out, child_in, child_out, child_err;
  if (pipes) {
    int in_pipe[2], out_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0) GOMOKU_THROW(IoError, "pipe: " << std::strerror(errno));
    child_in.reset(in_pipe[0]);
    parent_in.reset(in_pipe[1]);
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) GOMOKU_THROW(IoError, "pipe: " << std::strerror(errno));
    parent_out.reset(out_pipe[0]);
    child_out.reset(out_pipe[1]);
    if (!options.stderr_path.empty()) child_err.reset(OpenForAppend(options.stderr_path));
  } else {
    child_in.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (child_in.get() < 0) GOMOKU_THROW(IoError, "cannot open /dev/null: " << std::strerror(errno));
    child_out.reset(OpenForAppend(options.log_path));
  }
  const int err_fd = pipes ? child_err.get() : child_out.get();
  // Everything the child needs is built before fork: between fork and exec
  // the child of a multithreaded parent may only make async-signal-safe calls.
  const std::vector<std::string> env = ChildEnvironment(options);
  std::vector<char*> args = CStrings(argv), envp = CStrings(env);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) GOMOKU_THROW(IoError, "fork: " << std::strerror(errno));
  if (pid_ == 0) {
    // A parent that died before prctl took effect has already reparented us.
    if (options.die_with_parent && (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)) ::_exit(127);
    ::dup2(child_in.get(), 0);
    ::dup2(child_out.get(), 1);
    if (err_fd >= 0) ::dup2(err_fd, 2);
    ::execve(args[0], args.data(), envp.data());
    const char msg[] = "ChildProcess: exec failed\n";
    ssize_t ignored = ::write(2, msg, sizeof(msg) - 1);
    (void)ignored;
    ::_exit(127);
  }
  stdin_fd_ = parent_in.release();
  stdout_fd_ = parent_out.release();
}

ChildProcess::~ChildProcess() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  if (pid_ > 0 && !exit_code_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void ChildProcess::Write(const std::string& bytes) {
  GOMOKU_CHECK(stdin_fd_ >= 0, "the child's stdin is closed or not a pipe");
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(stdin_fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) GOMOKU_THROW(IoError, "writing to child " << pid_ << ": " << std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

void ChildProcess::CloseStdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

bool ChildProcess::FillBuffer(std::chrono::steady_clock::time_point deadline) {
  if (eof_) return false;
  GOMOKU_CHECK(stdout_fd_ >= 0, "the child's stdout is not a pipe (it writes to a log file)");
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return false;
    pollfd p{stdout_fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    char buf[4096];
    ssize_t n = ::read(stdout_fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }
}

std::optional<std::string> ChildProcess::ReadLine(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    // Drop terminators left at the front (the LF of a CRLF, empty lines).
    size_t start = buffer_.find_first_not_of("\r\n");
    if (start == std::string::npos) buffer_.clear();
    else buffer_.erase(0, start);
    size_t end = buffer_.find_first_of("\r\n");
    if (end != std::string::npos) {
      std::string line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      return line;
    }
    if (!FillBuffer(deadline)) {
      if (eof_ && !buffer_.empty()) {
        std::string line = std::move(buffer_);
        buffer_.clear();
        return line;
      }
      return std::nullopt;
    }
  }
}

std::string ChildProcess::ReadAll(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (FillBuffer(deadline)) {
  }
  std::string all = std::move(buffer_);
  buffer_.clear();
  return all;
}

void ChildProcess::Reaped(int status) {
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::optional<int> ChildProcess::WaitExit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      Reaped(status);
      return exit_code_;
    }
    if (r < 0 && errno != EINTR) GOMOKU_THROW(IoError, "waitpid " << pid_ << ": " << std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int ChildProcess::Wait() {
  while (!exit_code_) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, 0);
    if (r == pid_) Reaped(status);
    else if (errno != EINTR) GOMOKU_THROW(IoError, "waitpid " << pid_ << ": " << std::strerror(errno));
  }
  return *exit_code_;
}

void ChildProcess::Signal(int signal) {
  if (!exit_code_) ::kill(pid_, signal);
}

std::optional<int> ChildProcess::Terminate(std::chrono::milliseconds grace) {
  if (exit_code_) return exit_code_;
  Signal(SIGTERM);
  if (auto code = WaitExit(grace)) return code;
  Kill();
  return std::nullopt;
}

int ChildProcess::Kill() {
  Signal(SIGKILL);
  return Wait();
}

}  // namespace gz
