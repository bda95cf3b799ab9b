// Settings of the engine binaries (pbrain-gomoku-zero and play).
//
// Sources, later ones win:
//   built-in defaults
//   < the engine settings file: --settings PATH, else pbrain-gomoku-zero.json
//     next to the executable when it exists
//   < command line (--weights, --player, --max-simulations, --log-file, --set key=value).
//
// The settings file is a strict JSON object (unknown keys are ConfigErrors):
//   {
//     "weights": "best.ckpt",        // checkpoint; relative = relative to the file; "none" = the
//                                    // rollout baseline
//     "league_nets": ["a.pt", ...],  // more checkpoints, one picked per game by rule and size
//                                    // (common/match/evaluator_source.h); relative = relative to the file
//     "player": "net",               // "net" (weights / league_nets / baseline) or "classical:N":
//                                    // the classical player, N nodes a move, no net (classical_player.h)
//     "max_simulations": 200000,     // cap on new simulations per move
//     "log_file": "pbrain.log",      // relative = relative to the file
//     "config": { "mcts": {"c_puct": 1.5}, "inference": {"symmetry": "all8"}, "run": {"seed": 1} }
//   }
// "config" is a partial project Config (common/config/config.h); the engine reads
// the play settings (Config::PlaySettingKeys: mcts.c_puct, mcts.fpu_*,
// mcts.solver*), mcts.tree_reuse, engine.batch, engine.threads,
// inference.device, inference.threads, inference.symmetry and run.seed.
// Dirichlet noise is never used by the engine.  Play settings nobody set come
// from the checkpoint's run (AdoptEnginePlaySettings), then from the engine's
// defaults.  Old key names (Config::RenamedKeys, e.g. mcts.engine_batch) still
// load from the file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/config/config.h"
#include "common/match/evaluator_source.h"
#include "common/match/move_player.h"

namespace gz {

constexpr const char* kEngineSettingsFileName = "pbrain-gomoku-zero.json";
constexpr int kDefaultEngineMaxSimulations = 200000;
// --weights none: the pure-MCTS rollout baseline, only when asked for.
constexpr const char* kBaselineWeights = "none";

struct EngineSettings {
  std::string weights;      // "" = no net of its own (league_nets, or see `baseline`)
  // --weights none / "weights": "none": the pure-MCTS rollout baseline was
  // asked for.  Without it and without any net, pbrain-gomoku-zero plays the
  // classical player instead (the baseline is a yardstick, not a player).
  bool baseline = false;
  std::vector<std::string> league_nets;  // picked per game with `weights` (EvaluatorSource)
  int max_simulations = kDefaultEngineMaxSimulations;
  int64_t classical_nodes = 0;  // player "classical:N": N; 0 = player "net"
  std::string log_file;     // "" = stderr only
  std::string source_file;  // the settings file that was read, "" if none
  Config config;
};

struct EngineCommandLine {
  std::string settings_file;  // --settings; "" = look next to the executable
  std::string weights;        // --weights; "" = not given
  std::string player;         // --player; "" = not given
  int max_simulations = -1;   // --max-simulations; -1 = not given
  std::string log_file;       // --log-file
  std::vector<std::string> overrides;  // --set key=value
  // No settings file, --weights or --player: play the shipped nets
  // (ShippedLeagueNets next to the executable or in the source tree), as
  // pbrain-gomoku-zero does wherever it is started from; false keeps the
  // rollout baseline (analyze, and play, which picks its own net).
  bool shipped_nets_by_default = false;
};

// Reads one settings file.  Throws ConfigError / IoError naming the file and key.
EngineSettings LoadEngineSettingsFile(const std::string& path);

// Applies the precedence above.  `executable_dir` is where the default file is
// looked for.  Throws ConfigError / IoError.
EngineSettings ResolveEngineSettings(const EngineCommandLine& cl, const std::string& executable_dir);

// What plays: the classical player when settings.classical_nodes > 0 (no
// source), else a SearchPlayer over an EvaluatorSource of the settings' nets.
// The player refers to the source: keep both together.
struct EnginePlayer {
  std::unique_ptr<EvaluatorSource> source;  // null for the classical player
  std::unique_ptr<MovePlayer> player;
};
EnginePlayer MakeEnginePlayer(const EngineSettings& settings);

// The engine's own defaults for play settings that nobody set (measured,
// docs/engine.md "Default search settings"): mcts.solver on with VCT at the
// root (mcts.solver_vct_nodes 1000), one random symmetry per evaluation.
const std::map<std::string, std::string>& EngineDefaultPlaySettings();

// The play settings layer: with a checkpoint (`weights`, else the first league
// net; the league nets are trained with one recipe), its run's settings
// (ReadPlaySettings: the header, else a .config.json beside it) for every key
// the settings file and --set left alone, then EngineDefaultPlaySettings()
// for the keys still unset.  Each key's origin says which (Config::
// DescribePlaySettings).  Part of ResolveEngineSettings; throws ConfigError
// for a bad sidecar; an unreadable checkpoint is left to EvaluatorSource.
void AdoptEnginePlaySettings(EngineSettings& s);

// The engine's flags for the shared parser (common/base/cli.h), and the
// command line they make.  Throws ConfigError (e.g. --config, which engines
// do not take: their settings file is --settings).
std::set<std::string> EngineValueFlags();
EngineCommandLine EngineCommandLineFrom(const CliArgs& args);

// An engine program's command line: the engine flags and the program's own
// value flags `extra`.  --help: prints `usage` to stdout and returns nullopt
// (the program exits 0).  Throws ConfigError for a bad or unknown flag unless
// ignore_unknown (GUIs pass flags of their own), then CliArgs::ignored lists them.
std::optional<CliArgs> ParseEngineArgs(int argc, char** argv, const std::string& usage,
                                       const std::set<std::string>& extra = {}, bool ignore_unknown = false);

// Help text for the engine flags (EngineValueFlags).
const char* EngineFlagsHelp();

}  // namespace gz
