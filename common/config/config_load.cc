// Where a config's values come from and how they leave: defaults, JSON files
// (relative paths against the file), --set, the bound environment variables
// and a run's geometry, each key's origin; the play settings a net carries;
// the config as JSON, as the key table and as the "key=value (origin)" lines
// programs log.
#include "common/config/config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/config/config_registry.h"
#include "common/data/run_layout.h"

namespace gz {
namespace {

using config_detail::MakeRegistry;
using config_detail::ParseSizeShare;
using config_detail::Registry;
using nlohmann::json;

// The new name of a renamed key (Config::RenamedKeys), or nullptr.
const std::string* RenamedTo(const std::string& key) {
  for (const auto& [old_key, new_key] : Config::RenamedKeys())
    if (old_key == key) return &new_key;
  return nullptr;
}

void Flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, const json*>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object()) Flatten(it.value(), key, out);
    else out.emplace_back(key, &it.value());
  }
}

}  // namespace

SelfPlayParams Config::selfplay_params() const {
  SelfPlayParams p = selfplay;  // the selfplay.* keys (board_sizes is the worker's, not the game's)
  p.mcts = mcts;
  return p;
}

void Config::Apply(const json& j, const std::string& source) {
  if (!j.is_object()) GOMOKU_THROW(ConfigError, source << ": the config must be a JSON object");
  Registry reg = MakeRegistry(*this);
  std::vector<std::pair<std::string, const json*>> leaves;
  Flatten(j, "", leaves);
  for (auto& [written, val] : leaves) {
    std::string key = written, from = source;
    if (const std::string* renamed = RenamedTo(written)) {  // an old file: the value goes to the new key
      for (const auto& other : leaves)
        if (other.first == *renamed)
          GOMOKU_THROW(ConfigError, source << ": config key '" << written << "' is the old name of '" << *renamed
                                           << "': give only '" << *renamed << "'");
      key = *renamed;
      from = source + " (as " + written + ")";
    }
    auto it = reg.find(key);
    if (it == reg.end()) GOMOKU_THROW(ConfigError, source << ": unknown config key '" << key << "'");
    try {
      it->second.set(*val, key);
    } catch (const ConfigError& e) {
      GOMOKU_THROW(ConfigError, from << ": " << e.what());
    }
    origins_[key] = from;
  }
}

void Config::ApplyOverride(const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    GOMOKU_THROW(ConfigError, "--set expects dotted.key=value, got '" << assignment << "'");
  std::string key = assignment.substr(0, eq), raw = assignment.substr(eq + 1);
  Set(key, raw, "--set");
}

void Config::Set(const std::string& key, const std::string& raw, const std::string& source) {
  if (const std::string* renamed = RenamedTo(key))
    GOMOKU_THROW(ConfigError, source << ": config key '" << key << "' was renamed to '" << *renamed << "'");
  Registry reg = MakeRegistry(*this);
  auto it = reg.find(key);
  if (it == reg.end()) GOMOKU_THROW(ConfigError, source << ": unknown config key '" << key << "'");
  json v;
  try {
    v = json::parse(raw);
    if (v.is_object() || v.is_null()) v = raw;  // arrays stay arrays (string lists)
  } catch (const json::exception&) {
    v = raw;  // plain strings need no quotes
  }
  try {
    it->second.set(v, key);
  } catch (const ConfigError& e) {
    GOMOKU_THROW(ConfigError, source << ": " << e.what());
  }
  origins_[key] = source;
}

const std::vector<std::pair<std::string, std::string>>& Config::RenamedKeys() {
  // The engine's batch and threads were mcts.* keys (in MctsParams) until the
  // search's own settings and the engine's were separated.
  static const std::vector<std::pair<std::string, std::string>> kRenamed = {
      {"mcts.engine_batch", "engine.batch"},
      {"mcts.engine_threads", "engine.threads"},
  };
  return kRenamed;
}

const std::vector<std::pair<std::string, std::string>>& Config::EnvironmentBindings() {
  static const std::vector<std::pair<std::string, std::string>> kBindings = {
      {"GOMOKU_INFER_SOCK", "server.socket"},   // also: workers use the server iff it is set
      {"GOMOKU_MAX_BATCH", "server.max_batch"},
      {"GOMOKU_MAX_WAIT_MS", "server.max_wait"},
  };
  return kBindings;
}

void Config::ApplyEnvironment() {
  for (const auto& [var, key] : EnvironmentBindings()) {
    const char* v = std::getenv(var.c_str());
    if (v && *v) Set(key, v, "env " + var);
  }
}

void Config::AdoptRunGeometry(const Config& shared, const std::string& source) {
  board = shared.board;
  inference.symmetry = shared.inference.symmetry;
  selfplay.board_sizes = shared.selfplay.board_sizes;
  net.heads = shared.net.heads;
  for (const char* key : {"board.size", "board.rule", "inference.symmetry", "selfplay.board_sizes", "net.heads"})
    origins_[key] = source;
}

std::vector<std::pair<int, double>> Config::board_size_shares() const {
  std::vector<std::pair<int, double>> out;
  for (const auto& e : selfplay.board_sizes) out.push_back(ParseSizeShare(e));
  return out;
}

