// Self-play through the inference server plays the same games as self-play
// with local inference: identical game files (every array, bit for bit).
// (Proof "E2" of the seed report.)
//
// Configuration where bit identity holds: max_batch 1 on the server (each
// position is its own forward, exactly as the worker's local path with
// parallel_games 1), and the same forward on both sides: the worker's local
// inference follows inference.backend as the server does (auto: the native
// forward on the CPU).  With larger batches a forward may pick other kernels
// for other batch sizes and the float summation order changes (~1e-7, see
// test_remote_eval_equivalence); MCTS values then differ in the last bits.  That case is measured below and
// bounded, not claimed identical (docs/architecture.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/net/net_api.h"
#include "common/harness/infer_server_process.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"

using namespace gz;
using namespace gz::testing;

namespace {
const std::string kBin = GZ_BIN_DIR;
std::string FreshBatchedDir(const std::string& name) { return FreshTestDir("batched_selfplay_" + name); }
const char* kGame = " --set board.size=7 --set mcts.simulations=24 --set selfplay.random_opening_moves=1"
                    " --set inference.symmetry=all8 --set inference.device=cpu";

// An infer_server for `ckpt` (generation 0) with `max_batch` and inference.backend
// `backend`; SIGTERMed at scope exit.
struct Server {
  ShortTempDir tmp;
  const std::string sock = tmp / "s.sock";
  InferServerProcess process;
  Server(const std::string& ckpt, const std::string& dir, int max_batch, const std::string& backend = "auto")
      : process({"--weights", ckpt, "--set", "server.max_batch=" + std::to_string(max_batch), "--set", "board.size=7",
                 "--set", "inference.symmetry=all8", "--set", "inference.device=cpu", "--set",
                 "inference.backend=" + backend},
                dir + "/server.out", {{"GOMOKU_INFER_SOCK", sock}}) {
    if (!WaitServing(sock, 0)) FAIL("server did not come up");
  }
  ~Server() { process.Terminate(); }
};

GameRecord Load(const std::string& dir, int id, int k) {
  return LoadGameRecord(dir + "/w" + std::to_string(id) + "_g" + std::to_string(k) + ".npz");
}
}  // namespace

TEST_CASE("local and server (max_batch 1) self-play give identical game files") {
  // Both forwards: auto (the native one on the CPU, the default) and LibTorch's.
  const std::string backend = GENERATE(as<std::string>{}, "auto", "torch");
  INFO("inference.backend " << backend);
  std::string root = FreshBatchedDir("exact-" + backend);
  std::string ckpt = root + "/net.pt";
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, 77, 0, 0);
  std::string local = root + "/local", remote = root + "/remote";
  const std::string game = kGame + std::string(" --set inference.backend=") + backend;
  REQUIRE(ShellStatus("unset GOMOKU_INFER_SOCK; " + kBin + "/worker --id 5 --games 4 --weights " + ckpt +
                      " --out " + local + game + " > " + root + "/local.log 2>&1") == 0);
  // The local games ran on the forward asked for.
  CHECK(ReadFileOrThrow(root + "/local.log").find(backend == "torch" ? "torch cpu" : "native CPU forward") !=
        std::string::npos);
  {
    Server server(ckpt, root, 1, backend);
    REQUIRE(ShellStatus("GOMOKU_INFER_SOCK=" + server.sock + " " + kBin + "/worker --id 5 --games 4 --weights " +
                        ckpt + " --out " + remote + game + " > " + root + "/remote.log 2>&1") == 0);
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

TEST_CASE("server batching across 3 concurrent workers: moves agree, values within float noise") {
  std::string root = FreshBatchedDir("batched");
  std::string ckpt = root + "/net.pt";
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, 78, 0, 0);
  std::string local = root + "/local", remote = root + "/remote";
  for (int id = 0; id < 3; ++id)
    REQUIRE(ShellStatus("unset GOMOKU_INFER_SOCK; " + kBin + "/worker --id " + std::to_string(id) +
                        " --games 2 --weights " + ckpt + " --out " + local + kGame + " > /dev/null 2>&1") == 0);
  {
    Server server(ckpt, root, 8);
    std::string cmd;
    for (int id = 0; id < 3; ++id)
      cmd += "GOMOKU_INFER_SOCK=" + server.sock + " " + kBin + "/worker --id " + std::to_string(id) +
             " --games 2 --weights " + ckpt + " --out " + remote + kGame + " > " + root + "/r" + std::to_string(id) +
             ".log 2>&1 & ";
    REQUIRE(ShellStatus(cmd + "wait") == 0);
    std::string stats = root + "/stats.json";
    REQUIRE(ShellStatus(kBin + "/infer_ctl --socket " + server.sock + " stats > " + stats) == 0);
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
  WARN("batched self-play: " << identical << "/" << games << " games bit-identical, max |q| diff on agreeing prefix "
                      << max_q);
  CHECK(max_q < 1e-4);
}
