// One game file as the page's game viewer draws it.
// Thread-safety: free function; reads one file.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gz {

// games/it{iteration}/{name} (read with common/data/game_record.h) as
// {"board_size", "rule", "winner", "opening":[point...], "moves":[{"point",
// "colour", "value", "policy":[H*W, rounded], "model_generation"}...]}.
// `value` is the recorded root value for the side that moved, in [-1, 1].
// Throws HttpError: 400 when `name` is not a game file name
// (IsGameFileName), 404 when the file is missing, 422 when it does not parse.
nlohmann::json GameJson(const std::string& run_dir, int64_t iteration, const std::string& name);

}  // namespace gz
