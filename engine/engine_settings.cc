#include "engine/engine_settings.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/match/classical_player.h"
#include "common/match/search_player.h"
#include "common/match/shipped_nets.h"
#include "common/net/play_settings.h"

namespace gz {
namespace {

namespace fs = std::filesystem;

std::string ResolveRelative(const std::string& path, const std::string& base_dir) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

int ParseInt(const std::string& flag, const std::string& text, int lo, int hi) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used == text.size() && v >= lo && v <= hi) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  GOMOKU_THROW(ConfigError, flag << " expects an integer in [" << lo << ", " << hi << "], got '" << text << "'");
}

// "net" -> 0, "classical:N" -> N; anything else is a ConfigError naming `what`.
int64_t ParsePlayer(const std::string& text, const std::string& what) {
  if (text == "net") return 0;
  const int64_t n = ParseClassicalSpec(text, what);
  if (n == 0) GOMOKU_THROW(ConfigError, what << ": expected net or classical:N, got '" << text << "'");
  return n;
}

}  // namespace

EngineSettings LoadEngineSettingsFile(const std::string& path) {
  using nlohmann::json;
  json j;
  try {
    j = json::parse(ReadFileOrThrow(path));
  } catch (const json::exception& e) {
    GOMOKU_THROW(ConfigError, path << ": not valid JSON: " << e.what());
  }
  if (!j.is_object()) GOMOKU_THROW(ConfigError, path << ": the engine settings must be a JSON object");
  const std::string dir = fs::path(path).parent_path().string();
  EngineSettings s;
  s.source_file = path;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "weights" || key == "log_file") {
      if (!v.is_string()) GOMOKU_THROW(ConfigError, path << ": key '" << key << "' must be a string");
      if (key == "weights" && v.get<std::string>() == kBaselineWeights) s.baseline = true;
      else (key == "weights" ? s.weights : s.log_file) = ResolveRelative(v.get<std::string>(), dir);
    } else if (key == "league_nets") {
      if (!v.is_array()) GOMOKU_THROW(ConfigError, path << ": key 'league_nets' must be a list of checkpoint paths");
      for (const json& e : v) {
        if (!e.is_string() || e.get<std::string>().empty())
          GOMOKU_THROW(ConfigError, path << ": key 'league_nets' must hold non-empty strings (checkpoint paths)");
        s.league_nets.push_back(ResolveRelative(e.get<std::string>(), dir));
      }
    } else if (key == "player") {
      if (!v.is_string()) GOMOKU_THROW(ConfigError, path << ": key 'player' must be a string (net or classical:N)");
      s.classical_nodes = ParsePlayer(v.get<std::string>(), path + ": key 'player'");
    } else if (key == "max_simulations") {
      if (!v.is_number_integer() || v.get<long long>() < 2 || v.get<long long>() > 100000000)
        GOMOKU_THROW(ConfigError, path << ": key 'max_simulations' must be an integer in [2, 100000000]");
      s.max_simulations = v.get<int>();
    } else if (key == "config") {
      s.config = Config::FromJson(v, path + " (config)");
    } else {
      GOMOKU_THROW(ConfigError, path << ": unknown key '" << key
                                     << "' (expected weights, league_nets, player, max_simulations, log_file, config)");
    }
  }
  return s;
}

EngineSettings ResolveEngineSettings(const EngineCommandLine& cl, const std::string& executable_dir) {
  EngineSettings s;
  if (!cl.settings_file.empty()) {
    s = LoadEngineSettingsFile(cl.settings_file);
  } else {
    std::string next_to_binary = (fs::path(executable_dir) / kEngineSettingsFileName).string();
    if (FileExists(next_to_binary)) s = LoadEngineSettingsFile(next_to_binary);
  }
  if (cl.weights == kBaselineWeights) {  // --weights none: the rollout baseline, asked for
    s.weights.clear();
    s.league_nets.clear();
    s.baseline = true;
  } else if (!cl.weights.empty()) {  // --weights: that net plays every game
    s.weights = cl.weights;
    s.league_nets.clear();
    s.baseline = false;
  }
  if (!cl.player.empty()) {
    s.classical_nodes = ParsePlayer(cl.player, "--player");
    if (s.classical_nodes > 0 && !cl.weights.empty())
      GOMOKU_THROW(ConfigError, "--weights " << cl.weights << " and --player " << cl.player
                                             << ": the classical player uses no net (drop one of them)");
  } else if (!cl.weights.empty()) {
    s.classical_nodes = 0;  // --weights: that net plays, whatever the file's player
  }
  if (cl.max_simulations > 0) s.max_simulations = cl.max_simulations;
  if (!cl.log_file.empty()) s.log_file = cl.log_file;
  for (const std::string& o : cl.overrides) s.config.ApplyOverride(o);
  if (cl.shipped_nets_by_default && s.source_file.empty() && !s.baseline && s.weights.empty() &&
      s.league_nets.empty() && s.classical_nodes == 0)
    s.league_nets = ShippedLeagueNets(ShippedNetDirs(executable_dir));
  AdoptEnginePlaySettings(s);
  s.config.Validate();
  return s;
}

