#include "trainer/trainer_state.h"

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {

void WriteTrainerState(const std::string& path, const TrainerState& s) {
  nlohmann::json j = {{"format_version", 1},
                      {"trained_iteration", s.trained_iteration},
                      {"optimizer", s.optimizer_file},
                      {"record", s.record}};
  WriteFileAtomic(path, j.dump(2) + "\n");
}

std::optional<TrainerState> ReadTrainerState(const std::string& path) {
  if (!FileExists(path)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(ReadFileOrThrow(path));
    TrainerState s;
    s.trained_iteration = j.at("trained_iteration").get<int64_t>();
    s.optimizer_file = j.value("optimizer", "");
    s.record = j.value("record", nlohmann::json::object());
    return s;
  } catch (const std::exception& e) {
    spdlog::warn("ignoring unreadable trainer state {}: {}", path, e.what());
    return std::nullopt;
  }
}

void WriteGameManifest(const std::string& path, const GameManifest& m) {
  nlohmann::json j = {{"iteration", m.iteration}, {"used", m.used}, {"ignored", m.ignored}};
  WriteFileAtomic(path, j.dump(1) + "\n");
}

std::optional<GameManifest> ReadGameManifest(const std::string& path) {
  if (!FileExists(path)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(ReadFileOrThrow(path));
    GameManifest m;
    m.iteration = j.at("iteration").get<int64_t>();
    m.used = j.at("used").get<std::vector<std::string>>();
    m.ignored = j.value("ignored", std::vector<std::string>{});
    return m;
  } catch (const std::exception& e) {
    spdlog::warn("ignoring unreadable game manifest {}: {}", path, e.what());
    return std::nullopt;
  }
}

}  // namespace gz
