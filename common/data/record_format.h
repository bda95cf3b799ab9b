// The format version of every JSON record a run keeps on disk
// (docs/file-formats.md, "Record versions"), and the one check readers make.
//
// Every writer stamps its record with "format_version" (StampRecordVersion);
// every reader checks it (CheckRecordVersion / ReadRecordLines /
// ReadRecordFile) before looking at a field, so a file written by a newer
// build is refused by name ("<file>: <record> has format_version 2; this
// build reads version 1") instead of being misread.  Records that existed
// before they carried a version (status files, generations.jsonl,
// ratings.jsonl, the trainer's game manifests) read a missing field as
// version 1.  Game files and checkpoints are binary and check their own
// versions (game_record.h, common/net/checkpoint_format.h).
//
// Bump a record's `version` when a reader of the old version would misread
// the new one (a field renamed, its meaning or unit changed); adding an
// optional field keeps the version.
// Thread-safety: pure functions and constants.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz {

inline constexpr const char* kFormatVersionKey = "format_version";

struct RecordFormat {
  const char* name;       // the record as an error names it, e.g. "metadata.json"
  int version;            // the version this build writes, and the newest it reads
  bool missing_is_v1;     // files from before the field existed read as version 1
};

inline constexpr RecordFormat kMetadataRecord{"metadata.json", 1, false};
inline constexpr RecordFormat kReloadAnnouncementRecord{"reload announcement", 1, false};
inline constexpr RecordFormat kHostAckRecord{"reload acknowledgement", 1, false};
inline constexpr RecordFormat kGenerationRecord{"generations.jsonl record", 1, true};
inline constexpr RecordFormat kRatingRecord{"ratings.jsonl record", 1, true};
inline constexpr RecordFormat kEvalResultRecord{"eval/results.jsonl record", 1, false};
inline constexpr RecordFormat kWorkerStatusRecord{"worker status", 1, true};
inline constexpr RecordFormat kServerStatusRecord{"server status", 1, true};
inline constexpr RecordFormat kEvaluatorStatusRecord{"evaluator status", 1, true};
inline constexpr RecordFormat kTrainerStateRecord{"trainer state", 1, false};
inline constexpr RecordFormat kGameManifestRecord{"game manifest", 1, true};

// Every record above, for tests and the docs check.
std::vector<RecordFormat> AllRecordFormats();

// Sets record["format_version"] = format.version (record must be an object).
void StampRecordVersion(nlohmann::json& record, const RecordFormat& format);

// Throws IoError naming `where` (a path, or "path line N"), the record, the
// version found and the one this build reads, when `record` is not an
// object, or its format_version is missing (unless missing_is_v1), not an
// integer, below 1 or above format.version.  Returns the version.
int CheckRecordVersion(const nlohmann::json& record, const RecordFormat& format, const std::string& where);

// A JSON-lines file (common/base/jsonl.h: missing = empty, torn or non-object
// lines skipped and counted in *bad_lines when given) whose every record is
// checked with CheckRecordVersion: a line of an unknown version throws IoError.
std::vector<nlohmann::json> ReadRecordLines(const std::string& path, const RecordFormat& format,
                                            int* bad_lines = nullptr);

// A JSON object file: nullopt when it does not exist; IoError when it cannot
// be read, is not a JSON object, or fails CheckRecordVersion.
std::optional<nlohmann::json> ReadRecordFile(const std::string& path, const RecordFormat& format);

// `record` (an object) stamped with format's version and written atomically
// (WriteFileAtomic: temp name, fsync, rename), `indent` spaces a level.
void WriteRecordFile(const std::string& path, nlohmann::json record, const RecordFormat& format, int indent = 2);

}  // namespace gz