std::vector<int> Config::board_sizes() const {
  std::vector<int> out{board.size};
  for (const auto& [size, weight] : board_size_shares()) out.push_back(size);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string Config::origin(const std::string& key) const {
  auto it = origins_.find(key);
  return it == origins_.end() ? "default" : it->second;
}

std::string Config::DescribeOrigins() const {
  const json defaults = Config().ToJson(), now = ToJson();
  std::string out;
  for (const auto& key : Keys()) {
    std::string ptr = "/" + key;
    std::replace(ptr.begin(), ptr.end(), '.', '/');
    const json& v = now.at(json::json_pointer(ptr));
    const bool known = origins_.count(key) > 0;
    if (v == defaults.at(json::json_pointer(ptr)) && !known) continue;
    out += (out.empty() ? "" : ", ") + key + "=" + v.dump() + " (" + (known ? origin(key) : "set by the program") + ")";
  }
  return out.empty() ? "all defaults" : out;
}

const std::vector<std::string>& Config::PlaySettingKeys() {
  // inference.symmetry too: how a position is evaluated is part of how the net
  // was rated (the evaluator plays with the run's), and it sets the engine's
  // cost per evaluation (all8 is 8 rows of a forward, random one).
  static const std::vector<std::string> keys = {"mcts.c_puct",        "mcts.fpu_value",  "mcts.fpu_reduction_root",
                                                "mcts.fpu_reduction", "mcts.solver",     "mcts.solver_vcf_nodes",
                                                "mcts.solver_vct_nodes",
                                                "inference.symmetry"};
  return keys;
}

namespace {
// The value of `key` as --set text (strings bare, everything else as JSON).
std::string SettingText(const json& all, const std::string& key) {
  std::string ptr = "/" + key;
  std::replace(ptr.begin(), ptr.end(), '.', '/');
  const json& v = all.at(json::json_pointer(ptr));
  return v.is_string() ? v.get<std::string>() : v.dump();
}
}  // namespace

std::map<std::string, std::string> Config::PlaySettings() const {
  const json all = ToJson();
  std::map<std::string, std::string> out;
  for (const auto& key : PlaySettingKeys()) out[key] = SettingText(all, key);
  return out;
}

std::vector<std::string> Config::AdoptPlaySettings(const std::map<std::string, std::string>& settings,
                                                   const std::string& source) {
  const auto& keys = PlaySettingKeys();
  std::vector<std::string> set;
  for (const auto& [key, text] : settings) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      GOMOKU_THROW(ConfigError, source << ": '" << key << "' is not a play setting (those are the search settings "
                                       << "a net plays with: mcts.c_puct, mcts.fpu_*, mcts.solver*, inference.symmetry)");
    if (origins_.count(key)) continue;  // set explicitly: that wins
    Set(key, text, source);
    set.push_back(key);
  }
  return set;
}

std::string Config::DescribePlaySettings() const {
  const json all = ToJson();
  std::string out;
  for (const auto& key : PlaySettingKeys())
    out += (out.empty() ? "" : ", ") + key + "=" + SettingText(all, key) + " (" + origin(key) + ")";
  return out;
}

json Config::ToJson() const {
  Registry reg = MakeRegistry(const_cast<Config&>(*this));
  json out = json::object();
  // Not a structured binding: clang 14 (emscripten 3.1.6) cannot capture one in a lambda.
  for (auto& entry : reg) {
    std::string k = entry.first;
    std::replace(k.begin(), k.end(), '.', '/');
    out[json::json_pointer("/" + k)] = entry.second.get();
  }
  return out;
}

std::string Config::ToJsonString(int indent) const { return ToJson().dump(indent); }

json Config::DocJson() {
  Config c;
  json out = json::array();
  for (auto& [key, field] : MakeRegistry(c)) out.push_back({{"key", key}, {"default", field.get()}, {"help", field.help}});
  return out;
}

std::vector<std::string> Config::Keys() {
  Config c;
  std::vector<std::string> keys;
  for (auto& [k, f] : MakeRegistry(c)) keys.push_back(k);
  return keys;
}

Config Config::FromJson(const json& j, const std::string& source) {
  Config c;
  c.Apply(j, source);
  c.Validate();
  return c;
}

namespace {

// `path` made relative to `dir` when it is relative (lexically normal).
std::string AgainstDir(const std::filesystem::path& dir, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (dir / path).lexically_normal().string();
}

}  // namespace

void Config::ResolveFilePaths(const std::string& file) {
  const std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
  train.init_weights = AgainstDir(dir, train.init_weights);
  for (std::string& entry : eval.ladder) {
    if (entry.rfind("net:", 0) != 0) continue;
    std::string rest = entry.substr(4), sims;
    const auto colon = rest.rfind(':');
    if (colon != std::string::npos && colon + 1 < rest.size() &&
        rest.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      sims = rest.substr(colon);
      rest.resize(colon);
    }
    entry = "net:" + AgainstDir(dir, rest) + sims;
  }
}

Config Config::Load(const std::string& file, const std::vector<std::string>& overrides) {
  Config c;
  if (!file.empty()) {
    std::string text = ReadFileOrThrow(file);
    json j;
    try {
      j = json::parse(text);
    } catch (const json::parse_error& e) {
      GOMOKU_THROW(ConfigError, file << ": invalid JSON: " << e.what());
    }
    c.Apply(j, file);
    c.ResolveFilePaths(file);
  }
  for (const auto& o : overrides) c.ApplyOverride(o);
  c.ApplyEnvironment();
  c.Validate();
  return c;
}

std::string ResolveSocketPath(const Config& c) {
  if (!c.server.socket.empty()) return c.server.socket;
  return RunLayout(c.run.dir).default_socket(c.run.host);
}

}  // namespace gz
