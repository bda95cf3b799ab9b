// build/bin/trainer: the generation loop (docs/trainer.md).
//
//   trainer --config FILE [--set dotted.key=value]... [--log-file FILE] [--rank R]
//   trainer timetable --run-dir DIR [--last N]
//
// --rank R (data-parallel training, train.world_size > 1): rank 0 (default)
// is the trainer; ranks 1..world_size-1 follow it (trainer/rank_follower.h).
//
// Exit codes: 0 finished (run.max_iterations reached) or stopped by
// SIGINT/SIGTERM; 1 fatal error (logged: a peer rank died, the rendezvous
// timed out, ...); 2 bad command line or config (a --rank out of range).
#include <csignal>
#include <cstdio>
#include <iostream>

#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/config/config.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/logging.h"
#include "common/base/stop_signals.h"
#include "common/data/run_layout.h"
#include "trainer/generation_log.h"
#include "trainer/rank_follower.h"
#include "trainer/trainer.h"

namespace {

const char* kUsage =
    "usage: trainer --config FILE [--set dotted.key=value]... [--log-file FILE (default <run>/logs/trainer.log)]\n"
    "               [--rank R (data-parallel: 0 = the trainer, 1..train.world_size-1 = followers)]\n"
    "       trainer timetable --run-dir DIR [--last N]\n"
    "Runs the training loop of the run in config run.dir (docs/trainer.md), or prints the\n"
    "per-iteration time table (self-play / training / total) from DIR/generations.jsonl.\n";

int TimeTable(const gz::CliArgs& args) {
  if (!args.has("--run-dir")) GOMOKU_THROW(gz::ConfigError, "timetable needs --run-dir DIR");
  gz::RunLayout run(args.get("--run-dir"));
  gz::GenerationLog log = gz::ReadGenerationLog(run.generations());
  if (log.bad_lines > 0)
    std::cerr << "note: skipped " << log.bad_lines << " unparseable line(s) in " << run.generations() << "\n";
  gz::PrintTimeTable(log.records, static_cast<int>(args.get_int("--last", 0)), std::cout);
  return 0;
}

// A follower rank: its own log file, no other file in the run directory.
int Follow(const gz::Config& config, int rank, const gz::CliArgs& args) {
  gz::RunLayout run(config.run.dir);
  gz::MakeDirs(run.logs());
  const std::string name = "trainer-rank" + std::to_string(rank);
  gz::InitLogging(name, args.get(gz::kLogFileFlag, run.log_file(name)));
  spdlog::info("config set by: {}", config.DescribeOrigins());
  const std::atomic<bool>& g_stop = gz::InstallStopSignals(/*restart_syscalls=*/false);
  try {
    gz::RankFollower follower(config, rank);
    return follower.Run(g_stop);
  } catch (const gz::ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    spdlog::error("trainer rank {} failed: {}", rank, e.what());
    return 1;
  }
}

int Train(const gz::CliArgs& args) {
  gz::Config config = gz::Config::Load(args.config, args.sets);
  const long long rank = args.get_int("--rank", 0);
  if (rank < 0 || rank >= config.train.world_size)
    GOMOKU_THROW(gz::ConfigError, "--rank " << rank << " is out of range: config key 'train.world_size' is "
                                            << config.train.world_size << " (ranks 0.."
                                            << config.train.world_size - 1 << ")");
  if (rank > 0) return Follow(config, static_cast<int>(rank), args);
  gz::RunLayout run(config.run.dir);
  gz::MakeDirs(run.logs());
  gz::InitLogging("trainer", args.get(gz::kLogFileFlag, run.log_file("trainer")));
  spdlog::info("config set by: {}", config.DescribeOrigins());
  const std::atomic<bool>& g_stop = gz::InstallStopSignals(/*restart_syscalls=*/false);
  try {
    gz::Trainer trainer(config);
    return trainer.Run(g_stop);
  } catch (const std::exception& e) {
    spdlog::error("trainer failed: {}", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    gz::CliSpec spec;
    spec.usage = kUsage;
    spec.value_flags = {"--run-dir", "--last", "--rank", gz::kLogFileFlag};
    spec.allow_positional = true;
    gz::CliArgs args = gz::ParseCli(argc, argv, spec);
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    if (args.positional.size() == 1 && args.positional[0] == "timetable") return TimeTable(args);
    if (!args.positional.empty())
      GOMOKU_THROW(gz::ConfigError, "unknown command '" << args.positional[0] << "'");
    if (args.config.empty() && args.sets.empty()) GOMOKU_THROW(gz::ConfigError, "missing --config FILE");
    return Train(args);
  } catch (const gz::ConfigError& e) {
    std::cerr << "trainer: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trainer: " << e.what() << "\n";
    return 1;
  }
}
