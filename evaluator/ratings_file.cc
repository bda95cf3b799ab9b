#include "evaluator/ratings_file.h"

#include <nlohmann/json.hpp>

#include "common/base/fileio.h"
#include "common/match/ratings.h"

namespace gz {
namespace {

void PutRating(nlohmann::json& j, const RatingTable& table, const std::string& name) {
  auto it = table.rated.find(name);
  if (it == table.rated.end()) {
    j["elo"] = j["elo_low"] = j["elo_high"] = nullptr;
    return;
  }
  j["elo"] = it->second.elo;
  j["elo_low"] = it->second.low;
  j["elo_high"] = it->second.high;
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
      if (!listed) order.emplace_back(key.first, g.at("opponent").get<std::string>());
    }
    nlohmann::json opponents = nlohmann::json::array();
    int total = 0;
    for (const auto& [entry, name] : order) {
      int w = 0, d = 0, l = 0;
      for (const auto& [key, g] : e.results) {
        if (key.first != entry) continue;
        const double s = g.at("score").get<double>();
        (s > 0.75 ? w : s < 0.25 ? l : d) += 1;
      }
      nlohmann::json o = {{"entry", entry}, {"name", name}, {"wins", w}, {"draws", d}, {"losses", l},
                          {"games", w + d + l}};
      PutRating(o, table, name);
      opponents.push_back(std::move(o));
      total += w + d + l;
    }
    nlohmann::json line = {{"iteration", e.iteration}, {"generation", e.generation}, {"player", e.player},
                           {"complete", e.Complete()}, {"games", total},         {"opponents", opponents},
                           {"anchor", table.anchor},   {"time", e.last_time}};
    PutRating(line, table, e.player);
    out += line.dump();
    out += '\n';
  }
  return out;
}

void WriteRatingsFile(const std::string& path, const ResultsLog& log, const std::string& anchor) {
  WriteFileAtomic(path, RatingsJsonl(log, anchor));
}

}  // namespace gz
