// Reading an append-only JSON-lines file (generations.jsonl, ratings.jsonl,
// eval/results.jsonl) that its writer may be appending to right now.
//
// A writer killed mid-append leaves a torn last line, and a reader can catch a
// line half-written: such lines, and any line that is not a JSON object, are
// skipped and counted, never fatal.
// Thread-safety: free function, no shared state.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz {

struct JsonLines {
  std::vector<nlohmann::json> records;  // the parseable objects, in file order
  int bad_lines = 0;                    // unparseable or non-object lines (empty lines are not counted)
};

// Missing file = no records.  Throws IoError only when the file exists but
// cannot be read.
JsonLines ReadJsonLines(const std::string& path);

}  // namespace gz
