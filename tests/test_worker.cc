// The worker binary: standalone games, parallel games equivalence, following
// metadata.json, config errors, SIGTERM.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/config.h"
#include "common/fileio.h"
#include "common/game_record.h"
#include "common/metadata.h"
#include "common/run_layout.h"

using namespace gz;
namespace fs = std::filesystem;

namespace {
std::string Fresh(const std::string& name) {
  std::string d = std::string(GZ_TEST_TMP) + "/worker_" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
int Run(const std::string& cmd) {
  int rc = std::system(("unset GOMOKU_INFER_SOCK; " + cmd).c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
std::string Worker() { return std::string(GZ_BIN_DIR) + "/worker"; }
const char* kSmall = " --set board.size=7 --set mcts.simulations=24 --set selfplay.random_opening_moves=1";
}  // namespace

TEST_CASE("k parallel games in one worker produce the same files as one game at a time") {
  std::string a = Fresh("par1"), b = Fresh("par3");
  REQUIRE(Run(Worker() + " --id 2 --games 4 --weights uniform --out " + a + kSmall + " > " + a + "/log 2>&1") == 0);
  REQUIRE(Run(Worker() + " --id 2 --games 4 --weights uniform --out " + b + kSmall +
              " --set worker.parallel_games=3 > " + b + "/log 2>&1") == 0);
  for (int k = 0; k < 4; ++k) {
    std::string f = "/w2_g" + std::to_string(k) + ".npz";
    INFO(f);
    CHECK(ReadFileOrThrow(a + f) == ReadFileOrThrow(b + f));
  }
  // And the games differ from each other (different seeds).
  CHECK(ReadFileOrThrow(a + "/w2_g0.npz") != ReadFileOrThrow(a + "/w2_g1.npz"));
}

TEST_CASE("numpy reads a game file written by the worker binary") {
  std::string d = Fresh("numpy");
  REQUIRE(Run(Worker() + " --id 0 --games 1 --weights uniform --out " + d + kSmall + " > " + d + "/log 2>&1") == 0);
  std::string cmd = "/usr/bin/python3 -c \"import numpy as np,sys; z=np.load(sys.argv[1]); T=z['moves'].shape[0]; "
                    "assert z['boards'].shape==(T,7,7) and z['policy'].shape==(T,49); "
                    "assert abs(z['policy'].sum(axis=1)-1).max()<1e-4; assert int(z['winner']) in (0,1,2)\" " +
                    d + "/w0_g0.npz";
  CHECK(Run(cmd) == 0);
}

TEST_CASE("config errors name the key and exit 2") {
  std::string d = Fresh("cfgerr");
  CHECK(Run(Worker() + " --id 0 --games 1 --out " + d + " --set mcts.simulations=0 > " + d + "/out 2>&1") == 2);
  CHECK(ReadFileOrThrow(d + "/out").find("mcts.simulations") != std::string::npos);
  CHECK(Run(Worker() + " --id 0 --bogus > " + d + "/out2 2>&1") == 2);
  CHECK(ReadFileOrThrow(d + "/out2").find("--bogus") != std::string::npos);
  CHECK(Run(Worker() + " --games 1 > " + d + "/out3 2>&1") == 2);  // --id missing
}

TEST_CASE("run mode follows metadata.json: quota per iteration, next iteration, SIGTERM") {
  std::string run = Fresh("run");
  RunLayout layout(run);
  Config cfg;
  cfg.board.size = 7;
  cfg.mcts.simulations = 16;
  cfg.run.worker_games_per_worker = 2;
  cfg.run.dir = run;
  cfg.worker.poll_interval_s = 0.1;
  Metadata md;
  md.iteration = 1;
  md.weights = "uniform";
  md.model_generation = 0;
  md.config = cfg.ToJson();
  WriteMetadata(layout.metadata(), md);
  pid_t pid = fork();
  if (pid == 0) {
    unsetenv("GOMOKU_INFER_SOCK");
    std::string log = run + "/worker.out";
    freopen(log.c_str(), "w", stderr);
    execl(Worker().c_str(), "worker", "--id", "1", "--set", ("run.dir=" + run).c_str(), "--set",
          "worker.poll_interval_s=0.1", (char*)nullptr);
    _exit(127);
  }
  auto wait_files = [&](int64_t it, int n) {
    for (int i = 0; i < 600; ++i) {
      int c = 0;
      for (int k = 0; k < n; ++k) c += FileExists(layout.game_file(it, 1, k)) ? 1 : 0;
      if (c == n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  };
  CHECK(wait_files(1, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK_FALSE(FileExists(layout.game_file(1, 1, 2)));  // quota respected: no third game
  GameRecord g = LoadGameRecord(layout.game_file(1, 1, 0));
  CHECK(g.iteration == 1);
  // The worker status file is structured state for the status view.
  auto st = nlohmann::json::parse(ReadFileOrThrow(layout.worker_status(1)));
  CHECK(st["id"] == 1);
  CHECK(st["mode"] == "local");
  // The next iteration: the worker follows metadata, including a changed quota.
  md.iteration = 2;
  cfg.run.worker_games_per_worker = 1;
  md.config = cfg.ToJson();
  WriteMetadata(layout.metadata(), md);
  CHECK(wait_files(2, 1));
  CHECK(LoadGameRecord(layout.game_file(2, 1, 0)).iteration == 2);
  kill(pid, SIGTERM);
  int status = 0;
  bool reaped = false;
  for (int i = 0; i < 150 && !reaped; ++i) {
    reaped = waitpid(pid, &status, WNOHANG) == pid;
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!reaped) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  CHECK(reaped);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // No temp files left behind in the games directory.
  for (auto& e : fs::recursive_directory_iterator(layout.games()))
    CHECK_FALSE(IsTempName(e.path().filename().string()));
}
