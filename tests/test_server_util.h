// Helpers for the inference-server tests: short temp dirs (Unix socket paths
// are limited to 108 bytes), tiny checkpoints, a child infer_server process,
// positions from real play, and a log capture for FallbackEvaluator lines.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "common/game/board.h"
#include "common/base/errors.h"
#include "common/search/evaluator.h"
#include "common/base/fileio.h"
#include "common/net/net_api.h"
#include "common/wire/wire_client.h"

namespace gz::testing {

// A fresh directory under /tmp (short, for sockets) removed at scope exit.
class ShortTempDir {
 public:
  ShortTempDir() {
    char tmpl[] = "/tmp/gzs-XXXXXX";
    char* p = ::mkdtemp(tmpl);
    if (!p) throw IoError("mkdtemp failed");
    path_ = p;
  }
  ~ShortTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A fresh subdirectory of GZ_TEST_TMP (checkpoints, run dirs).
inline std::string TestTmpDir(const std::string& name) {
  std::string dir = std::string(GZ_TEST_TMP) + "/server/" + name + "-" + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir);
  return dir;
}

constexpr int kTestBoard = 9;

inline std::string MakeCheckpoint(const std::string& dir, const std::string& name, uint64_t seed, int64_t generation,
                                  int board = kTestBoard) {
  std::string path = dir + "/" + name;
  CreateRandomCheckpoint(path, board, Rule::kFreestyle, 8, 1, seed, generation, generation);
  return path;
}

inline HelloParams TestHello(SymmetryMode sym = SymmetryMode::kAll8, int board = kTestBoard) {
  HelloParams h;
  h.board_size = board;
  h.rule = Rule::kFreestyle;
  h.symmetry = sym;
  h.client_name = "test";
  return h;
}

// Random positions from random legal play (deterministic).
inline std::vector<Position> RandomPositions(int n, uint64_t seed, int board = kTestBoard) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  while (static_cast<int>(out.size()) < n) {
    Board b(board);
    int moves = static_cast<int>(rng() % (board * board / 2));
    for (int i = 0; i < moves && !b.terminal(); ++i) {
      auto legal = b.LegalMoves();
      b.Play(legal[rng() % legal.size()]);
    }
    out.push_back(b.ToPosition());
  }
  return out;
}

// As RandomPositions, without repeats (no two equal cells + last move + side to move).
inline std::vector<Position> DistinctPositions(int n, uint64_t seed, int board = kTestBoard) {
  std::vector<Position> out;
  for (uint64_t round = 0; static_cast<int>(out.size()) < n; ++round) {
    for (const Position& p : RandomPositions(n, seed * 1000003 + round, board)) {
      bool seen = false;
      for (const Position& q : out)
        seen = seen || (q.cells == p.cells && q.last_move == p.last_move && q.to_move == p.to_move);
      if (!seen && static_cast<int>(out.size()) < n) out.push_back(p);
    }
  }
  return out;
}

inline double MaxAbsDiff(const EvalResult& a, const EvalResult& b) {
  if (a.log_policy.size() != b.log_policy.size()) return 1e30;
  double d = std::fabs(a.value - b.value);
  for (size_t i = 0; i < a.log_policy.size(); ++i)
    d = std::max(d, static_cast<double>(std::fabs(a.log_policy[i] - b.log_policy[i])));
  return d;
}

inline bool WaitUntil(const std::function<bool()>& cond, double timeout_s) {
  const double end = MonotonicSeconds() + timeout_s;
  while (MonotonicSeconds() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

// Served generation, or -2 when no server answers.
inline int64_t ServedGeneration(const std::string& socket) {
  try {
    WireClient c(socket, 1.0);
    return c.Ping(2.0);
  } catch (const std::exception&) {
    return -2;
  }
}

// build/bin/infer_server as a child process; killed (SIGKILL) at scope exit.
class ServerProcess {
 public:
  // args: everything after the program name.  Output goes to `log_path`.
  ServerProcess(std::vector<std::string> args, std::string log_path, std::map<std::string, std::string> env = {})
      : log_path_(std::move(log_path)) {
    pid_ = ::fork();
    if (pid_ < 0) throw IoError("fork failed");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
      int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::unsetenv("GOMOKU_INFER_SOCK");
      ::unsetenv("GOMOKU_MAX_BATCH");
      ::unsetenv("GOMOKU_MAX_WAIT_MS");
      for (auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      std::string bin = std::string(GZ_BIN_DIR) + "/infer_server";
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(bin.c_str()));
      for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(bin.c_str(), argv.data());
      ::_exit(127);
    }
  }
  ~ServerProcess() {
    if (running()) Kill9();
  }
  pid_t pid() const { return pid_; }
  bool running() {
    if (exited_) return false;
    int st;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      status_ = st;
      return false;
    }
    return true;
  }
  // Waits for exit; returns the exit code (128+signal if killed), -1 on timeout.
  int Wait(double timeout_s) {
    WaitUntil([&] { return !running(); }, timeout_s);
    if (!exited_) return -1;
    if (WIFEXITED(status_)) return WEXITSTATUS(status_);
    return 128 + WTERMSIG(status_);
  }
  int Terminate(double timeout_s = 15) {
    ::kill(pid_, SIGTERM);
    return Wait(timeout_s);
  }
  void Kill9() {
    ::kill(pid_, SIGKILL);
    Wait(10);
  }
  std::string Log() const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // VmRSS in kB.
  long RssKb() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
  }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = 0;
};

// Standard server arguments for a tiny 9x9 CPU net.
inline std::vector<std::string> ServerArgs(const std::string& socket, const std::string& run_dir,
                                           std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"--set", "board.size=9",          "--set", "inference.device=cpu",
                                "--set", "inference.symmetry=all8", "--set", "server.socket=" + socket,
                                "--set", "run.dir=" + run_dir,     "--set", "server.stats_interval_s=0.5"};
  for (auto& e : extra) a.push_back(e);
  return a;
}

// Captures spdlog output (default logger) while alive.
class LogCapture {
 public:
  LogCapture() {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(ss_);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::debug);
    previous_ = spdlog::default_logger();
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return ss_.str(); }
  int Count(const std::string& needle) const {
    std::string t = text();
    int n = 0;
    for (size_t p = t.find(needle); p != std::string::npos; p = t.find(needle, p + 1)) ++n;
    return n;
  }

 private:
  std::ostringstream ss_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace gz::testing
