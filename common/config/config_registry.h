// The registry's parts shared by the files of gomoku_config, and by nothing
// outside common/config/: the entry of one key, the table of every key bound
// to one Config, and the checks of a single key's value that the table and
// Config::Validate both apply.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/config/config.h"

namespace gz {
namespace config_detail {

// One key: `set` reads a JSON value into the bound field (ConfigError naming
// `key` when the type or range is wrong), `get` reads the field back, `help`
// is the meaning column of docs/configuration.md's key table (printed by
// `worker --print-config-doc` for dev/gen_config_doc.py).
struct Field {
  std::function<void(const nlohmann::json&, const std::string& key)> set;
  std::function<nlohmann::json()> get;
  std::string help;
};
using Registry = std::map<std::string, Field>;

// Every key of the config, bound to the fields of `c` (the entries keep
// pointers into `c`: the registry must not outlive it).
Registry MakeRegistry(Config& c);

// One selfplay.board_sizes entry: "SIZE" (weight 1) or "SIZE:WEIGHT", with
// kMinBoardSize <= SIZE <= kMaxBoardSize and WEIGHT a finite number > 0.
// ConfigError otherwise.
std::pair<int, double> ParseSizeShare(const std::string& s);
// An eval.ladder entry or eval.anchor: rollout:P, classical:N, checkpoint:N,
// previous:K, net:PATH[:SIMS] or engine:COMMAND.  ConfigError otherwise.
void CheckLadderEntry(const std::string& s);
// run.host: "" or a name fit for file names on a shared run directory.
void CheckHostName(const std::string& s);
// train.dist_store: tcp://HOST:PORT or file://PATH.
void CheckDistStore(const std::string& s);

}  // namespace config_detail
}  // namespace gz
