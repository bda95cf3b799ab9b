// <run>/generations.jsonl: one JSON object per finished iteration (fields in
// docs/trainer.md), and the `trainer timetable` report built from it.
//
// Appends are single write()+fsync calls, but a kill can still leave a torn
// last line.  Readers skip unparseable lines (counted), and the appender first
// terminates a torn line so the next record starts on a fresh line.
// Thread-safety: free functions; one writer per file.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz {

// Appends `record` stamped with its format_version (common/data/record_format.h).
void AppendGenerationRecord(const std::string& path, const nlohmann::json& record);

struct GenerationLog {
  std::vector<nlohmann::json> records;  // one per iteration (the last line wins), ascending iteration
  int bad_lines = 0;                    // unparseable or without an integer "iteration"
};
// Missing file = empty log.  Throws IoError when the file exists but cannot be
// read, or holds a record of a format_version this build does not read.
GenerationLog ReadGenerationLog(const std::string& path);

// Prints the per-iteration table (self-play / training / total seconds, games,
// stall timeout) of the last `last_n` records (all when last_n <= 0), in
// numeric iteration order.
void PrintTimeTable(const std::vector<nlohmann::json>& records, int last_n, std::ostream& out);

}  // namespace gz
