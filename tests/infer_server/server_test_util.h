// Helpers for the inference-server tests: tiny checkpoints, the standard
// arguments of a child infer_server, positions from real play, and a log
// capture for FallbackEvaluator lines.  The child process, waiting and temp
// folders come from tests/support (included here for every server test).
#pragma once

#include <signal.h>
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

#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "common/game/board.h"
#include "common/base/errors.h"
#include "common/search/evaluator.h"
#include "common/base/fileio.h"
#include "common/net/net_api.h"
#include "common/search/symmetric_batch.h"
#include "common/wire/wire_client.h"
#include "common/harness/infer_server_process.h"
#include "common/harness/temp_dir.h"
#include "common/harness/wait_until.h"

namespace gz::testing {

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

// Standard server arguments for a tiny 9x9 CPU net.
inline std::vector<std::string> ServerArgs(const std::string& socket, const std::string& run_dir,
                                           std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"--set", "board.size=9",          "--set", "inference.device=cpu",
                                "--set", "inference.symmetry=all8", "--set", "server.socket=" + socket,
                                "--set", "run.dir=" + run_dir,     "--set", "server.stats_interval_s=0.5"};
  for (auto& e : extra) a.push_back(e);
  return a;
}

// Evaluates `ps` through `fb` (a FallbackEvaluator on local inference) until
// it is back on the remote server; false after limit_s (a hang guard, not a
// timing check).
template <class Fallback>
bool WaitRemoteRestored(Fallback& fb, const std::vector<Position>& ps, std::vector<EvalResult>& got, double limit_s) {
  return WaitUntil(
      [&] {
        fb.Evaluate(ps, got);
        return fb.remote_active();
      },
      limit_s);
}

// `ckpt` in this process through the forward an infer_server of ServerArgs
// runs with inference.backend `backend` (auto, the default: the native
// forward, as the server picks it on the CPU), at expect.board_size if set.
inline std::unique_ptr<Evaluator> LoadServerForward(const std::string& ckpt, SymmetryMode mode,
                                                    const std::string& backend = "auto",
                                                    const CheckpointExpect& expect = {}) {
  ForwardOptions options;
  options.backend = backend;
  return std::make_unique<SymmetricEvaluator>(LoadForward(ckpt, "cpu", 1, options, expect), mode);
}

// The answers of LibTorch's CPU forward (all 8 symmetries) with `ckpt` to
// `ps`, as the fallback factories of these tests compute them.  The server's
// native forward computes the same tiny random nets to within 1e-6, inside
// the 1e-5 the tests allow.
inline std::vector<EvalResult> LocalAnswers(const std::string& ckpt, const std::vector<Position>& ps) {
  auto local = LoadLocalEvaluator(ckpt, "cpu", 1, SymmetryMode::kAll8);
  std::vector<EvalResult> out(ps.size());
  local->Evaluate(ps, out);
  return out;
}

// The usual start of a server test: a fresh folder FreshTestDir(name) with a
// tiny checkpoint a.pt (seed, generation) in it, and an infer_server serving
// it (ServerArgs with --weights and `extra`, log dir/server.log) on
// tmp/socket_name; the constructor REQUIREs that it serves `generation`.
struct ServedCheckpoint {
  ServedCheckpoint(const std::string& name, uint64_t seed, int64_t generation, std::vector<std::string> extra = {},
                   const std::string& socket_name = "infer.sock")
      : dir(FreshTestDir(name)),
        ckpt(MakeCheckpoint(dir, "a.pt", seed, generation)),
        sock(tmp / socket_name),
        server(ServerArgs(sock, dir + "/run", WeightsAnd(ckpt, std::move(extra))), dir + "/server.log") {
    REQUIRE(WaitServing(sock, generation));
  }

  static std::vector<std::string> WeightsAnd(const std::string& ckpt, std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"--weights", ckpt});
    return extra;
  }

  ShortTempDir tmp;
  std::string dir, ckpt, sock;
  InferServerProcess server;
};

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
