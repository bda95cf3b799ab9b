// The worker binary: standalone games, parallel games equivalence, following
// metadata.json, config errors, SIGTERM.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/config/config.h"
#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "common/net/net_api.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"
#include "common/harness/wait_until.h"

using namespace gz;
using namespace gz::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {
std::string Fresh(const std::string& name) { return FreshTestDir("worker_" + name); }
int Run(const std::string& cmd) { return ShellStatus("unset GOMOKU_INFER_SOCK; " + cmd); }
std::string Worker() { return BinPath("worker"); }
// Publishes iteration `iteration` (uniform weights, generation 0) with `cfg` for a worker in run mode.
Metadata PublishUniform(const RunLayout& layout, const Config& cfg, int64_t iteration) {
  Metadata md;
  md.iteration = iteration;
  md.weights = "uniform";
  md.model_generation = 0;
  md.config = cfg.ToJson();
  WriteMetadata(layout.metadata(), md);
  return md;
}
// The config of run `run` on a board of `size` with `simulations` a move
// and a quota of `games_per_worker` games per worker and iteration.
Config WorkerRunConfig(const std::string& run, int size, int simulations, int games_per_worker) {
  Config cfg;
  cfg.board.size = size;
  cfg.mcts.simulations = simulations;
  cfg.run.worker_games_per_worker = games_per_worker;
  cfg.run.dir = run;
  return cfg;
}
// `worker --id 1 --set run.dir=<run> [--set extra]` with its output in `log`.
class RunWorker : public TestProcess {
 public:
  RunWorker(const std::string& run, const std::string& log, const std::string& extra = "")
      : TestProcess(Worker(), Args(run, extra), log, {}, {"GOMOKU_INFER_SOCK"}) {}

 private:
  static std::vector<std::string> Args(const std::string& run, const std::string& extra) {
    std::vector<std::string> a = {"--id", "1", "--set", "run.dir=" + run};
    if (!extra.empty()) a.insert(a.end(), {"--set", extra});
    return a;
  }
};
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

TEST_CASE("renju self-play on 9x9 (uniform and a tiny random net): files say renju, black never plays a forbidden point") {
  const std::string ckpt = TestTmpPath("worker_renju_tiny.ckpt");
  CreateRandomCheckpoint(ckpt, 9, Rule::kRenju, 8, 1, /*seed=*/5, /*iteration=*/0, /*model_generation=*/0);
  for (const std::string& weights : {std::string("uniform"), ckpt}) {
    INFO("weights " << weights);
    const std::string d = Fresh(weights == "uniform" ? "renju_uniform" : "renju_net");
    REQUIRE(Run(Worker() + " --id 0 --games 2 --weights " + weights + " --out " + d +
                " --set board.size=9 --set board.rule=renju --set mcts.simulations=32"
                " --set selfplay.random_opening_moves=1 --set inference.device=cpu > " + d + "/log 2>&1") == 0);
    for (int g = 0; g < 2; ++g) {
      const GameRecord r = LoadGameRecord(d + "/w0_g" + std::to_string(g) + ".npz");
      CHECK(r.rule == Rule::kRenju);
      Board b(9, Rule::kRenju);
      for (int m : r.opening) b.Play(m);
      for (int t = 0; t < r.num_moves(); ++t) {
        REQUIRE(b.IsLegal(r.moves[t]));
        b.Play(r.moves[t]);  // throws on a forbidden black move
      }
      CHECK(b.terminal());
      const int8_t want = b.outcome() == Outcome::kBlackWins ? kBlack : b.outcome() == Outcome::kWhiteWins ? kWhite : 0;
      CHECK(r.winner == want);
    }
  }
}

TEST_CASE("selfplay.board_sizes: a conv net's games are drawn per game over the sizes, each played at its size") {
  const std::string ckpt = TestTmpPath("worker_sizes_conv.ckpt");
  CreateRandomCheckpoint(ckpt, 9, Rule::kFreestyle, 8, 1, /*seed=*/6, 0, 0, "conv");
  const std::string d = Fresh("sizes");
  const std::string sets = " --set board.size=9 --set net.heads=conv --set selfplay.board_sizes=9,7 "
                           "--set mcts.simulations=16 --set worker.parallel_games=3 --set inference.device=cpu";
  REQUIRE(Run(Worker() + " --id 0 --games 8 --weights " + ckpt + " --out " + d + sets + " > " + d + "/log 2>&1") == 0);
  std::map<int, int> by_size;
  for (int g = 0; g < 8; ++g) {
    const GameRecord r = LoadGameRecord(d + "/w0_g" + std::to_string(g) + ".npz");
    INFO("game " << g << " size " << r.board_size);
    ++by_size[r.board_size];
    REQUIRE(r.policy.size() == static_cast<size_t>(r.num_moves() * r.board_size * r.board_size));
    Board b(r.board_size);
    for (int m : r.opening) b.Play(m);
    for (int t = 0; t < r.num_moves(); ++t) {
      REQUIRE(b.IsLegal(r.moves[t]));
      b.Play(r.moves[t]);
    }
    CHECK(b.terminal());
  }
  CHECK(by_size.size() == 2);  // 8 draws of 1:1 over {9, 7}, seeds fixed: both sizes occur
  CHECK(by_size[7] + by_size[9] == 8);
  // Batching mixed sizes changes no game (uniform evaluator: exact): 3 games
  // at a time, split by size, give the files of one game at a time.
  const std::string par = Fresh("sizes_par"), one = Fresh("sizes_one");
  REQUIRE(Run(Worker() + " --id 0 --games 8 --weights uniform --out " + par + sets + " > " + par + "/log 2>&1") == 0);
  REQUIRE(Run(Worker() + " --id 0 --games 8 --weights uniform --out " + one + sets +
              " --set worker.parallel_games=1 > " + one + "/log 2>&1") == 0);
  for (int g = 0; g < 8; ++g) {
    const std::string f = "/w0_g" + std::to_string(g) + ".npz";
    INFO(f);
    CHECK(ReadFileOrThrow(par + f) == ReadFileOrThrow(one + f));
    CHECK(LoadGameRecord(par + f).board_size == LoadGameRecord(d + f).board_size);  // the draw is the seed's
  }
  // fc heads cannot play a second size: the config says so and the worker exits 2.
  CHECK(Run(Worker() + " --id 0 --games 1 --weights uniform --out " + d +
            " --set board.size=9 --set selfplay.board_sizes=9,7 > " + d + "/fc.log 2>&1") == 2);
  CHECK(ReadFileOrThrow(d + "/fc.log").find("needs net.heads conv") != std::string::npos);
}

TEST_CASE("local inference runs the forward ChooseForward picks: native with inference.threads, torch when asked") {
  const std::string ckpt = TestTmpPath("worker_forward.ckpt");
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, /*seed=*/4, 0, 0);
  const std::string n = Fresh("forward_native"), t = Fresh("forward_torch");
  const std::string sets = kSmall + std::string(" --set inference.device=cpu");
  REQUIRE(Run(Worker() + " --id 0 --games 1 --weights " + ckpt + " --out " + n + sets +
              " --set inference.threads=2 > " + n + "/log 2>&1") == 0);
  const std::string native = ReadFileOrThrow(n + "/log");
  CHECK(native.find("local inference loaded: native CPU forward") != std::string::npos);
  CHECK(native.find("2 threads)") != std::string::npos);
  REQUIRE(Run(Worker() + " --id 0 --games 1 --weights " + ckpt + " --out " + t + sets +
              " --set inference.backend=torch > " + t + "/log 2>&1") == 0);
  CHECK(ReadFileOrThrow(t + "/log").find("local inference loaded: torch cpu") != std::string::npos);
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
  Config cfg = WorkerRunConfig(run, 7, 16, 2);
  cfg.worker.poll_interval_s = 0.1;
  Metadata md = PublishUniform(layout, cfg, 1);
  RunWorker worker(run, run + "/worker.out", "worker.poll_interval_s=0.1");
  auto wait_files = [&](int64_t it, int n) {
    return WaitUntil(
        [&] {
          for (int k = 0; k < n; ++k)
            if (!FileExists(layout.game_file(it, 1, k))) return false;
          return true;
        },
        60, 100ms);
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
  const std::optional<int> code = worker.Terminate(15s);
  CHECK(code.has_value());  // exited on SIGTERM, not killed after the grace
  CHECK(code == 0);
  // No temp files left behind in the games directory.
  for (auto& e : fs::recursive_directory_iterator(layout.games()))
    CHECK_FALSE(IsTempName(e.path().filename().string()));
}

TEST_CASE("SIGTERM in the middle of a game: the game is discarded, nothing is written, exit 0") {
  // One long game (15x15, 20000 simulations a move with the uniform
  // evaluator: several seconds a move).  The worker writes its status for
  // iteration 1 right before it starts the game; the signal comes half a
  // second after that, however long the start-up took.
  std::string run = Fresh("sigterm_midgame");
  RunLayout layout(run);
  Config cfg = WorkerRunConfig(run, 15, 20000, 1);
  PublishUniform(layout, cfg, 1);
  const std::string log = run + "/worker.out";
  RunWorker worker(run, log);
  REQUIRE(WaitUntil([&] {
    try {
      return nlohmann::json::parse(ReadFileOrThrow(layout.worker_status(1))).value("iteration", 0) == 1;
    } catch (const std::exception&) {
      return false;  // not written yet
    }
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::optional<int> code = worker.Terminate(15s);
  const std::string text = ReadFileOrThrow(log);
  INFO(text);
  CHECK(code.has_value());  // exited on SIGTERM, not killed after the grace
  CHECK(code == 0);
  CHECK(text.find("1 unfinished game(s) of iteration 1 discarded") != std::string::npos);
  CHECK(text.find("game finished") == std::string::npos);
  int files = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(layout.games(), ec), end; !ec && it != end; it.increment(ec))
    files += it->is_regular_file() ? 1 : 0;
  CHECK(files == 0);  // neither a game file nor a temp file
}
