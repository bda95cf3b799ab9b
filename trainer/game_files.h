// Finding and vetting the game files workers write into games/it{N}/.
//
// A game file is any regular file named "*.npz" whose name is not a temp name
// (fileio.h IsTempName).  Workers publish files atomically, so a complete name
// means a complete file; anything that still fails to parse is corrupt.
// Nothing here throws for bad file *contents*: the verdict says what is wrong.
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/data/game_record.h"

namespace gz {

enum class GameVerdict {
  kUsable,        // parses, and matches the iteration, one of the board sizes and the rule
  kCorrupt,       // truncated, bad checksum, bad values (LoadGameRecord threw)
  kStale,         // parses, but its iteration tag is not the iteration of its directory
  kIncompatible,  // parses, but its board size is none of the run's, or its rule differs
};
const char* GameVerdictName(GameVerdict v);

struct GameExpect {
  int64_t iteration = 0;
  // Every board size the run's games use (Config::board_sizes(): board.size
  // and the other sizes of selfplay.board_sizes); a game of any of them is
  // usable.
  std::set<int> board_sizes{15};
  Rule rule = Rule::kFreestyle;
};

// "9x9" for {9}, "7x7 or 9x9" for {7, 9}: the run's geometry in a refusal.
std::string BoardSizesText(const std::set<int>& sizes);

// Loads `path` into *out and checks it against `expect`.  On anything but
// kUsable, *reason names the problem (and *out is unspecified).
GameVerdict LoadAndCheckGame(const std::string& path, const GameExpect& expect, GameRecord* out,
                             std::string* reason);

// File names (not paths) of the game files in `dir`, sorted; empty when the
// directory does not exist.
std::vector<std::string> ListGameFiles(const std::string& dir);

// Deletes temp files ("*.tmp*") in `dir` whose last change is older than
// min_age_s (left behind by a writer that died).  Returns how many were removed.
int RemoveAbandonedTempFiles(const std::string& dir, double min_age_s);

}  // namespace gz
