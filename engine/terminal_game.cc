#include "engine/terminal_game.h"

#include "common/game/renju.h"

#include <cctype>
#include <istream>
#include <ostream>
#include <sstream>

#include "common/game/point_text.h"

namespace gz {
namespace {

std::string Normalize(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

const char* ColourName(int8_t c) { return c == kBlack ? "black (X)" : "white (O)"; }

}  // namespace

std::string DrawBoard(const Board& board) {
  const int n = board.size();
  std::ostringstream os;
  os << "   ";
  for (int c = 0; c < n; ++c) os << ' ' << static_cast<char>('a' + c);
  os << '\n';
  for (int r = 0; r < n; ++r) {
    os << (r + 1 < 10 ? "  " : " ") << r + 1;
    for (int c = 0; c < n; ++c) {
      const int m = r * n + c;
      char sep = ' ';
      if (m == board.last_move()) sep = '(';
      else if (c > 0 && m - 1 == board.last_move()) sep = ')';
      const int8_t s = board.at(m);
      os << sep << (s == kBlack ? 'X' : s == kWhite ? 'O' : '.');
    }
    if (board.last_move() == r * n + n - 1) os << ')';
    os << '\n';
  }
  return os.str();
}

std::string FormatHumanMove(int move, int size) {
  return std::string(1, static_cast<char>('a' + move % size)) + std::to_string(move / size + 1);
}

std::optional<int> ParseHumanMove(const std::string& text, int size, std::string* error) {
  const std::string t = Normalize(text);
  int x = -1, y = -1;
  if (t.find(',') != std::string::npos) {
    const std::optional<PointXY> xy = ParseXY(t);
    if (!xy) {
      *error = "'" + text + "' is not a move; type e.g. h8 or 7,7";
      return std::nullopt;
    }
    x = static_cast<int>(xy->x);  // at most 9 digits: fits
    y = static_cast<int>(xy->y);
  } else {
    bool ok = t.size() >= 2 && t.size() <= 4 && t[0] >= 'a' && t[0] <= 'z';
    for (size_t i = 1; ok && i < t.size(); ++i) ok = std::isdigit(static_cast<unsigned char>(t[i])) != 0;
    if (!ok) {
      *error = "'" + text + "' is not a move; type e.g. h8 or 7,7 (or undo, help, quit)";
      return std::nullopt;
    }
    x = t[0] - 'a';
    y = std::stoi(t.substr(1)) - 1;
  }
  if (x < 0 || y < 0 || x >= size || y >= size) {
    *error = "'" + text + "' is off the board (columns a-" + std::string(1, static_cast<char>('a' + size - 1)) +
             ", rows 1-" + std::to_string(size) + ")";
    return std::nullopt;
  }
  return y * size + x;
}

TerminalGame::TerminalGame(MovePlayer& player, const TerminalGameOptions& options)
    : player_(player), options_(options), board_(options.size, options.rule) {}

void TerminalGame::Rebuild() {
  board_ = Board(options_.size, options_.rule);
  for (int m : history_) board_.Play(m);
}

void TerminalGame::Undo(std::ostream& out) {
  // Remove the engine's reply (if any) and the human move before it.
  size_t keep = history_.size();
  while (keep > 0) {
    const int8_t mover = (keep - 1) % 2 == 0 ? kBlack : kWhite;
    --keep;
    if (mover == options_.human) break;
    if (keep == 0) {  // only the engine's opening move: nothing of the human's to take back
      keep = history_.size();
      break;
    }
  }
  if (keep == history_.size()) {
    out << "nothing to undo\n";
    return;
  }
  history_.resize(keep);
  Rebuild();
  out << "took back your last move and the engine's reply\n";
}

bool TerminalGame::HumanTurn(std::istream& in, std::ostream& out) {
  for (;;) {
    if (board_.terminal()) out << "game over: type undo or quit> ";
    else out << "your move as " << ColourName(options_.human) << " (e.g. h8 or 7,7; undo, help, quit)> ";
    out.flush();
    std::string line;
    if (!std::getline(in, line)) {
      out << "\n";
      return false;
    }
    const std::string cmd = Normalize(line);
    if (cmd.empty()) continue;
    if (cmd == "quit" || cmd == "q" || cmd == "exit") return false;
    if (cmd == "help" || cmd == "?") {
      out << "moves: column letter + row number (h8) or X,Y from 0 (7,7); undo: take back your last move and "
             "the engine's reply; quit: leave\n";
      continue;
    }
    if (cmd == "undo" || cmd == "u") {
      Undo(out);
      return true;
    }
    if (board_.terminal()) {
      out << "the game is over; type undo or quit\n";
      continue;
    }
    std::string error;
    auto move = ParseHumanMove(line, board_.size(), &error);
    if (!move) {
      out << "illegal move: " << error << "\n";
      continue;
    }
    if (board_.at(*move) != kEmpty) {
      out << "illegal move: " << FormatHumanMove(*move, board_.size()) << " is occupied\n";
      continue;
    }
    if (!board_.IsLegal(*move)) {  // renju: black's forbidden point
      out << "illegal move: " << FormatHumanMove(*move, board_.size()) << " is forbidden for black under renju ("
          << ForbiddenReasonName(ForbiddenReasonForBlack(board_, *move)) << ")\n";
      continue;
    }
    board_.Play(*move);
    history_.push_back(*move);
    return true;
  }
}

void TerminalGame::EngineTurn(std::ostream& out) {
  SearchLimits limits;
  if (options_.time_per_move.count() > 0) limits.deadline = std::chrono::steady_clock::now() + options_.time_per_move;
  limits.max_simulations = options_.max_simulations;
  out << "engine is thinking...\n";
  out.flush();
  MoveDecision d = player_.ChooseMove(board_, limits);
  board_.Play(d.move);
  history_.push_back(d.move);
  out << "engine plays " << FormatHumanMove(d.move, board_.size()) << " (" << FormatPoint(d.move, board_.size())
      << ")";
  if (d.reason == MoveReason::kWin) out << ": winning move\n";
  else if (d.reason == MoveReason::kBlock) out << ": forced block\n";
  else
    out << ": value " << FormatValue(d.value) << " for the engine, " << d.simulations << " simulations in "
        << static_cast<int>(d.seconds * 1000) << " ms\n";
}

int TerminalGame::Run(std::istream& in, std::ostream& out) {
  out << "gomoku " << options_.size << "x" << options_.size << ", rule " << RuleName(options_.rule)
      << "; you play " << ColourName(options_.human) << ", X moves first\n";
  for (;;) {
    out << "\n" << DrawBoard(board_);
    if (board_.terminal()) {
      Outcome o = board_.outcome();
      if (o == Outcome::kDraw)
        out << (board_.num_points() == board_.move_count() ? "draw: the board is full\n"
                : board_.rule() == Rule::kRenju                 ? "draw: renju ends at 25 empty points (or black cannot move)\n"
                                                                : "draw\n");
      else {
        const int8_t winner = o == Outcome::kBlackWins ? kBlack : kWhite;
        out << (winner == options_.human ? "you win" : "the engine wins") << " (" << ColourName(winner) << ")\n";
      }
    }
    if (board_.terminal() || board_.to_move() == options_.human) {
      if (!HumanTurn(in, out)) break;
    } else {
      EngineTurn(out);
    }
  }
  out << "bye\n";
  return board_.move_count();
}

}  // namespace gz
