#include "common/data/record_format.h"

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/jsonl.h"

namespace gz {

std::vector<RecordFormat> AllRecordFormats() {
  return {kMetadataRecord,      kReloadAnnouncementRecord, kHostAckRecord,          kGenerationRecord,
          kRatingRecord,        kEvalResultRecord,         kWorkerStatusRecord,     kServerStatusRecord,
          kEvaluatorStatusRecord, kTrainerStateRecord,     kGameManifestRecord};
}

void StampRecordVersion(nlohmann::json& record, const RecordFormat& format) {
  GOMOKU_CHECK(record.is_object(), format.name << " is not a JSON object");
  record[kFormatVersionKey] = format.version;
}

int CheckRecordVersion(const nlohmann::json& record, const RecordFormat& format, const std::string& where) {
  if (!record.is_object()) GOMOKU_THROW(IoError, where << ": " << format.name << " is not a JSON object");
  const auto found = record.find(kFormatVersionKey);
  if (found == record.end()) {
    if (format.missing_is_v1) return 1;
    GOMOKU_THROW(IoError, where << ": " << format.name << " has no " << kFormatVersionKey << "; this build reads version "
                                << format.version);
  }
  if (!found->is_number_integer())
    GOMOKU_THROW(IoError, where << ": " << format.name << " has " << kFormatVersionKey << " " << found->dump()
                                << ", not an integer; this build reads version " << format.version);
  const int64_t v = found->get<int64_t>();
  if (v < 1 || v > format.version)
    GOMOKU_THROW(IoError, where << ": " << format.name << " has " << kFormatVersionKey << " " << v
                                << "; this build reads version" << (format.version > 1 ? "s 1 to " : " ")
                                << format.version << (v > format.version ? " (written by a newer build?)" : ""));
  return static_cast<int>(v);
}

std::vector<nlohmann::json> ReadRecordLines(const std::string& path, const RecordFormat& format, int* bad_lines) {
  JsonLines lines = ReadJsonLines(path);
  if (bad_lines) *bad_lines = lines.bad_lines;
  for (size_t i = 0; i < lines.records.size(); ++i)
    CheckRecordVersion(lines.records[i], format, path + " (record " + std::to_string(i + 1) + ")");
  return std::move(lines.records);
}

std::optional<nlohmann::json> ReadRecordFile(const std::string& path, const RecordFormat& format) {
  if (!FileExists(path)) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(ReadFileOrThrow(path), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) GOMOKU_THROW(IoError, path << ": " << format.name << " is not JSON");
  CheckRecordVersion(j, format, path);
  return j;
}

void WriteRecordFile(const std::string& path, nlohmann::json record, const RecordFormat& format, int indent) {
  StampRecordVersion(record, format);
  WriteFileAtomic(path, record.dump(indent) + "\n");
}

}  // namespace gz
