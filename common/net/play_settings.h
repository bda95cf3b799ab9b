// Where a net's play settings come from (the search settings a trained net
// plays with; the caller passes Config::PlaySettingKeys(), so the network
// library needs no config), read without LibTorch.
//
//   1. the checkpoint's own header (format version 3, CheckpointInfo::play:
//      every checkpoint the trainer saves carries its run's settings);
//   2. else a file beside it named like it with ".config.json" for ".pt"
//      (e.g. nets/NAME.config.json, a run's effective config): its "mcts"
//      object's play keys;
//   3. else none: the reader keeps its own defaults.
//
// Thread-safe (pure functions over files).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gz {

struct PlaySettingsFound {
  std::map<std::string, std::string> settings;  // key -> --set text; empty: none found
  std::string source;                           // "checkpoint PATH" | "PATH (beside the checkpoint)" | ""
};

// The sidecar config file of `checkpoint` (".pt" replaced by ".config.json",
// else ".config.json" appended).
std::string PlaySettingsSidecar(const std::string& checkpoint);

// Reads them as above; from a sidecar only `keys` ("mcts.c_puct", ...: the
// leaf after the first '.' in its "mcts" object).  Throws ModelError /
// IoError for an unreadable or corrupt checkpoint, ConfigError for a sidecar
// that is not valid JSON.
PlaySettingsFound ReadPlaySettings(const std::string& checkpoint, const std::vector<std::string>& keys);

}  // namespace gz
