#include "common/net/play_settings.h"

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/checkpoint_format.h"

namespace gz {

std::string PlaySettingsSidecar(const std::string& checkpoint) {
  const std::string ext = ".pt";
  if (checkpoint.size() > ext.size() && checkpoint.compare(checkpoint.size() - ext.size(), ext.size(), ext) == 0)
    return checkpoint.substr(0, checkpoint.size() - ext.size()) + ".config.json";
  return checkpoint + ".config.json";
}

PlaySettingsFound ReadPlaySettings(const std::string& checkpoint, const std::vector<std::string>& keys) {
  PlaySettingsFound found;
  const CheckpointHeader h = ReadCheckpointHeader(checkpoint);
  if (!h.info.play.empty()) {
    found.settings = h.info.play;
    found.source = "checkpoint " + checkpoint;
    return found;
  }
  const std::string sidecar = PlaySettingsSidecar(checkpoint);
  if (!FileExists(sidecar)) return found;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadFileOrThrow(sidecar));
  } catch (const nlohmann::json::exception& e) {
    GOMOKU_THROW(ConfigError, sidecar << " (beside checkpoint " << checkpoint << "): not valid JSON: " << e.what());
  }
  if (!j.is_object() || !j.contains("mcts") || !j["mcts"].is_object()) return found;
  for (const std::string& key : keys) {
    const std::string leaf = key.substr(key.find('.') + 1);
    if (!j["mcts"].contains(leaf)) continue;
    const nlohmann::json& v = j["mcts"][leaf];
    found.settings[key] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (!found.settings.empty()) found.source = sidecar + " (beside the checkpoint)";
  return found;
}

}  // namespace gz
