#include "evaluator/ratings_file.h"

#include <nlohmann/json.hpp>

#include "common/base/fileio.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"
#include "common/match/ratings.h"

namespace gz {
namespace {

namespace f = fields::rating;

void PutRating(nlohmann::json& j, const RatingTable& table, const std::string& name) {
  auto it = table.rated.find(name);
  if (it == table.rated.end()) {
    j[f::kElo] = j[f::kEloLow] = j[f::kEloHigh] = nullptr;
    return;
  }
  j[f::kElo] = it->second.elo;
  j[f::kEloLow] = it->second.low;
  j[f::kEloHigh] = it->second.high;
}

}  // namespace

std::string RatingsJsonl(const ResultsLog& log, const std::string& anchor) {
  const RatingTable table = FitRatings(log.RatedGames(), anchor);
  std::string out;
  for (const EvaluationRecord& e : log.evaluations()) {
    // Opponents in the order the evaluation listed them, then any others that
    // have games (a ladder changed between restarts).
    std::vector<std::pair<std::string, std::string>> order = e.opponents;
    for (const auto& [key, g] : e.results) {
      bool listed = false;
      for (const auto& o : order) listed = listed || o.first == key.first;
      if (!listed) order.emplace_back(key.first, g.at(fields::eval_result::kOpponent).get<std::string>());
    }
    nlohmann::json opponents = nlohmann::json::array();
    int total = 0;
    for (const auto& [entry, name] : order) {
      int w = 0, d = 0, l = 0;
      for (const auto& [key, g] : e.results) {
        if (key.first != entry) continue;
        const double s = g.at(fields::eval_result::kScore).get<double>();
        (s > 0.75 ? w : s < 0.25 ? l : d) += 1;
      }
      nlohmann::json o = {{f::kEntry, entry}, {f::kName, name},   {f::kWins, w}, {f::kDraws, d},
                          {f::kLosses, l},    {f::kGames, w + d + l}};
      PutRating(o, table, name);
      opponents.push_back(std::move(o));
      total += w + d + l;
    }
    nlohmann::json line = {{f::kIteration, e.iteration}, {f::kGeneration, e.generation}, {f::kPlayer, e.player},
                           {f::kComplete, e.Complete()}, {f::kGames, total},              {f::kOpponents, opponents},
                           {f::kAnchor, table.anchor},   {f::kTime, e.last_time}};
    PutRating(line, table, e.player);
    StampRecordVersion(line, kRatingRecord);
    out += line.dump();
    out += '\n';
  }
  return out;
}

void WriteRatingsFile(const std::string& path, const ResultsLog& log, const std::string& anchor) {
  WriteFileAtomic(path, RatingsJsonl(log, anchor));
}

}  // namespace gz
