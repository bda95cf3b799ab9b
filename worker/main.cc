// build/bin/worker: self-play games -> one .npz per game.  See worker_loop.h.
#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <unistd.h>
#include <cstdlib>
#include <iostream>
#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/logging.h"
#include "common/base/stop_signals.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "common/game/even_openings.h"
#include "worker/evaluator_setup.h"
#include "worker/worker_loop.h"

namespace {

const char* kUsage = R"(worker: AlphaZero self-play games, one .npz file per game.

Usage:
  worker --config FILE --id N [--run-dir DIR] [--set key=value]...
      Follows <run.dir>/metadata.json: plays run.worker_games_per_worker games
      for the current iteration with the current weights, then waits for the next.
  worker --config FILE --id N --games G --out DIR --weights PATH|uniform [--iteration I]
      Standalone: plays G games into DIR and exits.

Inference: if GOMOKU_INFER_SOCK is set, positions go to the inference server
(log line "remote batched inference enabled: <path>"); if it cannot be reached
the worker logs an ERROR "falling back to local inference" and continues
locally, reconnecting with backoff.  Unset: local inference only.

Options:
  --config FILE        JSON config (docs/configuration.md); in run mode the
                       shared settings come from metadata.json instead
  --set key=value      override one config key (repeatable)
  --id N               worker id (seeds, file names, status)
  --run-dir DIR        run directory (default: config run.dir)
  --log-file FILE      also log to FILE (default <run>/logs/worker_<id>.log in run mode)
  --games G --out DIR  standalone mode
  --weights PATH       checkpoint for standalone mode ("uniform": no network)
  --iteration I        iteration tag for standalone games (default 0)
  --summary FILE       standalone: write {games, moves, evaluations, seconds} JSON at the end
  --print-config       print the effective config as JSON and exit
  --print-config-doc   print every key's default and help text as JSON and exit
                       (dev/gen_config_doc.py makes docs/configuration.md's table of it)
  --help
)";

// The log file (run mode: <run>/logs/worker_<id>.log unless --log-file) and
// the first lines: the effective config and who set each key.
void StartLogging(const gz::CliArgs& args, const gz::Config& cfg, int id, bool standalone) {
  using namespace gz;
  std::string log_file = args.get(kLogFileFlag);
  if (log_file.empty() && !standalone) {
    MakeDirs(RunLayout(cfg.run.dir).logs());
    log_file = RunLayout(cfg.run.dir).log_file(RunLayout::worker_name(id));
  }
  InitLogging("worker" + std::to_string(id), log_file);
  spdlog::info("worker {} starting (pid {}); effective config: {}", id, ::getpid(), cfg.ToJson().dump());
  spdlog::info("config set by: {}", cfg.DescribeOrigins());
}

// In run mode the board/symmetry of the run come from metadata.json; wait
// for it before connecting so the handshake states the right geometry.
// False when stopped first.
bool AwaitRunGeometry(gz::Config* cfg, const std::atomic<bool>& stop) {
  using namespace gz;
  RunLayout layout(cfg->run.dir);
  double last_log = -1e9;
  while (!stop.load()) {
    try {
      if (auto md = ReadMetadata(layout.metadata())) {
        cfg->AdoptRunGeometry(Config::FromJson(md->config, layout.metadata()), layout.metadata());
        spdlog::info("run geometry from {}: board {} {}, symmetry {}", layout.metadata(), cfg->board.size,
                     cfg->board.rule, cfg->inference.symmetry);
        return !stop.load();
      }
    } catch (const IoError& e) {
      spdlog::warn("{}", e.what());
    }
    if (MonotonicSeconds() - last_log > 10) {
      spdlog::info("waiting for {} (the trainer creates it)", layout.metadata());
      last_log = MonotonicSeconds();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

// A config with the even share on may be run on a board without an even
// set (league runs change only the board): those games start as with
// share 0, and the worker says so once.
void WarnMissingEvenOpenings(const gz::Config& cfg) {
  using namespace gz;
  if (cfg.selfplay.even_opening_share > 0)
    for (const int size : cfg.board_sizes())
      if (EvenOpenings(size, cfg.rule()).empty())
        spdlog::warn("selfplay.even_opening_share {}: board {}x{} {} has no even opening set; its games start "
                     "as with share 0", cfg.selfplay.even_opening_share, size, size, cfg.board.rule);
}

// The games themselves: standalone (--games) or following the run.  Returns the exit code.
int RunWorker(const gz::CliArgs& args, const gz::Config& cfg, int id, bool standalone,
              const std::atomic<bool>& stop) {
  using namespace gz;
  WorkerEvaluators evals;
  SetUpLocal(cfg, &evals);   // one local evaluator per board size of the run
  SetUpRemote(cfg, &evals);  // the server iff GOMOKU_INFER_SOCK is set; throws ProtocolError on a refused handshake
  SelfPlayWorker worker(id, cfg, &evals, &stop);
  if (standalone)
    return worker.PlayStandalone(static_cast<int>(args.get_int("--games", 1)), args.get("--out"),
                                 args.get("--weights", "uniform"), args.get_int("--iteration", 0),
                                 args.get("--summary"));
  return worker.FollowRun(cfg.run.dir);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gz;
  const std::atomic<bool>& g_stop = InstallStopSignals(/*restart_syscalls=*/true);
  try {
    CliSpec spec{kUsage, {"--id", "--run-dir", "--games", "--out", "--weights", "--iteration", "--log-file",
                  "--summary"},
                 {"--print-config", "--print-config-doc"}};
    CliArgs args = ParseCli(argc, argv, spec);
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    if (args.has("--print-config-doc")) {
      std::cout << Config::DocJson().dump(2) << std::endl;
      return 0;
    }
    if (!args.has("--id")) GOMOKU_THROW(ConfigError, "--id is required (see --help)");
    const int id = static_cast<int>(args.get_int("--id", 0));
    if (id < 0) GOMOKU_THROW(ConfigError, "--id must be >= 0");
    Config cfg = Config::Load(args.config, args.sets);
    if (args.has("--run-dir")) cfg.Set("run.dir", args.get("--run-dir"), "--run-dir");
    if (args.has("--print-config")) {
      std::cout << cfg.ToJsonString() << std::endl;
      return 0;
    }
    const bool standalone = args.has("--games");
    StartLogging(args, cfg, id, standalone);
    if (!standalone && !AwaitRunGeometry(&cfg, g_stop)) return 0;
    WarnMissingEvenOpenings(cfg);
    const int rc = RunWorker(args, cfg, id, standalone, g_stop);
    spdlog::info("worker {} exiting with code {}", id, rc);
    return rc;
  } catch (const ConfigError& e) {
    if (spdlog::default_logger()) spdlog::error("config error: {}", e.what());
    std::cerr << "worker: config error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    spdlog::error("fatal: {}", e.what());
    std::cerr << "worker: fatal: " << e.what() << "\n";
    return 1;
  }
}
