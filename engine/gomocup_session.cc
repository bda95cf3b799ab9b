#include "engine/gomocup_session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include <thread>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/match/analysis_report.h"
#include "engine/fallback_move.h"
#include "engine/protocol_text.h"
#include "engine/yixin_output.h"

namespace gz {
namespace {

// `board`'s cells with the side to move's stone on `move` (a finished board
// takes no Play).
std::vector<int8_t> WithStone(const Board& board, int move) {
  std::vector<int8_t> cells = board.cells();
  cells[move] = board.to_move();
  return cells;
}

}  // namespace


GomocupSession::GomocupSession(MovePlayer& player, int max_simulations, MovePlayer* backup)
    : main_player_(player),
      backup_(backup),
      player_(&player),
      max_simulations_(max_simulations),
      default_max_simulations_(max_simulations) {}

bool GomocupSession::Handle(const std::string& raw, std::chrono::steady_clock::time_point received,
                            std::vector<std::string>& replies) {
  const bool owes_move = OwesMove(raw);
  const size_t replied = replies.size();
  searched_ = false;
  std::string what = "unknown exception";
  try {
    return Dispatch(raw, received, replies);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  // Every expected problem is answered in Dispatch; this keeps the engine
  // alive if something unexpected throws, and where a move is owed still
  // answers one (a manager forfeits an ERROR there).
  spdlog::error("engine: command '{}' failed: {}", raw, what);
  block_ = Block::kNone;
  replies.resize(replied);
  if (owes_move && board_) AnswerFallback("command failed: " + what, true, replies);
  else replies.push_back("ERROR " + OneLine(what));
  return true;
}

bool GomocupSession::OwesMove(const std::string& raw) const {
  const std::string line = Trim(raw);
  const std::string command = Upper(line.substr(0, line.find_first_of(" \t")));
  if (block_ != Block::kNone) return block_ == Block::kBoard && command == "DONE";
  return command == "BEGIN" || command == "TURN";
}

void GomocupSession::OpenBlock(Block kind, const std::string& name, const std::string& args) {
  block_ = kind;
  block_name_ = name;
  board_stones_.clear();
  block_points_.clear();
  // The block is read up to DONE whatever is wrong, so its lines are not
  // taken for commands; the error is the one reply, at DONE.
  board_error_ = kind == Block::kSkipped || kind == Block::kArgumentLine ? ""
                 : !args.empty() && kind != Block::kBoard && kind != Block::kSwap2
                     ? name + ": takes no arguments, got '" + OneLine(args) + "'"
                 : board_ ? ""
                          : name + ": no game started; send START first";
}

void GomocupSession::BlockLine(const std::string& command, const std::string& line,
                               std::chrono::steady_clock::time_point received, std::vector<std::string>& replies) {
  if (block_ == Block::kArgumentLine) {  // e.g. YXHASHDUMP's file name: one line, whatever it says
    block_ = Block::kNone;
    return;
  }
  if (command != "DONE") {
    if (block_ == Block::kBoard || block_ == Block::kYxBoard) BoardLine(line);
    else if (block_ != Block::kSkipped) PointLine(line);
    return;
  }
  const Block done = block_;
  block_ = Block::kNone;
  switch (done) {
    case Block::kBoard: BoardDone(received, replies); break;
    case Block::kYxBoard: YxBoardDone(replies); break;
    case Block::kYxBlock: YxBlockDone(/*add=*/true, replies); break;
    case Block::kYxBlockUndo: YxBlockDone(/*add=*/false, replies); break;
    case Block::kSwap2: Swap2Done(received, replies); break;
    case Block::kSkipped: SkippedDone(replies); break;
    case Block::kArgumentLine:
    case Block::kNone: break;
  }
}

void GomocupSession::PointLine(const std::string& line) {
  if (!board_error_.empty()) return;
  std::string error;
  const int point = ParsePoint(line, &error);
  if (point == kNoMove) {
    board_error_ = block_name_ + ": " + error;
  } else if (block_ == Block::kSwap2 &&
             std::find(block_points_.begin(), block_points_.end(), point) != block_points_.end()) {
    board_error_ = block_name_ + ": point " + FormatCoordinates(point, board_->size()) + " is listed twice";
  } else {
    block_points_.push_back(point);
  }
}

bool GomocupSession::Dispatch(const std::string& raw, std::chrono::steady_clock::time_point received,
                              std::vector<std::string>& replies) {
  const std::string line = Trim(raw);
  if (line.empty()) return true;
  const size_t sp = line.find_first_of(" \t");
  const std::string command = Upper(line.substr(0, sp));
  const std::string args = sp == std::string::npos ? "" : Trim(line.substr(sp + 1));
  if (command == "END") return false;
  if (block_ != Block::kNone) {
    BlockLine(command, line, received, replies);
    return true;
  }

  if (command == "START") {
    Start(args, replies);
  } else if (command == "RESTART") {
    if (!board_) replies.push_back("ERROR no game to restart; send START first");
    else {
      NewGame(board_->size());
      replies.push_back("OK");
    }
  } else if (command == "RECTSTART") {
    const auto wh = ParseCoordinates(args);
    if (wh && wh->first == wh->second) Start(std::to_string(wh->first), replies);  // a square is a START
    else replies.push_back("ERROR rectangular boards are not supported; use START with a square size");
  } else if (command == "BEGIN") {
    if (!board_) replies.push_back("ERROR no game started; send START first");
    else if (board_->move_count() != 0) replies.push_back("ERROR BEGIN needs an empty board (use BOARD for a position)");
    else Think(received, replies);
  } else if (command == "TURN") {
    Turn(args, received, replies);
  } else if (command == "BOARD") {
    OpenBlock(Block::kBoard, "BOARD", args);
  } else if (command == "SWAP2BOARD") {
    OpenBlock(Block::kSwap2, "SWAP2BOARD", args);
  } else if (command == "TAKEBACK") {
    Takeback(args, replies);
  } else if (command == "INFO") {
    Info(args);
  } else if (command == "ABOUT") {
    std::ostringstream os;
    os << "name=\"" << kEngineName << "\", version=\"" << kEngineVersion << "\", author=\"" << kEngineAuthor
       << "\", country=\"" << kEngineCountry << "\"";
    if (*kEngineWww != '\0') os << ", www=\"" << kEngineWww << "\"";
    replies.push_back(os.str());
  } else if (command.rfind("YX", 0) == 0) {
    Yixin(command, args, received, replies);
  } else {
    replies.push_back("UNKNOWN command '" + OneLine(command) + "' is not supported");
  }
  return true;
}

void GomocupSession::NewGame(int size) {
  // YXBLOCK points stay (Yixin-Board sends START before every engine move,
  // and Rapfi keeps them too) unless the board changes size.  The search tree
  // stays as well: the player reuses it when the next position extends the
  // last one (a GUI's START + BOARD each move) and rebuilds it otherwise.
  if (board_ && board_->size() != size) blocked_.clear();
  board_.emplace(size, rule_);
  history_.clear();
  last_decision_.reset();
  block_ = Block::kNone;
}

void GomocupSession::Start(const std::string& args, std::vector<std::string>& replies) {
  // `START N`, or `START W H` (the original Yixin-Board's): a square is START N.
  std::string first = args, second;
  if (const size_t sp = args.find_first_of(" \t"); sp != std::string::npos) {
    first = args.substr(0, sp);
    second = Trim(args.substr(sp + 1));
  }
  auto size = ParseInteger(first);
  if (!size || (!second.empty() && !ParseInteger(second))) {
    replies.push_back("ERROR START expects a board size (START N or START W H), got '" + OneLine(args) + "'");
    return;
  }
  if (!second.empty() && *ParseInteger(second) != *size) {
    replies.push_back("ERROR rectangular boards are not supported (START " + OneLine(args) + "); use a square size");
    return;
  }
  if (*size < 0 || *size > 1000) {
    replies.push_back("ERROR board size " + std::to_string(*size) + " is not supported");
    return;
  }
  // A missing or broken net is no reason to refuse the game: the GUI shows
  // the MESSAGE and the backup player (the classical player) plays it.
  player_ = &main_player_;
  if (std::string why = player_->CheckSize(static_cast<int>(*size)); !why.empty()) {
    if (!backup_ || !backup_->CheckSize(static_cast<int>(*size)).empty()) {
      replies.push_back("ERROR " + why);
      return;
    }
    spdlog::error("engine: {}; {} plays this game", why, backup_->Describe());
    replies.push_back("MESSAGE " + OneLine(why) + "; " + backup_->Describe() + " plays instead");
    player_ = backup_;
  }
  NewGame(static_cast<int>(*size));
  spdlog::info("engine: new {}x{} game, rule {}, {}", *size, *size, RuleName(rule_), player_->Describe());
  replies.push_back("OK");
}

int GomocupSession::ParsePoint(const std::string& args, std::string* error) const {
  auto xy = ParseCoordinates(args);
  if (!xy) {
    *error = "expected coordinates X,Y, got '" + OneLine(args) + "'";
    return kNoMove;
  }
  const int n = board_->size();
  auto [x, y] = *xy;
  if (x < 0 || y < 0 || x >= n || y >= n) {
    *error = "coordinates " + std::to_string(x) + "," + std::to_string(y) + " are outside the " +
             std::to_string(n) + "x" + std::to_string(n) + " board";
    return kNoMove;
  }
  return y * n + x;
}

int GomocupSession::PointOfCommand(const char* command, const std::string& args, std::vector<std::string>& replies) {
  if (!board_) {
    replies.push_back("ERROR no game started; send START first");
    return kNoMove;
  }
  std::string error;
  const int move = ParsePoint(args, &error);
  if (move == kNoMove) replies.push_back(std::string("ERROR ") + command + ": " + error);
  return move;
}

void GomocupSession::Turn(const std::string& args, std::chrono::steady_clock::time_point received,
                          std::vector<std::string>& replies) {
  const int move = PointOfCommand("TURN", args, replies);
  if (move == kNoMove) return;
  if (board_->at(move) != kEmpty) {
    replies.push_back("ERROR TURN: point " + FormatCoordinates(move, board_->size()) + " is occupied");
    return;
  }
  if (board_->terminal()) {
    // Our reading of the rule ended the game and the manager plays on (it
    // judges otherwise): take its stone as given, and a move is owed.
    *board_ = Board::FromStones(board_->size(), board_->rule(), WithStone(*board_, move),
                                Opponent(board_->to_move()), move);
    history_.push_back(move);
    Think(received, replies);
    return;
  }
  if (!board_->IsLegal(move)) {  // renju: black's forbidden point
    replies.push_back("ERROR TURN: point " + FormatCoordinates(move, board_->size()) + " is " +
                      (board_->rule() == Rule::kRenju && board_->to_move() == kBlack
                           ? std::string("forbidden for black under renju: ") +
                                 ForbiddenReasonName(ForbiddenReasonForBlack(*board_, move))
                           : std::string("not a legal move")));
    return;
  }
  board_->Play(move);
  history_.push_back(move);
  Think(received, replies);  // a move is owed even when our reading of the rule ends the game here
}

void GomocupSession::Takeback(const std::string& args, std::vector<std::string>& replies) {
  const int move = PointOfCommand("TAKEBACK", args, replies);
  if (move == kNoMove) return;
  if (board_->at(move) == kEmpty) {
    replies.push_back("ERROR TAKEBACK: there is no stone at " + FormatCoordinates(move, board_->size()));
    return;
  }
  board_->Remove(move);
  history_.erase(std::remove(history_.begin(), history_.end(), move), history_.end());
  // Restore the previous last move (Remove forgets it) when it is known.
  int last = history_.empty() ? kNoMove : history_.back();
  if (last != kNoMove && board_->at(last) == Opponent(board_->to_move()))
    *board_ = Board::FromStones(board_->size(), board_->rule(), board_->cells(), board_->to_move(), last);
  last_decision_.reset();
  replies.push_back("OK");
}

void GomocupSession::Info(const std::string& args) {
  const size_t sp = args.find_first_of(" \t");
  std::string key = args.substr(0, sp);
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string value = sp == std::string::npos ? "" : Trim(args.substr(sp + 1));
  if (YixinInfo(key, value)) return;
  static const char* kNumeric[] = {"timeout_turn", "timeout_match", "time_left", "max_memory", "rule", "game_type"};
  if (std::find(std::begin(kNumeric), std::end(kNumeric), key) == std::end(kNumeric)) {
    spdlog::debug("engine: ignoring INFO {}", args);
    return;
  }
  auto v = ParseInteger(value);
  if (!v) {
    spdlog::warn("engine: ignoring INFO {} with a non-numeric value '{}'", key, value);
    return;
  }
  if (key == "timeout_turn") tc_.timeout_turn_ms = std::max<long long>(0, *v);
  else if (key == "timeout_match") tc_.timeout_match_ms = std::max<long long>(0, *v);
  else if (key == "max_memory") tc_.max_memory_bytes = std::max<long long>(0, *v);
  else if (key == "time_left") {
    tc_.time_left_ms = *v;
    tc_.time_left_known = true;
  } else if (key == "rule") {
    Rule rule = RuleOfInfoValue(*v);
    // Bit 2 inside another value: Gomocup's continuous game (a BOARD may
    // then carry field 3 and stone counts that no longer tell the colours).
    continuous_ = *v != 2 && (*v & 2) != 0;
    if (rule != rule_) {
      rule_ = rule;
      if (board_) {
        *board_ = Board::FromStones(board_->size(), rule_, board_->cells(), board_->to_move(), board_->last_move());
        player_->ClearTree();
      }
      spdlog::info("engine: rule set to {}", RuleName(rule_));
    }
  }
  // game_type needs no action.
}

void GomocupSession::BoardLine(const std::string& line) {
  if (!board_error_.empty()) return;
  std::vector<std::string> parts = SplitCommas(line);
  auto x = parts.size() == 3 ? ParseInteger(parts[0]) : std::nullopt;
  auto y = parts.size() == 3 ? ParseInteger(parts[1]) : std::nullopt;
  auto f = parts.size() == 3 ? ParseInteger(parts[2]) : std::nullopt;
  if (!x || !y || !f) {
    board_error_ = block_name_ + ": expected X,Y,field lines, got '" + OneLine(line) + "'";
    return;
  }
  const int n = board_->size();
  if (*x < 0 || *y < 0 || *x >= n || *y >= n) {
    board_error_ = block_name_ + ": coordinates " + std::to_string(*x) + "," + std::to_string(*y) + " are outside the " +
                   std::to_string(n) + "x" + std::to_string(n) + " board";
    return;
  }
  if (*f != 1 && *f != 2 && *f != 3) {
    board_error_ = block_name_ + ": field must be 1 (own), 2 (opponent) or 3 (continuous game: nobody's), got " +
                   std::to_string(*f);
    return;
  }
  const int point = static_cast<int>(*y * n + *x);
  for (auto& [p, field] : board_stones_)
    if (p == point) {
      board_error_ = block_name_ + ": point " + FormatCoordinates(point, n) + " is listed twice";
      return;
    }
  board_stones_.emplace_back(point, static_cast<int>(*f));
}

std::optional<Board> GomocupSession::BlockPosition(std::vector<std::string>& replies) {
  if (!board_error_.empty()) {
    replies.push_back("ERROR " + board_error_);
    return std::nullopt;
  }
  const std::string& cmd = block_name_;
  const int n = board_->size();
  int own = 0, opp = 0, nobody = 0;
  for (auto& [p, field] : board_stones_) (field == 1 ? own : field == 2 ? opp : nobody) += 1;
  // It is our turn: equal counts mean we moved first (black), one stone fewer
  // that the opponent did.  Other counts come from continuous games (the
  // stones of a scored line turn into field 3) or a GUI's odd position: the
  // colour then follows the parity of every stone placed, and the position
  // is still played (a move is owed; docs/engine.md "BOARD").
  int8_t own_colour;
  if (own == opp) own_colour = kBlack;
  else if (own + 1 == opp) own_colour = kWhite;
  else {
    own_colour = (own + opp + nobody) % 2 == 0 ? kBlack : kWhite;
    spdlog::warn("engine: {} with {} own, {} opponent and {} field-3 stones{}: playing {}", cmd, own, opp, nobody,
                 continuous_ ? " (continuous game)" : "", own_colour == kBlack ? "black" : "white");
  }
  std::vector<int8_t> cells(n * n, kEmpty);
  int last = kNoMove;
  for (auto& [p, field] : board_stones_) {
    cells[p] = field == 3 ? kBlocked : field == 1 ? own_colour : Opponent(own_colour);
    if (field == 2) last = p;
  }
  Board b = Board::FromStones(n, rule_, cells, own_colour, last);
  // A finished position is kept: the manager may judge the rule otherwise
  // and still want a move (Think answers one; FallbackMove).
  if (b.terminal()) spdlog::warn("engine: {}: the position is already finished by the {} rule", cmd, RuleName(rule_));
  return b;
}

void GomocupSession::BoardDone(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies) {
  std::optional<Board> b = BlockPosition(replies);
  if (!b) return;
  *board_ = *b;
  history_.clear();
  for (auto& [p, field] : board_stones_)
    if (field != 3) history_.push_back(p);
  Think(received, replies);
}

void GomocupSession::YxBoardDone(std::vector<std::string>& replies) {
  std::optional<Board> b = BlockPosition(replies);
  if (!b) return;
  *board_ = *b;
  history_.clear();
  for (auto& [p, field] : board_stones_)
    if (field != 3) history_.push_back(p);
  last_decision_.reset();
}


void GomocupSession::Think(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies,
                           bool play, int lines) {
  Board& board = *board_;
  if (board.terminal()) {
    // The manager plays on where our reading of the rule has ended the game
    // (or a GUI sent a finished position): answer a move all the same.
    AnswerFallback("the game is over by the " + std::string(RuleName(board.rule())) + " rule", play, replies);
    return;
  }
  const int empties = board.num_points() - board.move_count();
  SearchLimits limits = LimitsUntil(received + ThinkingTime(tc_, empties));
  searched_ = true;
  limits.excluded = blocked_;
  const int size = board.size();
  YixinReporter reporter(size, lines, show_detail_);
  const auto start = std::chrono::steady_clock::now();
  if (show_detail_ != 0 && live_) {
    limits.on_progress = [&](const TreeReport& report) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (const std::string& l : reporter.Lines(report, seconds)) live_(l);
    };
  }
  MoveDecision d;
  try {
    d = player_->ChooseMove(board, limits);
  } catch (const std::exception& e) {
    AnswerFallback(std::string("the search failed: ") + e.what(), play, replies);
    return;
  } catch (...) {
    AnswerFallback("the search failed", play, replies);
    return;
  }
  const TreeReport report = player_->Report();
  if (show_detail_ != 0)
    for (std::string& l : reporter.Lines(report, d.seconds)) replies.push_back(std::move(l));
  std::ostringstream msg;
  if (d.reason == "win") {
    msg << "MESSAGE immediate win at " << FormatCoordinates(d.move, size);
  } else if (d.reason == "block") {
    msg << "MESSAGE forced block at " << FormatCoordinates(d.move, size);
  } else if (report.proof) {
    // A proof is a distance, not a win rate.
    msg << "MESSAGE proven " << (report.proof->win ? "win" : "loss") << " in " << (report.proof->complete ? "" : ">=")
        << report.proof->plies << " plies:";
    for (int m : report.proof->line) msg << " " << FormatCoordinates(m, size);
    msg << " (sims " << d.simulations << ")";
  } else {
    msg << "MESSAGE value " << FormatValue(d.value) << " sims " << d.simulations << " (+" << d.reused_visits
        << " reused) time " << static_cast<int>(d.seconds * 1000) << "ms best";
    for (auto& [m, v] : d.top) msg << " " << FormatCoordinates(m, size) << "=" << v;
  }
  spdlog::info("engine: move {} ({}), value {}, {} sims, {:.3f} s (slowest simulation {:.1f} ms)",
               FormatCoordinates(d.move, size), d.reason, FormatValue(d.value), d.simulations, d.seconds,
               d.longest_simulation_ms);
  if (play) {
    board.Play(d.move);
    history_.push_back(d.move);
  }
  last_decision_ = d;
  replies.push_back(msg.str());
  replies.push_back(FormatCoordinates(d.move, size));
}

void GomocupSession::AnswerFallback(const std::string& why, bool play, std::vector<std::string>& replies) {
  Board& board = *board_;
  const int move = FallbackMove(board, blocked_);
  spdlog::error("engine: {}; answering {} without a search", why, move == kNoMove ? "nothing" : FormatCoordinates(move, board.size()));
  if (move == kNoMove) {  // a full board: no point is left to answer with
    replies.push_back("ERROR " + OneLine(why) + "; no empty point is left");
    return;
  }
  if (play) {
    if (board.IsLegal(move)) board.Play(move);
    else board = Board::FromStones(board.size(), board.rule(), WithStone(board, move), Opponent(board.to_move()), move);
    history_.push_back(move);
  }
  last_decision_.reset();
  replies.push_back("MESSAGE " + OneLine(why) + "; playing " + FormatCoordinates(move, board.size()) +
                    " without a search");
  replies.push_back(FormatCoordinates(move, board.size()));
}

SearchLimits GomocupSession::LimitsUntil(std::chrono::steady_clock::time_point deadline) const {
  SearchLimits limits;
  limits.deadline = deadline;
  limits.max_simulations = max_simulations_;
  limits.tree_memory_bytes = TreeMemoryBudget(tc_);
  limits.stop = stop_;
  limits.interrupt = interrupt_;
  return limits;
}

MoveDecision GomocupSession::Evaluate(const Board& board, std::chrono::steady_clock::time_point deadline) {
  searched_ = true;
  player_->ClearTree();  // every swap2 position is a new root
  MoveDecision d = player_->ChooseMove(board, LimitsUntil(deadline));
  player_->ClearTree();
  return d;
}

}  // namespace gz
