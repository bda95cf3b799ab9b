// Fuzz target: the JSON analysis engine's query parser (common/match/analysis_query.h),
// which reads whatever a client sends to `analyze`.  Properties, besides "no
// crash, no sanitizer report":
//   - ParseAnalysisQuery never throws, whatever the bytes;
//   - a refusal has a message, and its error line is a JSON object with the
//     same id, field and message;
//   - an accepted analysis names turns 0..moves, ascending, each with an
//     unfinished position whose stones match the query (initial stones plus
//     the moves played), and avoided points on the board.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/match/analysis_query.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gz;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  ParsedQuery p;
  try {
    p = ParseAnalysisQuery(line);
  } catch (...) {
    fuzz::FuzzFail("ParseAnalysisQuery threw");
  }
  if (!p.ok()) {
    const auto o = nlohmann::json::parse(QueryErrorLine(p.id, p.field, p.error), nullptr, false);
    if (!o.is_object() || o.value("id", "?") != p.id || o.value("field", "?") != p.field ||
        o.value("error", "") != p.error)
      fuzz::FuzzFail("the error line does not carry the refusal");
    return 0;
  }
  if (p.id.empty()) fuzz::FuzzFail("an accepted query without an id");
  if (p.action != QueryAction::kAnalyze) return 0;
  const AnalysisQuery& q = p.query;
  const int turns = static_cast<int>(q.moves.size());
  if (q.analyze_turns.empty()) fuzz::FuzzFail("no turn to analyse");
  int previous = -1;
  for (int t : q.analyze_turns) {
    if (t <= previous || t > turns) fuzz::FuzzFail("analyze_turns not ascending in 0..moves");
    previous = t;
    const Board b = PositionAtTurn(q, t);
    if (b.terminal()) fuzz::FuzzFail("an accepted turn is already decided");
    if (b.move_count() != static_cast<int>(q.initial_stones.size()) + t)
      fuzz::FuzzFail("the position does not hold the query's stones");
  }
  for (auto [who, point] : q.avoid)
    if (point < 0 || point >= q.board_size * q.board_size) fuzz::FuzzFail("an avoided point off the board");
  if (q.max_visits < 1) fuzz::FuzzFail("maxVisits < 1 accepted");
  return 0;
}
