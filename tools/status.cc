// build/bin/gz_status: the status view behind launch/status.sh.
#include <iostream>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/net/net_api.h"
#include "tools/status_lib.h"

namespace {
const char* kUsage = R"(gz_status: progress, ETA and liveness of a run, from structured state.

Usage:
  gz_status --run-dir DIR [--json] [--last N]
  gz_status --device        prints "cuda" or "cpu" and why (used by launch/start.sh)
)";
}

int main(int argc, char** argv) {
  using namespace gz;
  try {
    CliArgs args = ParseCli(argc, argv, CliSpec{kUsage, {"--run-dir", "--last"}, {"--json", "--device"}});
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
    if (!args.has("--run-dir")) GOMOKU_THROW(ConfigError, "--run-dir is required (see --help)");
    StatusOptions opt;
    opt.run_dir = args.get("--run-dir");
    opt.generations = static_cast<int>(args.get_int("--last", 12));
    auto s = CollectStatus(opt);
    if (args.has("--json")) std::cout << s.dump(2) << "\n";
    else std::cout << FormatStatus(s);
    return 0;
  } catch (const ConfigError& e) {
    std::cerr << "gz_status: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gz_status: " << e.what() << "\n";
    return 1;
  }
}
