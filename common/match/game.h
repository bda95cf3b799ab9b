// One refereed game between two MatchPlayers, and how players are made from
// specs (net:PATH[:SIMS], rollout:P, classical:N, uniform:N, engine:COMMAND).
//
// The referee is our rules code (common/game/board.h): it places the opening,
// asks the side to move for a move, rejects an illegal one (that player
// forfeits) and ends the game at five in a row or a full board.
// Thread-safety: none.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/config/config.h"
#include "common/match/engine_player.h"
#include "common/match/openings.h"
#include "common/match/player.h"

namespace gz {

struct GameResult {
  int8_t winner = 0;             // kBlack, kWhite, 0 = draw
  std::string end;               // "five", "full" (any draw: the full board, renju's 25 empty points, black
                                 // unable to move), "forfeit", or "stopped" (the stop flag; not a result)
  std::string forfeit_kind;      // when end == "forfeit": illegal | malformed | timeout | crash | start
  std::string forfeit_by;        // the loser's name when end == "forfeit"
  std::string reason;            // one line
  std::vector<int> moves;        // every point, the opening included
  double seconds = 0;
};

// Plays from `opening` to the end.  `stop` (may be null) is checked before
// every move; when raised the game ends with end == "stopped".
GameResult PlayGame(MatchPlayer& black, MatchPlayer& white, int size, Rule rule, const Opening& opening,
                    const std::atomic<bool>* stop = nullptr);

struct PlayerOptions {
  uint64_t seed = 1;
  int net_threads = 1;            // threads of a network's forward
  std::string device = "cpu";     // inference device of a network ("auto" resolved here)
  std::string backend = "auto";   // inference.backend of a network (ChooseForward: auto = native on the CPU)
  std::string symmetry = "none";  // none | random | all8
  EngineLimits engine;
  std::string engine_stderr;      // where brains' stderr goes ("" = inherited)

  // From the config: inference.device / inference.backend /
  // inference.symmetry, eval.engine_*, and `net_threads` forward threads.
  static PlayerOptions FromConfig(const Config& cfg, uint64_t seed, int net_threads);
};

// Makes a player from a spec.  net: uses `default_simulations` when no :SIMS
// is given; names: the spec itself.  Throws ConfigError for a malformed spec
// (naming it), ModelError / IoError for a bad checkpoint.
std::unique_ptr<MatchPlayer> MakeMatchPlayer(const std::string& spec, const Config& cfg, int default_simulations,
                                             const PlayerOptions& options);

// A network player: checkpoint `path` with `simulations`; the board size must
// match cfg.board.size (ModelError otherwise).  Its forward is the one
// ChooseForward picks from options.backend, device and net_threads (on the
// CPU by default the native forward, as the engine plays); forward() names it.
std::unique_ptr<MatchPlayer> MakeNetPlayer(const std::string& name, const std::string& path, int simulations,
                                           const Config& cfg, const PlayerOptions& options);

}  // namespace gz
