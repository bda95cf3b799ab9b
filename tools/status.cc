// build/bin/gz_status: the status view behind launch/status.sh.
#include <iostream>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/guarded_main.h"
#include "common/data/run_layout.h"
#include "common/net/net_api.h"
#include "tools/status_lib.h"

namespace {
const char* kUsage = R"(gz_status: progress, ETA and liveness of a run, from structured state.

Usage:
  gz_status --run-dir DIR [--json] [--last N]
  gz_status --device        prints "cuda" or "cpu" and why (used by launch/start.sh)
  gz_status --layout        prints the run directory's names as JSON, accessor -> path with example
                            arguments (common/data/run_layout.h; experiments/runlib.py --check-layout)
)";

int Run(int argc, char** argv) {
  using namespace gz;
  CliArgs args = ParseCli(argc, argv, CliSpec{kUsage, {"--run-dir", "--last"}, {"--json", "--device", "--layout"}});
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  if (args.has("--device")) {
    bool cuda = CudaAvailable();
    std::cout << (cuda ? "cuda" : "cpu") << "\t"
              << (cuda ? "LibTorch sees a CUDA device" : "LibTorch has no usable CUDA device (CPU build or no GPU)")
              << "\n";
    return 0;
  }
  if (args.has("--layout")) {
    nlohmann::json names = nlohmann::json::object();
    for (const auto& [name, path] : RunLayoutExamples()) names[name] = path;
    std::cout << names.dump(1) << "\n";
    return 0;
  }
  if (!args.has("--run-dir")) GOMOKU_THROW(ConfigError, "--run-dir is required (see --help)");
  StatusOptions opt;
  opt.run_dir = args.get("--run-dir");
  opt.generations = static_cast<int>(args.get_int("--last", 12));
  auto s = CollectStatus(opt);
  if (args.has("--json")) std::cout << s.dump(2) << "\n";
  else std::cout << FormatStatus(s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return gz::GuardedToolMain<gz::ConfigError>("gz_status", [&] { return Run(argc, argv); });
}
