// A scripted Gomocup session against one brain, as a tournament manager
// (Piskvork, the Gomocup judge) drives it: START, the INFO keys of a
// tournament (time controls, max_memory, rule, game_type), ABOUT, BEGIN,
// TURN, TAKEBACK, RESTART, BOARD, SWAP2BOARD with 0 and 3 stones, a renju
// game start, END.  Every move reply is checked against our referee
// (legal, on an empty point, forbidden points under renju) and against the
// turn limit plus grace; END must end the process with status 0.
// tools/gomocup_check runs it before its games (docs/engine.md).
// Thread-safety: none.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/match/engine_player.h"

namespace gz {

struct ProtocolCheckOptions {
  int size = 15;
  int turn_ms = 1000;    // INFO timeout_turn
  int grace_ms = 1000;   // a move later than turn + grace is a failure
  int64_t max_memory = 0;  // INFO max_memory, bytes
  std::string stderr_path;  // the brain's stderr ("" = inherited)
};

// Runs the script; returns the failures (empty: every step passed), one line
// each.  Writes one line per step to `log`.
std::vector<std::string> RunProtocolChecks(const EngineCommand& engine, const ProtocolCheckOptions& options,
                                           std::ostream& log);

}  // namespace gz
