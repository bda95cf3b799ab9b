// <run>/eval/results.jsonl: the evaluator's record of every finished game
// (format: docs/ratings.md).  Append-only; one complete, fsynced line per
// game, so a kill -9 loses at most the game in progress.  On open a torn last
// line is skipped and terminated, so the next append starts a fresh line; a
// game key (iteration, entry, game) seen twice counts once (the first).
// Thread-safety: none; one writer (the evaluator) per file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/match/ratings.h"

namespace gz {

struct EvaluationRecord {
  int64_t iteration = 0;
  int64_t generation = 0;
  std::string player;                                      // "checkpoint:N"
  std::vector<std::pair<std::string, std::string>> opponents;  // (entry, name) at its start
  int games = 0;                                           // per opponent
  double time = 0;                                         // when it began
  std::map<std::pair<std::string, int>, nlohmann::json> results;  // (entry, game) -> game line
  double last_time = 0;                                    // of its newest game, else `time`

  bool Has(const std::string& entry, int game) const { return results.count({entry, game}) > 0; }
  // Every listed opponent has `games` results.
  bool Complete() const;
};

class ResultsLog {
 public:
  // Reads `path` (missing = empty).  Throws IoError when it cannot be read,
  // or holds a line of a format_version this build does not read
  // (common/data/record_format.h), naming the file and the version.
  explicit ResultsLog(std::string path);

  const std::string& path() const { return path_; }
  // In the order they began.
  const std::vector<EvaluationRecord>& evaluations() const { return evaluations_; }
  // nullptr when `iteration` was never evaluated.
  const EvaluationRecord* Find(int64_t iteration) const;

  // Append + fsync, and update the in-memory view.  A second "evaluation"
  // line for one iteration, or a game whose key exists, is not written.
  void AppendEvaluation(const nlohmann::json& line);
  void AppendGame(const nlohmann::json& line);

  // Every counted game, for the rating fit.
  std::vector<RatedGame> RatedGames() const;

 private:
  bool Absorb(const nlohmann::json& line);  // false: ignored (duplicate or unknown); IoError: unknown version
  void Write(const nlohmann::json& line);

  std::string path_;
  std::vector<EvaluationRecord> evaluations_;
  std::map<int64_t, size_t> index_;  // iteration -> evaluations_ position
  int bad_lines_ = 0;
  int duplicates_ = 0;
};

}  // namespace gz
