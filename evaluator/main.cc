// build/bin/evaluator: ratings while the run goes on (docs/ratings.md).
//
//   evaluator --run-dir R --config C [--set key=value]... [--log-file FILE]
//
// Exit codes: 0 stopped by SIGTERM / SIGINT; 1 fatal error (logged, status
// "error"); 2 bad command line or config (a bad eval.ladder entry included).
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/logging.h"
#include "common/base/stop_signals.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "evaluator/eval_loop.h"

namespace {

const char* kUsage =
    "usage: evaluator --run-dir DIR --config FILE [--set dotted.key=value]... [--log-file FILE]\n"
    "Follows the run in DIR: evaluates its newest checkpoint now and then every eval.every iterations\n"
    "against eval.ladder, appends each game to DIR/eval/results.jsonl and rewrites DIR/ratings.jsonl\n"
    "(Elo anchored at eval.anchor, 95% intervals) and DIR/status/evaluator.json (docs/ratings.md).\n"
    "The log goes to DIR/logs/evaluator.log unless --log-file is given.  SIGTERM stops it.\n";

// The run's board (metadata.json's config) wins over the evaluator's config:
// the checkpoints were trained for it.
void TakeBoardFromRun(gz::Config& cfg, const gz::RunLayout& run) {
  try {
    auto m = gz::ReadMetadata(run.metadata());
    if (!m) return;
    const gz::Config shared = gz::Config::FromJson(m->config, run.metadata());
    if (shared.board.size != cfg.board.size || shared.board.rule != cfg.board.rule)
      spdlog::warn("evaluator: the run plays {}x{} {}; the config said {}x{} {}: using the run's", shared.board.size,
                   shared.board.size, shared.board.rule, cfg.board.size, cfg.board.size, cfg.board.rule);
    cfg.AdoptRunGeometry(shared, run.metadata());
  } catch (const gz::GomokuError& e) {
    spdlog::warn("evaluator: {}", e.what());
  }
}

void LowerPriority(int increment) {
  if (increment <= 0) return;
  errno = 0;
  const int current = ::getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return;
  const int wanted = std::min(19, current + increment);
  if (::setpriority(PRIO_PROCESS, 0, wanted) != 0)
    spdlog::warn("evaluator: setpriority({}): {}", wanted, std::strerror(errno));
  else
    spdlog::info("evaluator: nice {} -> {}", current, wanted);
}

}  // namespace

int main(int argc, char** argv) {
  gz::Config cfg;
  std::string run_dir;
  try {
    gz::CliSpec spec;
    spec.usage = kUsage;
    spec.value_flags = {"--run-dir", gz::kLogFileFlag};
    gz::CliArgs args = gz::ParseCli(argc, argv, spec);
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    if (!args.has("--run-dir")) GOMOKU_THROW(gz::ConfigError, "--run-dir is required (see --help)");
    run_dir = args.get("--run-dir");
    cfg = gz::Config::Load(args.config, args.sets);
    cfg.Set("run.dir", run_dir, "--run-dir");
    gz::RunLayout run(run_dir);
    gz::MakeDirs(run.logs());
    gz::InitLogging("evaluator", args.get(gz::kLogFileFlag, run.log_file("evaluator")));
    TakeBoardFromRun(cfg, run);
    spdlog::info("config set by: {}", cfg.DescribeOrigins());
    const std::atomic<bool>& g_stop = gz::InstallStopSignals(/*restart_syscalls=*/false);
    LowerPriority(cfg.eval.nice);
    std::string ladder;
    for (const std::string& e : cfg.eval.ladder) ladder += (ladder.empty() ? "" : ", ") + e;
    spdlog::info("evaluator: run {}, ladder [{}], anchor {}, {} games per opponent, {} simulations, every {}",
                 run_dir, ladder, cfg.eval.anchor, cfg.eval.games, cfg.eval.simulations,
                 cfg.eval.every);
    gz::EvalLoop loop(cfg, run, g_stop);
    try {
      const int code = loop.Run();
      spdlog::info("evaluator: stopped");
      return code;
    } catch (const std::exception& e) {
      spdlog::error("evaluator failed: {}", e.what());
      return 1;
    }
  } catch (const gz::ConfigError& e) {
    std::cerr << "evaluator: " << e.what() << "\n";
    spdlog::error("evaluator: {}", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "evaluator: fatal: " << e.what() << "\n";
    return 1;
  }
}
