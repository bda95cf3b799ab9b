// E2 of the seed: complete self-play games with local inference and through
// the inference server give identical game files (every array, bit for bit).
//
// Configuration where bit identity holds: max_batch 1 on the server (each
// position is its own forward, exactly as the worker's local path with
// parallel_games 1).  With larger batches LibTorch may pick other kernels for
// other batch sizes and the float summation order changes (~1e-7, see E1);
// MCTS values then differ in the last bits.  That case is measured below and
// bounded, not claimed identical (docs/architecture.md).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/net/net_api.h"

using namespace gz;
namespace fs = std::filesystem;

namespace {
const std::string kBin = GZ_BIN_DIR;
std::string Fresh(const std::string& name) {
  std::string d = std::string(GZ_TEST_TMP) + "/e2_" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
int Sh(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
const char* kGame = " --set board.size=7 --set mcts.simulations=24 --set selfplay.random_opening_moves=1"
                    " --set inference.symmetry=all8 --set inference.device=cpu";

struct Server {
  pid_t pid = -1;
  std::string sock;
  Server(const std::string& ckpt, const std::string& dir, int max_batch) {
    sock = "/tmp/gz-e2-" + std::to_string(::getpid()) + "-" + std::to_string(max_batch) + "/s.sock";
    pid = fork();
    if (pid == 0) {
      std::string log = dir + "/server.out";
      freopen(log.c_str(), "w", stderr);
      freopen(log.c_str(), "a", stdout);
      setenv("GOMOKU_INFER_SOCK", sock.c_str(), 1);
      std::string mb = "server.max_batch=" + std::to_string(max_batch);
      execl((kBin + "/infer_server").c_str(), "infer_server", "--weights", ckpt.c_str(), "--set", mb.c_str(), "--set",
            "board.size=7", "--set", "inference.symmetry=all8", "--set", "inference.device=cpu", (char*)nullptr);
      _exit(127);
    }
    for (int i = 0; i < 200; ++i) {
      if (Sh(kBin + "/infer_ctl --socket " + sock + " ping > /dev/null 2>&1") == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL("server did not come up");
  }
  ~Server() {
    kill(pid, SIGTERM);
    int st;
    waitpid(pid, &st, 0);
  }
};

GameRecord Load(const std::string& dir, int id, int k) {
  return LoadGameRecord(dir + "/w" + std::to_string(id) + "_g" + std::to_string(k) + ".npz");
}
}  // namespace

TEST_CASE("E2: local and server (max_batch 1) self-play give identical game files") {
  std::string root = Fresh("exact");
  std::string ckpt = root + "/net.pt";
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, 77, 0, 0);
  std::string local = root + "/local", remote = root + "/remote";
  REQUIRE(Sh("unset GOMOKU_INFER_SOCK; " + kBin + "/worker --id 5 --games 4 --weights " + ckpt + " --out " + local +
             kGame + " > " + root + "/local.log 2>&1") == 0);
  {
    Server server(ckpt, root, 1);
    REQUIRE(Sh("GOMOKU_INFER_SOCK=" + server.sock + " " + kBin + "/worker --id 5 --games 4 --weights " + ckpt +
               " --out " + remote + kGame + " > " + root + "/remote.log 2>&1") == 0);
  }
  CHECK(ReadFileOrThrow(root + "/remote.log").find("remote batched inference enabled") != std::string::npos);
  CHECK(ReadFileOrThrow(root + "/remote.log").find("falling back") == std::string::npos);
  for (int k = 0; k < 4; ++k) {
    INFO("game " << k);
    GameRecord a = Load(local, 5, k), b = Load(remote, 5, k);
    CHECK(a.moves == b.moves);
    CHECK(a.boards == b.boards);
    CHECK(a.policy == b.policy);
    CHECK(a.q == b.q);
    CHECK(a.winner == b.winner);
    CHECK(ReadFileOrThrow(local + "/w5_g" + std::to_string(k) + ".npz") ==
          ReadFileOrThrow(remote + "/w5_g" + std::to_string(k) + ".npz"));
  }
}

TEST_CASE("E2 with batching across 3 concurrent workers: moves agree, values within float noise") {
  std::string root = Fresh("batched");
  std::string ckpt = root + "/net.pt";
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, 78, 0, 0);
  std::string local = root + "/local", remote = root + "/remote";
  for (int id = 0; id < 3; ++id)
    REQUIRE(Sh("unset GOMOKU_INFER_SOCK; " + kBin + "/worker --id " + std::to_string(id) + " --games 2 --weights " +
               ckpt + " --out " + local + kGame + " > /dev/null 2>&1") == 0);
  {
    Server server(ckpt, root, 8);
    std::string cmd;
    for (int id = 0; id < 3; ++id)
      cmd += "GOMOKU_INFER_SOCK=" + server.sock + " " + kBin + "/worker --id " + std::to_string(id) +
             " --games 2 --weights " + ckpt + " --out " + remote + kGame + " > " + root + "/r" + std::to_string(id) +
             ".log 2>&1 & ";
    REQUIRE(Sh(cmd + "wait") == 0);
    std::string stats = root + "/stats.json";
    REQUIRE(Sh(kBin + "/infer_ctl --socket " + server.sock + " stats > " + stats) == 0);
  }
  int identical = 0, games = 0;
  double max_q = 0;
  for (int id = 0; id < 3; ++id)
    for (int k = 0; k < 2; ++k) {
      GameRecord a = Load(local, id, k), b = Load(remote, id, k);
      ++games;
      if (a.ToNpzBytes() == b.ToNpzBytes()) ++identical;
      // Different float summation order may flip a near-tie in visit counts, which
      // changes the rest of that game; compare values only while the games agree.
      size_t same = 0;
      while (same < a.moves.size() && same < b.moves.size() && a.moves[same] == b.moves[same]) ++same;
      for (size_t t = 0; t < same; ++t) max_q = std::max(max_q, static_cast<double>(std::fabs(a.q[t] - b.q[t])));
      CHECK(same >= 1);
    }
  WARN("batched E2: " << identical << "/" << games << " games bit-identical, max |q| diff on agreeing prefix "
                      << max_q);
  CHECK(max_q < 1e-4);
}
