#include "common/data/metadata.h"

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/record_format.h"

namespace gz {

void WriteMetadata(const std::string& path, const Metadata& m) {
  nlohmann::json j = {{"iteration", m.iteration},       {"weights", m.weights},
                      {"model_generation", m.model_generation}, {"updated_at", m.updated_at},
                      {"config", m.config}};
  StampRecordVersion(j, kMetadataRecord);
  WriteFileAtomic(path, j.dump(2) + "\n");
}

std::optional<Metadata> ReadMetadata(const std::string& path) {
  if (!FileExists(path)) return std::nullopt;
  std::string text = ReadFileOrThrow(path);
  try {
    auto j = nlohmann::json::parse(text);
    CheckRecordVersion(j, kMetadataRecord, path);
    Metadata m;
    m.iteration = j.at("iteration").get<int64_t>();
    m.weights = j.at("weights").get<std::string>();
    m.model_generation = j.at("model_generation").get<int64_t>();
    m.updated_at = j.value("updated_at", 0.0);
    m.config = j.at("config");
    if (!m.config.is_object()) GOMOKU_THROW(IoError, path << ": 'config' is not an object");
    return m;
  } catch (const nlohmann::json::exception& e) {
    GOMOKU_THROW(IoError, path << ": invalid metadata: " << e.what());
  }
}

}  // namespace gz
