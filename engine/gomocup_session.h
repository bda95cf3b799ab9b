// The Gomocup (Piskvork) protocol state machine: one command line in, zero or
// more reply lines out.  It owns the game state (board, rule, limits) and asks
// a MovePlayer (move_player.h: the net's search or the classical player) for moves; it does no I/O itself, so the binary, the unit
// tests and other drivers share it.
//
// Coordinates are 0-based "X,Y" with X = column and Y = row; the board stores
// row * size + col.  Replies never contain a line break.  Commands:
//   START n -> OK | ERROR      RESTART -> OK      RECTSTART w,h -> OK (w == h) | ERROR
//   BEGIN -> move              TURN X,Y -> move   BOARD / X,Y,f ... / DONE -> move
//   SWAP2BOARD / X,Y ... / DONE -> the swap2 answer (three stones, SWAP, one or
//     two stones; docs/engine.md "Swap2")
//   TAKEBACK X,Y -> OK         INFO key value -> (nothing)
//   ABOUT -> name="..", ...    END -> (nothing; Handle returns false)
//   anything else -> UNKNOWN ...; bad coordinates / occupied points -> ERROR ...
// A move reply is preceded by one `MESSAGE ...` line with the evaluation; a
// solver-proven result reads `MESSAGE proven win|loss in N plies: line`.
// Yixin-Board's extensions (docs/engine.md "Analysis"):
//   YXSHOWINFO -> MESSAGE INFO MAX_THREAD_NUM n / MESSAGE INFO MAX_HASH_SIZE n,
//     and analysis output from then on (also after INFO show_detail n > 0):
//     before each move reply the yixin_output.h lines of the final tree, and
//     while searching the same lines through the live output at most every
//     250 ms
//   YXBOARD / X,Y,f ... / DONE -> (nothing; sets the position, as BOARD, without thinking)
//   YXNBEST n -> analysis lines for the n best moves, then the best move; the
//     position stays as it was (nothing is played)
//   YXSTOP -> (nothing; the input reader raised the interrupt flag, which
//     ended a running search: its move reply was the answer)
//   YXHASHCLEAR -> (nothing; the search tree is dropped)
//   YXSHOWFORBID -> FORBID XXYY...XXYY. (black's renju forbidden points when
//     black is to move under renju, else `FORBID .`)
//   YXBLOCK / X,Y ... / DONE -> (nothing; those points are not played by any
//     search until YXBLOCKRESET or START)     YXBLOCKRESET -> (nothing)
//   INFO thread_num / max_node map to search threads / the simulation cap
//     (the net's search; the classical player has one thread and N nodes);
//     hash_size, max_depth, pondering, caution_factor (and Yixin's other
//     keys) are logged as ignored
//   any other YX... or a malformed one -> ERROR <command>: ..., board unchanged
// Thread-safety: none; one thread (the stop and interrupt flags may be
// raised by another; the live output is called from search threads while
// Handle runs).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/game/board.h"
#include "engine/time_control.h"
#include "common/match/move_player.h"

namespace gz {

constexpr const char* kEngineName = "gomoku-zero";
constexpr const char* kEngineVersion = "0.1.0";
constexpr const char* kEngineAuthor = "gomoku-zero developers";
constexpr const char* kEngineCountry = "Unknown";

// "X,Y" (blanks allowed around the numbers) -> (x, y); nullopt if malformed.
std::optional<std::pair<int, int>> ParseCoordinates(const std::string& text);
std::string FormatCoordinates(int move, int size);  // "X,Y"

class GomocupSession {
 public:
  GomocupSession(MovePlayer& player, int max_simulations);

  // Raised by the input reader on END; a running search then stops at once.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }
  // Raised by the input reader on YXSTOP; lowered when that line is handled.
  void set_interrupt_flag(std::atomic<bool>* interrupt) { interrupt_ = interrupt; }
  // Where analysis lines go while a search runs (the binary: stdout, one
  // flushed line each).  Unset: only the final analysis, with the replies.
  void set_live_output(std::function<void(const std::string&)> live) { live_ = std::move(live); }
  bool yixin_mode() const { return yixin_; }
  const std::vector<int>& blocked() const { return blocked_; }

