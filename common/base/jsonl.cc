#include "common/base/jsonl.h"

#include <sstream>

#include "common/base/fileio.h"

namespace gz {

JsonLines ReadJsonLines(const std::string& path) {
  JsonLines out;
  if (!FileExists(path)) return out;
  std::istringstream in(ReadFileOrThrow(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      ++out.bad_lines;
      continue;
    }
    out.records.push_back(std::move(j));
  }
  return out;
}

}  // namespace gz
