// <run>/ratings.jsonl: one line per evaluated checkpoint with its per-opponent
// W/D/L and the Elo (95% interval) of it and its opponents from the current
// fit over all games (format: docs/ratings.md).  Rewritten atomically.
// Pure functions apart from the write; thread-safe.
#pragma once

#include <string>

#include "evaluator/results_log.h"

namespace gz {

// The file's contents (one JSON object per line, each ending in '\n').
std::string RatingsJsonl(const ResultsLog& log, const std::string& anchor);

// RatingsJsonl written with WriteFileAtomic.
void WriteRatingsFile(const std::string& path, const ResultsLog& log, const std::string& anchor);

}  // namespace gz
