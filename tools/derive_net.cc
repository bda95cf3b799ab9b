// build/bin/derive_net: a new net of another rule, heads or board size that
// starts from a trained one: every tensor whose name and shape match is copied
// (the residual tower, and the heads when they match), the rest is freshly
// initialised (InitSeeded).  A run then starts from it with
// train.init_weights (docs/engine.md "Nets for every league"), so a league's
// net need not learn the shapes of Gomoku from nothing.
//
// Exit codes: 0 written, 2 bad input (flags, unreadable checkpoint, nothing
// to copy), 1 anything else.  The output is written atomically, only when
// everything succeeded.
#include <algorithm>
#include <iostream>
#include <set>
#include <string>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/guarded_main.h"
#include "common/game/board.h"
#include "common/net/checkpoint.h"
#include "common/net/model.h"
#include "common/net/head_fit.h"

namespace {

const char* kUsage = R"(derive_net: a net of another rule / heads / size, started from a trained one.

Usage:
  derive_net --from CKPT --out NEW.pt [--rule freestyle|standard|renju|caro|caro-overline]
             [--heads fc|conv] [--board-size N] [--seed S]
             [--fit-positions N] [--fit-steps N] [--fit-heads-only]

Every parameter and BatchNorm buffer of NEW whose name and shape match CKPT's
is copied from CKPT; the others are initialised from --seed (default 1).
A conv-heads NEW made from an fc CKPT is then fitted to CKPT's outputs on
--fit-positions positions of its games (default 24000; 0: left as
initialised) in --fit-steps Adam steps (default 2000), tower and heads: a
distilled conv copy of CKPT (common/net/head_fit.h); the held-out fit is
printed.  --fit-heads-only keeps the copied tower frozen and fits the heads
alone (faster, but the heads alone cannot learn where the centre is).
Defaults: CKPT's rule, heads and board size.  NEW is iteration 0 and carries
CKPT's play settings.  Prints how many tensors were copied and which were not.
Exit codes: 0 done, 2 bad input, 1 other.
)";

struct InputError : gz::GomokuError {
  using gz::GomokuError::GomokuError;
};

int ParseIntFlag(const gz::CliArgs& args, const std::string& flag, int fallback, int lo, int hi) {
  long long v = 0;
  try {
    v = args.get_int(flag, fallback);
  } catch (const gz::GomokuError& e) {
    throw InputError(e.what());
  }
  if (v < lo || v > hi)
    throw InputError(flag + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                     std::to_string(v));
  return static_cast<int>(v);
}

// What the flags ask for, CKPT's rule, heads and size where they are not given.
struct Derivation {
  std::string from, out;
  gz::Rule rule;
  gz::NetHeads heads;
  int size = 0, seed = 1, fit_positions = 0, fit_steps = 0;
  bool heads_only = false;
};

// The source checkpoint; InputError when it does not load.
gz::PolicyValueNet LoadSource(const std::string& from, gz::CheckpointInfo* info) {
  try {
    return gz::LoadCheckpoint(from, {}, info);
  } catch (const gz::GomokuError& e) {
    throw InputError(e.what());
  }
}

// The flags past --from and --out, checked in the order the usage lists them.
void ParseTarget(const gz::CliArgs& args, const gz::CheckpointInfo& src_info, Derivation* d) {
  using namespace gz;
  std::string rule_name = args.has("--rule") ? args.get("--rule") : src_info.rule;
  try {
    d->rule = ParseRule(rule_name);
  } catch (const GomokuError& e) {
    throw InputError(std::string("--rule: ") + e.what());
  }
  try {
    d->heads = args.has("--heads") ? ParseNetHeads(args.get("--heads")) : src_info.heads;
  } catch (const GomokuError& e) {
    throw InputError(std::string("--heads: ") + e.what());
  }
  d->size = ParseIntFlag(args, "--board-size", src_info.board_size, kMinBoardSize, kMaxBoardSize);
  d->seed = ParseIntFlag(args, "--seed", 1, 0, 1 << 30);
  d->fit_positions = ParseIntFlag(args, "--fit-positions", 24000, 0, 1000000);
  d->fit_steps = ParseIntFlag(args, "--fit-steps", 2000, 1, 1000000);
  d->heads_only = args.switches.count("--fit-heads-only") > 0;
}

