#include "common/match/analysis_response.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/game/point_text.h"
#include "common/match/analysis_query.h"

namespace gz {
namespace {

using json = nlohmann::json;

json ProofJson(const ProofInfo& p, int size) {
  json o;
  o["result"] = p.win ? "win" : "loss";
  o["plies"] = p.plies;
  o["complete"] = p.complete;
  json line = json::array();
  for (int m : p.line) line.push_back(FormatPoint(m, size));
  o["line"] = line;
  return o;
}

double Round4(double x) { return std::round(x * 10000.0) / 10000.0; }

json MoveInfoJson(const MoveReport& m, size_t order, int size) {
  json mi;
  mi["move"] = FormatPoint(m.move, size);
  mi["visits"] = m.visits;
  mi["winrate"] = Round4(m.winrate);
  mi["prior"] = Round4(m.prior);
  mi["lcb"] = Round4(m.lcb);
  mi["order"] = order;
  json pv = json::array();
  for (int p : m.pv) pv.push_back(FormatPoint(p, size));
  mi["pv"] = pv;
  if (m.proof) mi["proof"] = ProofJson(*m.proof, size);
  return mi;
}

// The network's prior over every point, row-major, -1 where illegal.
json PolicyJson(const Board& board, const std::vector<float>& priors) {
  json policy = json::array();
  for (int p = 0; p < board.num_points(); ++p)
    policy.push_back(board.IsLegal(p) ? Round4(priors[static_cast<size_t>(p)]) : -1.0);
  return policy;
}

}  // namespace

std::string SearchResponseLine(const ResponseTurn& turn, const Board& board, const TreeReport& report,
                               const std::vector<float>* raw_priors) {
  const int size = board.size();
  json o;
  o["id"] = turn.id;
  o["turnNumber"] = turn.turn;
  o["isDuringSearch"] = turn.during;
  json infos = json::array();
  for (size_t i = 0; i < report.moves.size(); ++i) infos.push_back(MoveInfoJson(report.moves[i], i, size));
  o["moveInfos"] = infos;
  json root;
  root["visits"] = report.root_visits;
  root["winrate"] = Round4(report.winrate);
  root["currentPlayer"] = board.to_move() == kBlack ? "B" : "W";
  o["rootInfo"] = root;
  if (turn.memory_limited) o["memoryLimited"] = true;
  if (report.proof) o["proof"] = ProofJson(*report.proof, size);
  if (raw_priors) o["policy"] = PolicyJson(board, *raw_priors);
  return o.dump();
}

std::string NoResultsLine(const std::string& id, int turn) {
  json o;
  o["id"] = id;
  o["turnNumber"] = turn;
  o["isDuringSearch"] = false;
  o["noResults"] = true;
  return o.dump();
}

std::string TurnErrorLine(const std::string& id, int turn, const std::string& field, const std::string& message) {
  json o = json::parse(QueryErrorLine(id, field, message));
  o["turnNumber"] = turn;
  return o.dump();
}

}  // namespace gz
