// The JSON lines the analysis engine writes about one analysed turn
// (analysis_engine.h "Responses" states their fields): a search's response,
// the answer of a turn that never started, and a turn's error line.  Pure
// formatting: no search, no I/O.  Win rates, priors and lcbs are rounded to
// four decimals and points written as point_text's "X,Y"; a line is the same
// text for the same report.
#pragma once

#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/match/analysis_report.h"

namespace gz {

// What a response says besides the tree's report.
struct ResponseTurn {
  const std::string& id;
  int turn = 0;
  bool during = false;          // isDuringSearch
  bool memory_limited = false;  // the tree reached the memory budget
};

// A search's response for `report` of the tree rooted at `board`; `raw_priors`
// (the network's prior over every point) adds "policy" when not null.
std::string SearchResponseLine(const ResponseTurn& turn, const Board& board, const TreeReport& report,
                               const std::vector<float>* raw_priors);

// The answer of a turn terminated before its search started.
std::string NoResultsLine(const std::string& id, int turn);

// The error line of one turn's search: QueryErrorLine's fields plus "turnNumber".
std::string TurnErrorLine(const std::string& id, int turn, const std::string& field, const std::string& message);

}  // namespace gz
