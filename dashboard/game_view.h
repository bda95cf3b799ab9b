// One game file as the page's game viewer draws it.
// Thread-safety: free function; reads one file.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gz {

// games/it{iteration}/{name} (read with common/data/game_record.h) as
// {"board_size", "rule", "winner", "end", "resignation", "playout_cap",
// "opening":[point...], "moves":[{"point", "colour", "value", "full_search",
// "policy":[H*W, rounded], "model_generation"}...]}.
// `value` is the recorded root value for the side that moved, in [-1, 1].
// `end`: "five" (won on the board), "resigned", "proven" (adjudicated on a
// proven root, selfplay.adjudicate_proven) or "draw".  `resignation`: null
// when resignation was off, else {"resigned", "disabled" (a game that never
// resigns), "would_resign_move" (the move index t after which the rule held,
// -1 never)}.  `full_search`: whether move t was a full search (a policy
// target) under playout-cap randomization; `playout_cap` says whether the
// cap was on (off: every move is a full search).
// Throws HttpError: 400 when `name` is not a game file name
// (IsGameFileName), 404 when the file is missing, 422 when it does not parse.
nlohmann::json GameJson(const std::string& run_dir, int64_t iteration, const std::string& name);

}  // namespace gz