  // Handles one command line (terminator already stripped) that arrived at
  // `received` (the turn clock starts then).  Appends the reply lines to
  // `replies`.  Returns false once END was handled.
  bool Handle(const std::string& line, std::chrono::steady_clock::time_point received,
              std::vector<std::string>& replies);

  const std::optional<Board>& board() const { return board_; }
  Rule rule() const { return rule_; }
  // The decision behind the last move reply, if any.
  const std::optional<MoveDecision>& last_decision() const { return last_decision_; }

 private:
  bool Dispatch(const std::string& line, std::chrono::steady_clock::time_point received,
                std::vector<std::string>& replies);
  void Start(const std::string& args, std::vector<std::string>& replies);
  void Turn(const std::string& args, std::chrono::steady_clock::time_point received,
            std::vector<std::string>& replies);
  void Takeback(const std::string& args, std::vector<std::string>& replies);
  // The point of a TURN / TAKEBACK command, or kNoMove after replying with the
  // error (no game started, or a malformed point).
  int PointOfCommand(const char* command, const std::string& args, std::vector<std::string>& replies);
  void Info(const std::string& args);
  // Yixin's INFO keys; false when `key` is none of them.
  bool YixinInfo(const std::string& key, const std::string& value);
  void Yixin(const std::string& command, const std::string& args, std::chrono::steady_clock::time_point received,
             std::vector<std::string>& replies);
  void BoardLine(const std::string& line);
  // The BOARD / YXBOARD block's position, or nullopt after replying with the
  // error (the board unchanged).
  std::optional<Board> BlockPosition(std::vector<std::string>& replies);
  void BoardDone(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies);
  void YxBoardDone(std::vector<std::string>& replies);
  void YxBlockDone(std::vector<std::string>& replies);
  void ShowForbid(std::vector<std::string>& replies) const;
  void Swap2Line(const std::string& line);
  void Swap2Done(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies);
  // The search's view of `board` (white or black to move) under a share of
  // this turn's time: a move and the value for its side.
  MoveDecision Evaluate(const Board& board, std::chrono::steady_clock::time_point deadline);
  SearchLimits LimitsUntil(std::chrono::steady_clock::time_point deadline) const;
  // Searches the board; replies (analysis lines in Yixin mode), the MESSAGE
  // and the move; plays it when `play`.  `lines`: PV blocks reported.
  void Think(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies, bool play = true,
             int lines = 1);
  // Parses and validates "X,Y" against the board; returns the point or sets *error.
  int ParsePoint(const std::string& args, std::string* error) const;
  void NewGame(int size);

  MovePlayer& player_;
  int max_simulations_;
  const int default_max_simulations_;
  const std::atomic<bool>* stop_ = nullptr;
  std::atomic<bool>* interrupt_ = nullptr;
  std::function<void(const std::string&)> live_;
  bool yixin_ = false;              // YXSHOWINFO or INFO show_detail seen: analysis output on
  std::vector<int> blocked_;        // YXBLOCK points
  bool in_yxblock_block_ = false;
  std::vector<int> yxblock_points_;
  std::string block_command_ = "BOARD";  // the position block being read: BOARD or YXBOARD

  std::optional<Board> board_;
  Rule rule_ = Rule::kFreestyle;
  TimeControl tc_;
  std::vector<int> history_;  // stones in the order they were placed (for TAKEBACK's last move)
  std::optional<MoveDecision> last_decision_;

  bool in_board_block_ = false;
  bool in_swap2_block_ = false;
  std::vector<int> swap2_stones_;  // the SWAP2BOARD block's points, in order (black, white, black, ...)
  std::vector<std::pair<int, int>> board_stones_;  // (point, field) of the BOARD block
  std::string board_error_;                        // first problem in the BOARD block
};

}  // namespace gz