// Copies every parameter and buffer of `src` whose name and shape match into
// `dst`; returns how many, and the names of the others in *fresh.
int CopyMatching(gz::PolicyValueNet& src, gz::PolicyValueNet& dst, std::set<std::string>* fresh) {
  int copied = 0;
  auto copy_from = [&](torch::OrderedDict<std::string, torch::Tensor>& to,
                       const torch::OrderedDict<std::string, torch::Tensor>& from_dict) {
    for (auto& item : to) {
      const torch::Tensor* s = from_dict.find(item.key());
      if (s != nullptr && s->sizes() == item.value().sizes()) {
        item.value().copy_(*s);
        ++copied;
      } else {
        fresh->insert(item.key());
      }
    }
  };
  auto src_params = src->named_parameters(true);
  auto src_buffers = src->named_buffers(true);
  auto dst_params = dst->named_parameters(true);
  auto dst_buffers = dst->named_buffers(true);
  torch::NoGradGuard no_grad;
  copy_from(dst_params, src_params);
  copy_from(dst_buffers, src_buffers);
  return copied;
}

// Conv heads made from an fc net are fitted to it (common/net/head_fit.h):
// the fit's description, or "" when there is nothing to fit.
std::string FitIfFromFc(gz::PolicyValueNet& src, gz::PolicyValueNet& dst, const gz::CheckpointInfo& src_info,
                        const Derivation& d) {
  using namespace gz;
  const bool fit = d.heads == NetHeads::kConv && src->heads == NetHeads::kFc && d.fit_positions > 0;
  if (d.heads_only && !fit)
    throw InputError("--fit-heads-only: only conv heads made from an fc CKPT are fitted (and --fit-positions > 0)");
  if (!fit) return "";
  HeadFitOptions fo;
  fo.positions = std::max(d.fit_positions, 100);
  fo.steps = d.fit_steps;
  fo.seed = static_cast<uint64_t>(d.seed);
  fo.size = src_info.board_size;
  fo.rule = ParseRule(src_info.rule);
  fo.whole = !d.heads_only;
  return FitConvHeads(src, dst, fo).Describe();
}

void PrintSummary(const Derivation& d, const gz::CheckpointInfo& src_info, int copied,
                  const std::set<std::string>& fresh, const std::string& fitted) {
  using namespace gz;
  std::cout << "derive_net: " << d.out << ": " << RuleName(d.rule) << ", " << NetHeadsName(d.heads) << " heads, "
            << d.size << "x" << d.size << ", " << src_info.channels << "x" << src_info.blocks << "; " << copied
            << " tensors copied from " << d.from << ", " << fresh.size() << " initialised (seed " << d.seed << ")";
  if (!fresh.empty()) {
    std::cout << ":";
    for (const std::string& name : fresh) std::cout << " " << name;
  }
  std::cout << "\n";
  if (!fitted.empty())
    std::cout << "derive_net: " << (d.heads_only ? "heads" : "net") << " fitted to " << d.from << " on " << fitted
              << "\n";
}

int Run(int argc, char** argv) {
  using namespace gz;
  CliArgs args;
  try {
    args = ParseCli(argc, argv, CliSpec{kUsage, {"--from", "--out", "--rule", "--heads", "--board-size", "--seed",
                                                  "--fit-positions", "--fit-steps"}, {"--fit-heads-only"}});
  } catch (const GomokuError& e) {
    throw InputError(e.what());
  }
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  if (!args.config.empty() || !args.sets.empty()) throw InputError("derive_net takes no --config / --set");
  Derivation d;
  d.from = args.get("--from");
  d.out = args.get("--out");
  if (d.from.empty() || d.out.empty()) throw InputError("--from and --out are required\n" + std::string(kUsage));

  CheckpointInfo src_info;
  PolicyValueNet src = LoadSource(d.from, &src_info);
  ParseTarget(args, src_info, &d);
  PolicyValueNet dst(d.size, src_info.channels, src_info.blocks, d.heads);
  dst->InitSeeded(static_cast<uint64_t>(d.seed));
  std::set<std::string> fresh;
  const int copied = CopyMatching(src, dst, &fresh);
  if (copied == 0) throw InputError(d.from + ": no tensor of it fits the new net; nothing to start from");
  const std::string fitted = FitIfFromFc(src, dst, src_info, d);

  CheckpointInfo info;
  info.rule = RuleName(d.rule);
  info.seed = static_cast<uint64_t>(d.seed);
  info.play = src_info.play;
  SaveCheckpoint(d.out, dst, info);
  PrintSummary(d, src_info, copied, fresh, fitted);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return gz::GuardedToolMain<InputError>("derive_net", [&] { return Run(argc, argv); });
}
