#include "evaluator/results_log.h"

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/jsonl.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"

namespace gz {

bool EvaluationRecord::Complete() const {
  for (const auto& [entry, name] : opponents)
    for (int g = 0; g < games; ++g)
      if (!Has(entry, g)) return false;
  return true;
}

ResultsLog::ResultsLog(std::string path) : path_(std::move(path)) {
  JsonLines lines = ReadJsonLines(path_);
  bad_lines_ = lines.bad_lines;
  for (const nlohmann::json& j : lines.records) {
    try {
      if (!Absorb(j)) ++bad_lines_;
    } catch (const nlohmann::json::exception&) {
      ++bad_lines_;  // an object without the fields we need
    }
  }
  if (bad_lines_ > 0) spdlog::warn("evaluator: {}: skipped {} unusable line(s)", path_, bad_lines_);
  if (duplicates_ > 0) spdlog::warn("evaluator: {}: skipped {} repeated game line(s)", path_, duplicates_);
  // A torn last line (killed mid-append) is terminated so the next record
  // starts on a line of its own.
  if (FileExists(path_)) {
    std::string all = ReadFileOrThrow(path_);
    if (!all.empty() && all.back() != '\n') AppendLine(path_, "");
  }
}

const EvaluationRecord* ResultsLog::Find(int64_t iteration) const {
  auto it = index_.find(iteration);
  return it == index_.end() ? nullptr : &evaluations_[it->second];
}

bool ResultsLog::Absorb(const nlohmann::json& j) {
  namespace f = fields::eval_result;
  CheckRecordVersion(j, kEvalResultRecord, path_);  // a newer build's line: IoError, never skipped
  const std::string type = j.at(f::kType).get<std::string>();
  const int64_t it = j.at(f::kIteration).get<int64_t>();
  if (type == f::kTypeEvaluation) {
    if (index_.count(it)) return true;  // a restart's repeat: the first one stands
    EvaluationRecord e;
    e.iteration = it;
    e.generation = j.value(f::kGeneration, int64_t{0});
    e.player = j.at(f::kPlayer).get<std::string>();
    for (const auto& o : j.at(f::kOpponents)) e.opponents.emplace_back(o.at(f::kEntry), o.at(f::kName));
    e.games = j.at(f::kGames).get<int>();
    e.time = e.last_time = j.value(f::kTime, 0.0);
    index_[it] = evaluations_.size();
    evaluations_.push_back(std::move(e));
    return true;
  }
  if (type == f::kTypeGame) {
    auto pos = index_.find(it);
    if (pos == index_.end()) return false;  // a game without its evaluation line
    EvaluationRecord& e = evaluations_[pos->second];
    auto key = std::make_pair(j.at(f::kEntry).get<std::string>(), j.at(f::kGame).get<int>());
    if (j.at(f::kOpponent).get<std::string>() == e.player) return false;  // a game against itself rates nothing
    const double score = j.at(f::kScore).get<double>();
    if (score < 0 || score > 1) return false;
    if (e.results.count(key)) {
      ++duplicates_;
      return true;
    }
    e.results.emplace(key, j);
    e.last_time = std::max(e.last_time, j.value(f::kTime, 0.0));
    return true;
  }
  return false;
}

void ResultsLog::Write(const nlohmann::json& line) {
  MakeDirs(path_.substr(0, path_.find_last_of('/')));
  AppendLine(path_, line.dump());
}

void ResultsLog::AppendEvaluation(const nlohmann::json& line) {
  GOMOKU_CHECK(line.at(fields::eval_result::kType) == fields::eval_result::kTypeEvaluation, "not an evaluation line");
  if (Find(line.at(fields::eval_result::kIteration).get<int64_t>())) return;
  Write(line);
  Absorb(line);
}

void ResultsLog::AppendGame(const nlohmann::json& line) {
  namespace f = fields::eval_result;
  GOMOKU_CHECK(line.at(f::kType) == f::kTypeGame, "not a game line");
  const EvaluationRecord* e = Find(line.at(f::kIteration).get<int64_t>());
  GOMOKU_CHECK(e != nullptr, "a game of iteration " << line.at(f::kIteration) << " before its evaluation line");
  if (e->Has(line.at(f::kEntry).get<std::string>(), line.at(f::kGame).get<int>())) return;
  Write(line);
  Absorb(line);
}

std::vector<RatedGame> ResultsLog::RatedGames() const {
  std::vector<RatedGame> out;
  for (const EvaluationRecord& e : evaluations_)
    for (const auto& [key, j] : e.results)
      out.push_back({e.player, j.at(fields::eval_result::kOpponent).get<std::string>(),
                     j.at(fields::eval_result::kScore).get<double>()});
  return out;
}

}  // namespace gz
