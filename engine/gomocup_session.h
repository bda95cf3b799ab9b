// The Gomocup (Piskvork) protocol state machine: one command line in, zero or
// more reply lines out.  It owns the game state (board, rule, limits) and asks
// a SearchPlayer for moves; it does no I/O itself, so the binary, the unit
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
// A move reply is preceded by one `MESSAGE ...` line with the evaluation.
// Thread-safety: none; one thread (the stop flag may be raised by another).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/game/board.h"
#include "engine/time_control.h"
#include "match/evaluator_source.h"
#include "match/search_player.h"

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
  GomocupSession(EvaluatorSource& source, SearchPlayer& player, int max_simulations);

  // Raised by the input reader on END; a running search then stops at once.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }

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
  void BoardLine(const std::string& line);
  void BoardDone(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies);
  void Swap2Line(const std::string& line);
  void Swap2Done(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies);
  // The search's view of `board` (white or black to move) under a share of
  // this turn's time: a move and the value for its side.
  MoveDecision Evaluate(const Board& board, std::chrono::steady_clock::time_point deadline);
  SearchLimits LimitsUntil(std::chrono::steady_clock::time_point deadline) const;
  void Think(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies);
  // Parses and validates "X,Y" against the board; returns the point or sets *error.
  int ParsePoint(const std::string& args, std::string* error) const;
  void NewGame(int size);

  EvaluatorSource& source_;
  SearchPlayer& player_;
  int max_simulations_;
  const std::atomic<bool>* stop_ = nullptr;

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
