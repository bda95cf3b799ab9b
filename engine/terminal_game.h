// A human-vs-engine game on a text terminal (the `play` binary), on top of
// the same MovePlayer the Gomocup engine uses (the net's search or classical:N).
//
// Notation: columns are letters a.. (X), rows are numbers 1.. from the top
// (Y + 1), so "h8" and the protocol's "7,7" are the same point.  Input lines:
// a move ("h8" or "7,7"), "undo" (takes back the last human move and the
// engine's reply), "help", "quit".  Illegal input gets a message and a new
// prompt; end of input quits.
// Thread-safety: none.
#pragma once

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/match/move_player.h"

namespace gz {

// Board drawing with coordinates; the last move is shown in parentheses.
std::string DrawBoard(const Board& board);
// "h8" for point (row 7, col 7).
std::string FormatHumanMove(int move, int size);
// Parses "h8" / "H8" / "7,7"; returns the point, or nullopt with *error set
// (malformed or off the board; occupancy is the caller's check).
std::optional<int> ParseHumanMove(const std::string& text, int size, std::string* error);

struct TerminalGameOptions {
  int size = 15;
  Rule rule = Rule::kFreestyle;
  int8_t human = kBlack;
  std::chrono::milliseconds time_per_move{3000};  // 0 = no time limit (simulation cap only)
  int max_simulations = 200000;
};

class TerminalGame {
 public:
  TerminalGame(MovePlayer& player, const TerminalGameOptions& options);
  // Plays until the human quits or input ends.  Returns the number of moves on
  // the board at the end.
  int Run(std::istream& in, std::ostream& out);
  const Board& board() const { return board_; }

 private:
  bool HumanTurn(std::istream& in, std::ostream& out);  // false = quit
  void EngineTurn(std::ostream& out);
  void Undo(std::ostream& out);
  void Rebuild();

  MovePlayer& player_;
  TerminalGameOptions options_;
  Board board_;
  std::vector<int> history_;
};

}  // namespace gz
