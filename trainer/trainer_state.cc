#include "trainer/trainer_state.h"

#include <stdexcept>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/record_format.h"

namespace gz {
namespace {

// `path` parsed; a JSON object of a format_version this build does not read
// throws IoError (a newer trainer's file is refused, never guessed at); any
// other unreadable text comes back as a discarded value for the caller's
// warning.
nlohmann::json ParseChecked(const std::string& path, const RecordFormat& format) {
  nlohmann::json j = nlohmann::json::parse(ReadFileOrThrow(path), nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) CheckRecordVersion(j, format, path);
  return j;
}

// The record at `path` read by `parse`; nullopt when there is none, or
// (after a warning naming `what`) when it is unreadable.
template <typename T, typename Parse>
std::optional<T> ReadRecord(const std::string& path, const RecordFormat& format, const char* what, Parse parse) {
  if (!FileExists(path)) return std::nullopt;
  const nlohmann::json j = ParseChecked(path, format);
  try {
    if (j.is_discarded()) throw std::runtime_error("not JSON");
    return parse(j);
  } catch (const std::exception& e) {
    spdlog::warn("ignoring unreadable {} {}: {}", what, path, e.what());
    return std::nullopt;
  }
}

}  // namespace

void WriteTrainerState(const std::string& path, const TrainerState& s) {
  WriteRecordFile(path, {{"trained_iteration", s.trained_iteration}, {"optimizer", s.optimizer_file}, {"record", s.record}},
              kTrainerStateRecord, 2);
}

std::optional<TrainerState> ReadTrainerState(const std::string& path) {
  return ReadRecord<TrainerState>(path, kTrainerStateRecord, "trainer state", [](const nlohmann::json& j) {
    TrainerState s;
    s.trained_iteration = j.at("trained_iteration").get<int64_t>();
    s.optimizer_file = j.value("optimizer", "");
    s.record = j.value("record", nlohmann::json::object());
    return s;
  });
}

namespace {
nlohmann::json LateJson(const std::vector<LateEntry>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const LateEntry& e : v)
    a.push_back({{"iteration", e.iteration}, {"file", e.file}, {"model_generation", e.model_generation},
                 {"positions", e.positions}});
  return a;
}
std::vector<LateEntry> LateFromJson(const nlohmann::json& j, const char* key) {
  std::vector<LateEntry> v;
  if (!j.contains(key)) return v;  // manifests written before late games were kept
  for (const auto& e : j.at(key)) {
    LateEntry x;
    x.iteration = e.at("iteration").get<int64_t>();
    x.file = e.at("file").get<std::string>();
    x.model_generation = e.value("model_generation", int64_t{0});
    x.positions = e.value("positions", int64_t{0});
    v.push_back(std::move(x));
  }
  return v;
}
}  // namespace

void WriteGameManifest(const std::string& path, const GameManifest& m) {
  WriteRecordFile(path,
              {{"iteration", m.iteration},
               {"used", m.used},
               {"ignored", m.ignored},
               {"late", LateJson(m.late)},
               {"late_aged_out", LateJson(m.late_aged_out)},
               {"late_ignored", LateJson(m.late_ignored)},
               {"run_positions", m.run_positions},
               {"run_never_trained", m.run_never_trained}},
              kGameManifestRecord, 1);
}

std::optional<GameManifest> ReadGameManifest(const std::string& path) {
  return ReadRecord<GameManifest>(path, kGameManifestRecord, "game manifest", [](const nlohmann::json& j) {
    GameManifest m;
    m.iteration = j.at("iteration").get<int64_t>();
    m.used = j.at("used").get<std::vector<std::string>>();
    m.ignored = j.value("ignored", std::vector<std::string>{});
    m.late = LateFromJson(j, "late");
    m.late_aged_out = LateFromJson(j, "late_aged_out");
    m.late_ignored = LateFromJson(j, "late_ignored");
    m.run_positions = j.value("run_positions", int64_t{0});
    m.run_never_trained = j.value("run_never_trained", int64_t{0});
    return m;
  });
}

}  // namespace gz
