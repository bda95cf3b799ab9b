// Settings of the engine binaries (pbrain-gomoku-zero and play).
//
// Sources, later ones win:
//   built-in defaults
//   < the engine settings file: --settings PATH, else pbrain-gomoku-zero.json
//     next to the executable when it exists
//   < command line (--weights, --max-simulations, --log-file, --set key=value).
//
// The settings file is a strict JSON object (unknown keys are ConfigErrors):
//   {
//     "weights": "best.ckpt",        // checkpoint; relative = relative to the file; "" = baseline
//     "max_simulations": 200000,     // cap on new simulations per move
//     "log_file": "pbrain.log",      // relative = relative to the file
//     "config": { "mcts": {"c_puct": 1.5}, "inference": {"symmetry": "all8"}, "run": {"seed": 1} }
//   }
// "config" is a partial project Config (common/config/config.h); the engine reads
// mcts.c_puct, mcts.fpu_value, mcts.tree_reuse, inference.device,
// inference.threads, inference.symmetry and run.seed.  Dirichlet noise is
// never used by the engine.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/config/config.h"

namespace gz {

constexpr const char* kEngineSettingsFileName = "pbrain-gomoku-zero.json";
constexpr int kDefaultEngineMaxSimulations = 200000;

struct EngineSettings {
  std::string weights;      // "" = pure-MCTS baseline (rollout evaluator)
  int max_simulations = kDefaultEngineMaxSimulations;
  std::string log_file;     // "" = stderr only
  std::string source_file;  // the settings file that was read, "" if none
  Config config;
};

struct EngineCommandLine {
  std::string settings_file;  // --settings; "" = look next to the executable
  std::string weights;        // --weights; "" = not given
  int max_simulations = -1;   // --max-simulations; -1 = not given
  std::string log_file;       // --log-file
  std::vector<std::string> overrides;  // --set key=value
};

// Reads one settings file.  Throws ConfigError / IoError naming the file and key.
EngineSettings LoadEngineSettingsFile(const std::string& path);

// Applies the precedence above.  `executable_dir` is where the default file is
// looked for.  Throws ConfigError / IoError.
EngineSettings ResolveEngineSettings(const EngineCommandLine& cl, const std::string& executable_dir);

// Directory of the running executable (/proc/self/exe), "." if unknown.
std::string ExecutableDir();

// The engine's flags for the shared parser (common/base/cli.h), and the
// command line they make.  Throws ConfigError (e.g. --config, which engines
// do not take: their settings file is --settings).
std::set<std::string> EngineValueFlags();
EngineCommandLine EngineCommandLineFrom(const CliArgs& args);

// Help text for the engine flags (EngineValueFlags).
const char* EngineFlagsHelp();

}  // namespace gz
