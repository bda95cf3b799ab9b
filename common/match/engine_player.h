// The manager side of the Gomocup protocol: an external brain as a match
// player, one fresh process per game, driven through pipes (ChildProcess).
//
// Per game: START size (answered OK within kEngineStartTimeout), INFO
// timeout_turn / timeout_match / max_memory / rule, then BEGIN or a BOARD
// block on its first turn and TURN x,y after that, END when the game is over.
// With a match clock (EngineLimits::match_ms, Gomocup's timeout_match: the
// brain's thinking time for the whole game) each move is preceded by INFO
// time_left, the time from sending the move request to the reply is charged
// to the clock, and a move may take min(turn, time left) + grace.
// A reply that is not "x,y", a point off the board or occupied, no reply
// within that time, or a process that exits forfeits the game (the kind and
// reason are returned, docs/ratings.md).  EngineLimits::as_manager drives
// the brain exactly as the Gomocup manager does instead (tools/gomocup_check).
// Thread-safety: none.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/child_process.h"
#include "common/match/player.h"

namespace gz {

// How long START may take: a brain that links LibTorch needs seconds to load.
constexpr std::chrono::milliseconds kEngineStartTimeout{30000};

struct EngineCommand {
  std::vector<std::string> argv;  // argv[0] resolved to a path
  std::string dir;                // working folder; "" = inherit
  std::string name;               // rating name
};

// Parses what follows "engine:": a command line (split on blanks; a first
// word without '/' is looked up in PATH) or a settings file ending in .json
// ({"command": [...] | "...", "dir": "...", "name": "..."}; relative dir =
// relative to the file; "./x" and "../x" command words relative to dir).
// `entry` (e.g. "engine:/bin/x") is the default name.  Throws ConfigError
// naming the entry.
EngineCommand ParseEngineCommand(const std::string& entry);

struct EngineLimits {
  int turn_ms = 1000;   // sent as INFO timeout_turn
  int grace_ms = 2000;  // a reply later than min(turn, time left) + grace forfeits
  int match_ms = 0;     // sent as INFO timeout_match; 0 = no match clock (and no INFO time_left)
  int64_t max_memory = 0;  // bytes, sent as INFO max_memory; 0 = no limit
  // As the Gomocup manager (GomocupJudge's new_protocol.py) drives a brain:
  // every line ends in CRLF, INFO game_type 1 follows the time controls, the
  // first move is asked with BOARD ... DONE even on the empty board (never
  // BEGIN), and a move is read as the manager reads it: MESSAGE lines and any
  // line that is not "x,y" (Python's int() on each side: blanks and a sign
  // allowed) are skipped until the time runs out; a point off the board
  // (negative included) forfeits as "crash", an occupied one as "illegal";
  // forbidden points and the end of the game are left to the caller's referee
  // (the Board passed to Move is read only for its stones and side to move).
  bool as_manager = false;
  // Sent as INFO rule instead of GomocupRuleValue(rule) when >= 0 (the
  // manager's exact rule values, e.g. 8 for caro with overlines).
  int info_rule = -1;
};

class EngineMatchPlayer : public MatchPlayer {
 public:
  // stderr_path: the brain's stderr is appended there ("" = inherited).
  EngineMatchPlayer(EngineCommand command, EngineLimits limits, std::string stderr_path = "");
  ~EngineMatchPlayer() override;

  std::optional<Forfeit> NewGame(int size, Rule rule) override;
  MoveReply Move(const Board& board, const std::vector<int>& history) override;
  void EndGame() noexcept override;

  // The running brain's process id (its whole process tree's root, e.g. for
  // measuring its memory), or -1 between games.
  int pid() const { return process_ ? static_cast<int>(process_->pid()) : -1; }
  // Match-clock time charged this game (every move's request-to-reply time).
  std::chrono::milliseconds used() const { return used_; }
  // EngineLimits::as_manager: lines skipped while a move was owed, and those of
  // them that began with ERROR, since construction.
  int skipped_lines() const { return skipped_lines_; }
  int error_lines() const { return error_lines_; }
  const std::string& last_error_line() const { return last_error_line_; }

 private:
  std::optional<Forfeit> Send(const std::string& line);  // CRLF-terminated lines under as_manager
  // as_manager: one reply line read as the manager reads it; true when it
  // decided the move (*r: the point, or the forfeit), false when skipped.
  bool ReadsAsManager(const std::string& line, const Board& board, MoveReply* r);
  // Next reply line that is not MESSAGE / DEBUG / SUGGEST before the deadline.
  MoveReply ReadMove(const Board& board, std::chrono::steady_clock::time_point deadline,
                     std::chrono::milliseconds allowed, int64_t limit_ms);
  Forfeit Crashed(const std::string& when);
  // No move before the deadline: a crash when the process is gone, else a timeout.
  Forfeit NoMove(std::chrono::milliseconds allowed, int64_t limit_ms);

  EngineCommand command_;
  EngineLimits limits_;
  std::string stderr_path_;
  std::unique_ptr<ChildProcess> process_;
  size_t known_moves_ = 0;  // history length the brain has seen (its own reply included)
  bool told_position_ = false;
  std::chrono::milliseconds used_{0};  // this game's thinking time so far
  int skipped_lines_ = 0;
  int error_lines_ = 0;
  std::string last_error_line_;
};

// The Gomocup INFO rule value of a rule: 0 freestyle, 1 exactly five
// (standard), 4 renju.
int GomocupRuleValue(Rule rule);

// Why an empty point is not a legal move on `board` ("forbidden for black
// under renju: double-three", or "not a legal move").
std::string IllegalBecause(const Board& board, int point);

// Starts the brain once and checks that it answers START size with OK.
// Returns "" when it does, else why not (one line).
std::string ProbeEngine(const EngineCommand& command, int size, Rule rule, const std::string& stderr_path = "");

}  // namespace gz
