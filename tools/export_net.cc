// build/bin/export_net: a checkpoint -> a numpy-readable .npz of the net (and
// optionally a check file of positions with the C++ forward's outputs), for
// loading the net outside our code (tools/net_to_torch.py; docs/network.md
// "Loading a net in Python / ONNX").  Exit codes: 0 written, 2 bad input (flags,
// missing or corrupt checkpoint), 1 anything else (e.g. an output that cannot be
// written).  Nothing is written unless everything succeeded.
#include <cstdio>
#include <iostream>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/guarded_main.h"
#include "common/net/net_export.h"

namespace {
const char* kUsage = R"(export_net: write a checkpoint's net as a numpy-readable .npz.

Usage:
  export_net --weights CKPT --out NET.npz
             [--check-positions N --check-out CHECK.npz] [--check-seed S]
             [--check-board-size SIZE] [--threads T]

NET.npz holds "header" (uint8: UTF-8 JSON with the format, encoder version,
rule, board size, channels, blocks, heads, iteration, model_generation and the
input/output contract) and every parameter and BatchNorm buffer of the net,
named as in the model (input_conv.weight, tower.0.bn1.running_mean, ...).
With --check-positions N, CHECK.npz holds N positions of random legal games
(deterministic in --check-seed, default 1) as encoded input planes and the C++
forward's log_policy and value for each, so a rebuilt net can be compared
(tools/net_to_torch.py).  --check-board-size plays them on another size (conv
heads only).  --threads: intra-op threads of that forward (default 1).
Format: docs/file-formats.md "Exported nets".  Both files are written
atomically, and neither is written when anything fails.
Exit codes: 0 done, 2 bad input (flags, missing or corrupt checkpoint), 1 other.
)";

int Run(int argc, char** argv) {
  using namespace gz;
  CliSpec spec{kUsage,
               {"--weights", "--out", "--check-positions", "--check-out", "--check-seed", "--check-board-size",
                "--threads"},
               {}};
  CliArgs args;
  try {
    args = ParseCli(argc, argv, spec);
  } catch (const GomokuError& e) {
    throw ExportInputError(e.what());
  }
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  ExportOptions o;
  try {
    if (!args.config.empty() || !args.sets.empty())
      throw ExportInputError("export_net takes no --config / --set (the checkpoint says everything)");
    o.weights = args.get("--weights");
    o.out = args.get("--out");
    o.check_out = args.get("--check-out");
    o.check_positions = static_cast<int>(args.get_int("--check-positions", 0));
    o.check_seed = static_cast<uint64_t>(args.get_int("--check-seed", 1));
    o.check_board_size = static_cast<int>(args.get_int("--check-board-size", 0));
    o.threads = static_cast<int>(args.get_int("--threads", 1));
  } catch (const ConfigError& e) {
    throw ExportInputError(e.what());
  }
  const ExportSummary s = ExportNet(o);
  std::printf("export_net: %s -> %s: %s heads, %dx%d, board %d, rule %s, iteration %lld, generation %lld, "
              "%d tensors, %llu bytes\n",
              o.weights.c_str(), o.out.c_str(), NetHeadsName(s.info.heads), s.info.channels, s.info.blocks,
              s.info.board_size, s.info.rule.c_str(), static_cast<long long>(s.info.iteration),
              static_cast<long long>(s.info.model_generation), s.tensors,
              static_cast<unsigned long long>(s.net_bytes));
  if (o.check_positions > 0)
    std::printf("export_net: %d check positions (seed %llu) -> %s, %llu bytes\n", o.check_positions,
                static_cast<unsigned long long>(o.check_seed), o.check_out.c_str(),
                static_cast<unsigned long long>(s.check_bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return gz::GuardedToolMain<gz::ExportInputError>("export_net", [&] { return Run(argc, argv); });
}