const std::map<std::string, std::string>& EngineDefaultPlaySettings() {
  // Measured (docs/engine.md "Default search settings"): the threat solver
  // wins games the plain search loses in 10-14 stones; one random symmetry
  // per evaluation lets the batched search evaluate ~8x more positions than
  // all eight, and beat it 28/0/12 at 0.5 s a move.  VCT at the root (1000
  // nodes a query, about a millisecond): the shipped net scored 0.80 against
  // the reference net with it and 0.61 without (benchmarks-log.md "VCT: threats with threes").
  static const std::map<std::string, std::string> defaults = {{"mcts.solver", "true"},
                                                              {"mcts.solver_vct_nodes", "1000"},
                                                              {"inference.symmetry", "random"}};
  return defaults;
}

void AdoptEnginePlaySettings(EngineSettings& s) {
  const std::string& first = !s.weights.empty() ? s.weights : (s.league_nets.empty() ? s.weights : s.league_nets[0]);
  if (!first.empty()) {
    try {
      const PlaySettingsFound found = ReadPlaySettings(first, Config::PlaySettingKeys());
      if (!found.settings.empty()) s.config.AdoptPlaySettings(found.settings, found.source);
    } catch (const ConfigError&) {
      throw;  // a bad sidecar or setting names itself
    } catch (const GomokuError&) {
      // An unreadable checkpoint is reported at START by EvaluatorSource.
    }
  }
  s.config.AdoptPlaySettings(EngineDefaultPlaySettings(), "engine default");
}

EnginePlayer MakeEnginePlayer(const EngineSettings& settings) {
  EnginePlayer e;
  if (settings.classical_nodes > 0) {
    e.player = std::make_unique<ClassicalPlayer>(settings.classical_nodes);
  } else {
    e.source = std::make_unique<EvaluatorSource>(settings.weights, settings.config, settings.league_nets);
    e.player = std::make_unique<SearchPlayer>(*e.source, settings.config);
  }
  return e;
}

std::set<std::string> EngineValueFlags() {
  return {"--weights", "--player", "--settings", "--max-simulations", kLogFileFlag};
}

EngineCommandLine EngineCommandLineFrom(const CliArgs& args) {
  if (!args.config.empty())
    GOMOKU_THROW(ConfigError, "--config is not an engine flag: the engine reads --settings (or --set key=value)");
  EngineCommandLine cl;
  cl.weights = args.get("--weights");
  cl.player = args.get("--player");
  cl.settings_file = args.get("--settings");
  if (args.has("--max-simulations")) cl.max_simulations = ParseInt("--max-simulations", args.get("--max-simulations"), 2, 100000000);
  cl.log_file = args.get(kLogFileFlag);
  cl.overrides = args.sets;
  return cl;
}

std::optional<CliArgs> ParseEngineArgs(int argc, char** argv, const std::string& usage,
                                       const std::set<std::string>& extra, bool ignore_unknown) {
  CliSpec spec{usage, EngineValueFlags(), {}};
  spec.value_flags.insert(extra.begin(), extra.end());
  spec.ignore_unknown = ignore_unknown;
  CliArgs args = ParseCli(argc, argv, spec);
  if (args.help) {
    std::cout << usage;
    return std::nullopt;
  }
  return args;
}

const char* EngineFlagsHelp() {
  return "  --weights PATH|none    checkpoint to play with; none = the pure-MCTS rollout baseline (default: the\n"
         "                         settings file's; pbrain-gomoku-zero without one: the shipped nets in nets/)\n"
         "  --player net|classical:N  the net (default) or the classical player, N nodes a move, no net\n"
         "  --settings PATH        engine settings JSON (default: pbrain-gomoku-zero.json next to the binary)\n"
         "  --max-simulations N    cap on new MCTS simulations per move\n"
         "  --log-file PATH        also write logs to this file (logs never go to stdout)\n"
         "  --set key=value        project config override, e.g. --set mcts.c_puct=2.0\n";
}

}  // namespace gz
