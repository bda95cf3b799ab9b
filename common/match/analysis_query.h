// The JSON analysis engine's query language (docs/engine.md "Analysis"),
// modelled on KataGo's analysis engine: one JSON object a line.
//
//   {"id": "q1", "boardSize": 15, "rule": "freestyle",
//    "initialStones": [["B", "7,7"]], "moves": [["W", "8,8"], ["B", [6, 6]]],
//    "analyzeTurns": [0, 2], "maxVisits": 400, "maxTimeMs": 5000,
//    "reportDuringSearchEvery": 0.5, "includePolicy": true,
//    "avoidMoves": ["7,8", {"player": "W", "moves": ["9,9"], "untilDepth": 1}]}
//   {"id": "x", "action": "query_version" | "clear_cache" | "terminate_all"}
//   {"id": "x", "action": "terminate", "terminateId": "q1", "turnNumbers": [2]}
//
// "rule" is any rule the engine plays, by its RuleName ("freestyle",
// "standard", "renju", "caro", "caro-overline"; any case), default freestyle.
// Points are "X,Y" strings or [X, Y] arrays, 0-based, X the column (as in the
// Gomocup engine).  Colours "B"/"W" (or "black"/"white", any case).  Moves
// must alternate from the side to move after the initial stones (black when
// the counts are equal, else white), be legal (renju fouls included) and not
// follow a finished game.  analyzeTurns defaults to [number of moves]; each
// turn's position must be unfinished.  avoidMoves keeps the search off those
// root moves (untilDepth, when given, must be 1; a "player" entry applies
// only where that colour is to move).  Unknown fields are ignored.
//
// ParseAnalysisQuery never throws: a bad query comes back with `error` set
// (the message) and `field` naming the offending field ("moves[3]",
// "maxVisits", ...), with the query's id when it had a readable one.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/game/board.h"

namespace gz {

struct AnalysisQuery {
  std::string id;
  int board_size = 15;
  Rule rule = Rule::kFreestyle;
  std::vector<std::pair<int8_t, int>> initial_stones;  // (colour, point)
  std::vector<std::pair<int8_t, int>> moves;           // (colour, point), in order
  std::vector<int> analyze_turns;                      // ascending, unique
  int max_visits = 0;           // simulations of each turn's search (>= 1)
  int64_t max_time_ms = 0;      // 0: no time limit
  double report_every_s = 0.0;  // 0: no reports during the search
  bool include_policy = false;
  std::vector<std::pair<int8_t, int>> avoid;  // (colour or kEmpty for either, point)
};

enum class QueryAction { kAnalyze, kQueryVersion, kClearCache, kTerminate, kTerminateAll };

struct ParsedQuery {
  QueryAction action = QueryAction::kAnalyze;
  std::string id;
  AnalysisQuery query;                 // kAnalyze
  std::string terminate_id;            // kTerminate
  std::vector<int> terminate_turns;    // kTerminate; empty: every turn
  std::string error;                   // non-empty: the query is refused
  std::string field;                   // the field the error is about ("" for the line itself)
  bool ok() const { return error.empty(); }
};

struct QueryLimits {
  int default_max_visits = 400;
  int max_visits_cap = 10000000;
  int max_board_size = 22;
  int min_board_size = 5;
};

ParsedQuery ParseAnalysisQuery(std::string_view line, const QueryLimits& limits = {});

// The position of `turn` (0..moves.size()): the initial stones, then the
// first `turn` moves.  Precondition: `q` came from ParseAnalysisQuery.
Board PositionAtTurn(const AnalysisQuery& q, int turn);

// {"id": id, "error": message, "field": field} as one JSON line.
std::string QueryErrorLine(const std::string& id, const std::string& field, const std::string& message);

}  // namespace gz
