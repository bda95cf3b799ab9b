// Games and checks run as the Gomocup manager runs them (GomocupJudge's
// client/ai_match.py and test_zip_rules.py, read, not copied): the manager's
// six 2026 pre-submission formats with their time controls and position
// checks, a brain suspended (SIGSTOP) between its moves with its process
// tree's memory summed after each move, and every move judged by the
// manager's own referee (tools/manager_referee.h) under the exact rule value.
// tools/gomocup_check --format NAME drives these (docs/engine.md "The Gomocup
// manager's checks").
// Thread-safety: none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/match/engine_player.h"
#include "tools/manager_referee.h"

namespace gz {

// A position the manager sends as BOARD (the moves in order, black first; the
// engine's own stones field 1) and the replies that pass.
struct PositionCheck {
  std::string moves;                // letters: "h8h9i8i9j8j9k8k9"
  std::vector<std::string> accept;  // the reply must be one of these; empty: any but `reject`
  std::vector<std::string> reject;  // the reply must not be one of these
  std::string Expected() const;     // "g8 or l8", "not g9"
};

struct ManagerFormat {
  std::string name;  // as --format takes it: freestyle20, fastgame, freestyle15, standard, renju, caro
  std::string title;  // the manager's name for it: "Freestyle 20x20", ...
  int size;
  int rule;      // the manager's INFO rule value (0, 1, 4, 8)
  int turn_ms;   // timeout_turn
  int match_ms;  // timeout_match
  std::vector<PositionCheck> checks;
};

// The six formats, in the manager's order.
const std::vector<ManagerFormat>& ManagerFormats();
// By name (case-insensitive); throws ConfigError listing the names.
const ManagerFormat& FindManagerFormat(const std::string& name);
// The opening of the manager's pre-submission self-play game.
constexpr const char* kManagerSelfPlayOpening = "b2e2e3";

// One brain process as the manager holds it: EngineLimits::as_manager, the
// process tree stopped (SIGSTOP) except while a move is owed, and its memory
// (tools/process_memory.h ProcessTreeUssBytes) summed after every move
// against `memory_limit` (0: none), as the manager does.
class ManagedBrain {
 public:
  ManagedBrain(std::string name, const EngineCommand& command, EngineLimits limits, int64_t memory_limit,
               const std::string& stderr_path);
  ~ManagedBrain();
  const std::string& name() const { return name_; }

  std::optional<Forfeit> NewGame(int size, int rule);
  // history: the game's points (y * size + x) so far; cells and side to move follow from it.
  MoveReply Move(int size, const std::vector<int>& history);
  void EndGame() noexcept;

  int64_t peak_memory() const { return peak_; }  // the largest sum seen after a move, bytes
  bool memory_fell_back_to_rss() const { return rss_fallback_; }
  int64_t slowest_ms() const { return slowest_ms_; }
  int error_lines() const { return player_.error_lines(); }  // ERROR lines while a move was owed
  int skipped_lines() const { return player_.skipped_lines(); }
  const std::string& last_error_line() const { return player_.last_error_line(); }

 private:
  std::string name_;
  EngineMatchPlayer player_;
  int64_t memory_limit_;
  int64_t peak_ = 0;
  bool rss_fallback_ = false;
  int64_t slowest_ms_ = 0;
};

struct ManagerGame {
  ManagerEnd end = ManagerEnd::kOngoing;
  int winner = 0;           // 0 draw, 1 black, 2 white
  std::string loser_name;   // the brain that lost by foul, illegal move, crash, timeout or memory
  std::string reason;       // why, for a game not ended by five or draw
  std::vector<int> moves;   // every point, the opening included
};

// One game as play() runs it: the opening placed, then moves asked of black
// and white in turn until the referee ends it (a five, a foul, an illegal or
// off-board move, the renju draw at 25 empty points or a full board) or a
// brain forfeits (timeout, crash, memory).
ManagerGame PlayManagerGame(ManagedBrain& black, ManagedBrain& white, int size, int rule,
                            const std::vector<std::pair<int, int>>& opening);

// The manager's run_rule_check: a fresh brain, START, INFO, then the position
// as BOARD; the reply judged against the check.  Returns "" when it passed,
// else why not; *reply (optional) gets the move in letters.
std::string RunPositionCheck(const EngineCommand& engine, const ManagerFormat& format, const PositionCheck& check,
                             EngineLimits limits, const std::string& stderr_path, std::string* reply = nullptr);

}  // namespace gz
