#include "trainer/generation_log.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>

#include "common/base/fileio.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"

namespace gz {

void AppendGenerationRecord(const std::string& path, const nlohmann::json& record) {
  nlohmann::json stamped = record;
  StampRecordVersion(stamped, kGenerationRecord);
  std::string line = stamped.dump();
  // Close a torn last line first; only the last byte is read, not the log.
  if (std::ifstream in(path, std::ios::binary | std::ios::ate); in && in.tellg() > 0) {
    in.seekg(-1, std::ios::end);
    if (in.get() != '\n') line = "\n" + line;
  }
  AppendLine(path, line);
}

GenerationLog ReadGenerationLog(const std::string& path) {
  GenerationLog log;
  // Torn and non-object lines skipped and counted; a newer build's record throws.
  std::vector<nlohmann::json> records = ReadRecordLines(path, kGenerationRecord, &log.bad_lines);
  std::map<int64_t, nlohmann::json> by_iteration;  // the last line of an iteration wins
  for (auto& j : records) {
    const char* key = fields::generation::kIteration;
    if (!j.contains(key) || !j[key].is_number_integer()) {
      ++log.bad_lines;
      continue;
    }
    const int64_t it = j[key].get<int64_t>();
    by_iteration[it] = std::move(j);
  }
  for (auto& [it, j] : by_iteration) log.records.push_back(std::move(j));
  return log;
}

namespace {
std::string Num(const nlohmann::json& j, const char* key, const char* fmt) {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, j[key].get<double>());
  return buf;
}
}  // namespace

void PrintTimeTable(const std::vector<nlohmann::json>& records, int last_n, std::ostream& out) {
  namespace gf = fields::generation;
  size_t first = 0;
  if (last_n > 0 && records.size() > static_cast<size_t>(last_n)) first = records.size() - last_n;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%9s %12s %11s %11s %7s %6s %10s\n", "iteration", "self-play_s", "training_s",
                "total_s", "games", "stall", "games/min");
  out << buf;
  for (size_t i = first; i < records.size(); ++i) {
    const nlohmann::json& r = records[i];
    std::string stall = "-";
    if (r.contains(gf::kGamesByStallTimeout)) {
      const auto& s = r[gf::kGamesByStallTimeout];
      stall = s.is_boolean() ? (s.get<bool>() ? "yes" : "no") : s.dump();
    }
    std::snprintf(buf, sizeof buf, "%9lld %12s %11s %11s %7s %6s %10s\n",
                  static_cast<long long>(r[gf::kIteration].get<int64_t>()), Num(r, gf::kSelfplayS, "%.1f").c_str(),
                  Num(r, gf::kTrainingS, "%.1f").c_str(), Num(r, gf::kTotalS, "%.1f").c_str(),
                  Num(r, gf::kGamesUsed, "%.0f").c_str(), stall.c_str(), Num(r, gf::kGamesPerMin, "%.2f").c_str());
    out << buf;
  }
}

}  // namespace gz
