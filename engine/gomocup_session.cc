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
#include "engine/yixin_output.h"

namespace gz {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Replies are single lines: flatten whatever an exception message contains.
std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::optional<long long> ParseInteger(const std::string& text) {
  std::string t = Trim(text);
  if (t.empty()) return std::nullopt;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i == t.size() || t.size() - i > 12) return std::nullopt;
  for (size_t k = i; k < t.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(t[k]))) return std::nullopt;
  return std::stoll(t);
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  return parts;
}

}  // namespace

std::optional<std::pair<int, int>> ParseCoordinates(const std::string& text) {
  std::vector<std::string> parts = SplitCommas(text);
  if (parts.size() != 2) return std::nullopt;
  auto x = ParseInteger(parts[0]), y = ParseInteger(parts[1]);
  if (!x || !y || *x < -1000000 || *x > 1000000 || *y < -1000000 || *y > 1000000) return std::nullopt;
  return std::make_pair(static_cast<int>(*x), static_cast<int>(*y));
}

std::string FormatCoordinates(int move, int size) {
  return std::to_string(move % size) + "," + std::to_string(move / size);
}

GomocupSession::GomocupSession(MovePlayer& player, int max_simulations)
    : player_(player), max_simulations_(max_simulations), default_max_simulations_(max_simulations) {}

bool GomocupSession::Handle(const std::string& raw, std::chrono::steady_clock::time_point received,
                            std::vector<std::string>& replies) {
  try {
    return Dispatch(raw, received, replies);
  } catch (const std::exception& e) {
    // Every expected problem is answered above; this keeps the engine alive
    // (and the manager informed) if something unexpected throws.
    spdlog::error("engine: command '{}' failed: {}", raw, e.what());
    in_board_block_ = false;
    in_swap2_block_ = false;
    in_yxblock_block_ = false;
    replies.push_back("ERROR " + OneLine(e.what()));
    return true;
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

  if (in_board_block_) {
    if (command != "DONE") BoardLine(line);
    else if (block_command_ == "YXBOARD") YxBoardDone(replies);
    else BoardDone(received, replies);
    return true;
  }
  if (in_yxblock_block_) {
    if (command == "DONE") {
      YxBlockDone(replies);
    } else if (board_error_.empty()) {
      const int point = ParsePoint(line, &board_error_);
      if (point == kNoMove) board_error_ = "YXBLOCK: " + board_error_;
      else yxblock_points_.push_back(point);
    }
    return true;
  }
  if (in_swap2_block_) {
    if (command == "DONE") Swap2Done(received, replies);
    else Swap2Line(line);
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
    // The block is consumed up to DONE even without a game, so its stone
    // lines are not taken for commands; the error is the one reply at DONE.
    in_board_block_ = true;
    block_command_ = "BOARD";
    board_stones_.clear();
    board_error_ = board_ ? "" : "no game started; send START first";
  } else if (command == "SWAP2BOARD") {
    in_swap2_block_ = true;
    swap2_stones_.clear();
    board_error_ = board_ ? "" : "no game started; send START first";
  } else if (command == "TAKEBACK") {
    Takeback(args, replies);
  } else if (command == "INFO") {
    Info(args);
  } else if (command == "ABOUT") {
    std::ostringstream os;
    os << "name=\"" << kEngineName << "\", version=\"" << kEngineVersion << "\", author=\"" << kEngineAuthor
       << "\", country=\"" << kEngineCountry << "\"";
    replies.push_back(os.str());
  } else if (command.rfind("YX", 0) == 0) {
    Yixin(command, args, received, replies);
  } else {
    replies.push_back("UNKNOWN command '" + OneLine(command) + "' is not supported");
  }
  return true;
}

void GomocupSession::Yixin(const std::string& command, const std::string& args,
                           std::chrono::steady_clock::time_point received, std::vector<std::string>& replies) {
  auto no_args = [&] {
    if (args.empty()) return true;
    replies.push_back("ERROR " + command + ": takes no arguments, got '" + OneLine(args) + "'");
    return false;
  };
  if (command == "YXSHOWINFO") {
    if (!no_args()) return;
    yixin_ = true;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    replies.push_back("MESSAGE INFO MAX_THREAD_NUM " + std::to_string(cores));
    // Yixin-Board's hash slider; INFO hash_size is ignored (the tree follows max_memory).
    replies.push_back("MESSAGE INFO MAX_HASH_SIZE 20");
  } else if (command == "YXBOARD" || command == "YXBLOCK") {
    // The block is read up to DONE whatever is wrong, so its lines are not
    // taken for commands; the error is the one reply, at DONE.
    (command == "YXBOARD" ? in_board_block_ : in_yxblock_block_) = true;
    block_command_ = command;
    board_stones_.clear();
    yxblock_points_.clear();
    board_error_ = !args.empty() ? command + ": takes no arguments, got '" + OneLine(args) + "'"
                   : board_ ? ""
                            : command + ": no game started; send START first";
  } else if (command == "YXBLOCKRESET") {
    if (no_args()) blocked_.clear();
  } else if (command == "YXSTOP") {
    // The reader raised the interrupt when the line arrived (a running search
    // has already answered); lowered here so the next search runs.
    if (interrupt_) interrupt_->store(false);
  } else if (command == "YXHASHCLEAR") {
    if (no_args()) player_.ClearTree();
  } else if (command == "YXSHOWFORBID") {
    if (!no_args()) return;
    if (!board_) replies.push_back("ERROR YXSHOWFORBID: no game started; send START first");
    else ShowForbid(replies);
  } else if (command == "YXNBEST") {
    const auto n = ParseInteger(args);
    if (!n || *n < 1 || *n > 225) {
      replies.push_back("ERROR YXNBEST: expected a number of moves 1..225, got '" + OneLine(args) + "'");
    } else if (!board_) {
      replies.push_back("ERROR YXNBEST: no game started; send START first");
    } else if (board_->terminal()) {
      replies.push_back("ERROR YXNBEST: the game is already over");
    } else {
      Think(received, replies, /*play=*/false, static_cast<int>(*n));
    }
  } else {
    replies.push_back("ERROR " + OneLine(command) + ": unknown command (not supported)");
  }
}

void GomocupSession::ShowForbid(std::vector<std::string>& replies) const {
  std::string out = "FORBID ";
  const int n = board_->size();
  if (board_->rule() == Rule::kRenju && board_->to_move() == kBlack && !board_->terminal()) {
    char buf[32];
    for (int p : ForbiddenPoints(*board_)) {
      std::snprintf(buf, sizeof(buf), "%02d%02d", p % n, p / n);
      out += buf;
    }
  }
  replies.push_back(out + ".");
}

void GomocupSession::YxBlockDone(std::vector<std::string>& replies) {
  in_yxblock_block_ = false;
  if (!board_error_.empty()) {
    replies.push_back("ERROR " + board_error_);
    return;
  }
  for (int p : yxblock_points_)
    if (std::find(blocked_.begin(), blocked_.end(), p) == blocked_.end()) blocked_.push_back(p);
}

void GomocupSession::NewGame(int size) {
  board_.emplace(size, rule_);
  history_.clear();
  blocked_.clear();
  in_yxblock_block_ = false;
  last_decision_.reset();
  in_board_block_ = false;
  in_swap2_block_ = false;
  player_.ClearTree();
}

void GomocupSession::Start(const std::string& args, std::vector<std::string>& replies) {
  auto size = ParseInteger(args);
  if (!size) {
    replies.push_back("ERROR START expects a board size, got '" + OneLine(args) + "'");
    return;
  }
  if (*size < 0 || *size > 1000) {
    replies.push_back("ERROR board size " + std::to_string(*size) + " is not supported");
    return;
  }
  std::string why = player_.CheckSize(static_cast<int>(*size));
  if (!why.empty()) {
    replies.push_back("ERROR " + why);
    return;
  }
  NewGame(static_cast<int>(*size));
  spdlog::info("engine: new {}x{} game, rule {}, {}", *size, *size, RuleName(rule_), player_.Describe());
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
  if (board_->terminal()) {
    replies.push_back("ERROR the game is already over");
    return;
  }
  if (board_->at(move) != kEmpty) {
    replies.push_back("ERROR TURN: point " + FormatCoordinates(move, board_->size()) + " is occupied");
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
  if (board_->terminal()) {
    replies.push_back(board_->outcome() == Outcome::kDraw ? "ERROR the game is a draw (no legal move is left)"
                                                          : "ERROR the opponent's move ended the game");
    return;
  }
  Think(received, replies);
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
    // Bits: 1 exactly five, 2 continuous game (BOARD may carry field 3), 4 renju, 8 caro.
    // Caro is exactly five not blocked at both ends (board.h Rule::kCaro),
    // whether or not bit 1 comes with bit 8.  Yixin-Board numbers its rules
    // 0 freestyle, 1 standard, 2 renju: in Yixin mode 2 is renju, not
    // Gomocup's continuous-game bit.
    Rule rule = ((*v & 4) || (yixin_ && *v == 2)) ? Rule::kRenju
                : (*v & 8)                        ? Rule::kCaro
                : (*v & 1)                        ? Rule::kStandard
                                                  : Rule::kFreestyle;
    if (rule != rule_) {
      rule_ = rule;
      if (board_) {
        *board_ = Board::FromStones(board_->size(), rule_, board_->cells(), board_->to_move(), board_->last_move());
        player_.ClearTree();
      }
      spdlog::info("engine: rule set to {}", RuleName(rule_));
    }
  }
  // game_type needs no action.
}

bool GomocupSession::YixinInfo(const std::string& key, const std::string& value) {
  // Keys Yixin-Board sends that have no counterpart in an MCTS engine.
  static const char* kIgnored[] = {"hash_size",      "max_depth",          "pondering", "caution_factor",
                                   "thread_split_depth", "nbest_sym", "checkmate", "usedatabase",
                                   "time_increment", "database_readonly"};
  const bool mapped = key == "thread_num" || key == "max_node" || key == "show_detail";
  if (!mapped && std::find(std::begin(kIgnored), std::end(kIgnored), key) == std::end(kIgnored)) return false;
  if (!mapped) {
    spdlog::info("engine: INFO {} {} ignored (no such setting in this engine; docs/engine.md \"Analysis\")", key, value);
    return true;
  }
  const auto v = ParseInteger(value);
  if (!v) {
    spdlog::warn("engine: ignoring INFO {} with a non-numeric value '{}'", key, value);
    return true;
  }
  if (key == "thread_num") {
    player_.set_threads(static_cast<int>(std::clamp<long long>(*v, 1, 256)));
    spdlog::info("engine: INFO thread_num: {} search threads", player_.threads());
  } else if (key == "max_node") {
    // Yixin's node cap is our simulation cap; <= 0 means none (the configured one).
    max_simulations_ = *v > 0 ? static_cast<int>(std::min<long long>(*v, 1 << 30)) : default_max_simulations_;
    spdlog::info("engine: INFO max_node: at most {} simulations a move", max_simulations_);
  } else {
    yixin_ = yixin_ || *v > 0;
  }
  return true;
}

void GomocupSession::BoardLine(const std::string& line) {
  if (!board_error_.empty()) return;
  std::vector<std::string> parts = SplitCommas(line);
  auto x = parts.size() == 3 ? ParseInteger(parts[0]) : std::nullopt;
  auto y = parts.size() == 3 ? ParseInteger(parts[1]) : std::nullopt;
  auto f = parts.size() == 3 ? ParseInteger(parts[2]) : std::nullopt;
  if (!x || !y || !f) {
    board_error_ = block_command_ + ": expected X,Y,field lines, got '" + OneLine(line) + "'";
    return;
  }
  const int n = board_->size();
  if (*x < 0 || *y < 0 || *x >= n || *y >= n) {
    board_error_ = block_command_ + ": coordinates " + std::to_string(*x) + "," + std::to_string(*y) + " are outside the " +
                   std::to_string(n) + "x" + std::to_string(n) + " board";
    return;
  }
  if (*f != 1 && *f != 2 && *f != 3) {
    board_error_ = block_command_ + ": field must be 1 (own), 2 (opponent) or 3 (continuous game: nobody's), got " +
                   std::to_string(*f);
    return;
  }
  const int point = static_cast<int>(*y * n + *x);
  for (auto& [p, field] : board_stones_)
    if (p == point) {
      board_error_ = block_command_ + ": point " + FormatCoordinates(point, n) + " is listed twice";
      return;
    }
  board_stones_.emplace_back(point, static_cast<int>(*f));
}

std::optional<Board> GomocupSession::BlockPosition(std::vector<std::string>& replies) {
  in_board_block_ = false;
  if (!board_error_.empty()) {
    replies.push_back("ERROR " + board_error_);
    return std::nullopt;
  }
  const std::string& cmd = block_command_;
  const int n = board_->size();
  int own = 0, opp = 0;
  for (auto& [p, field] : board_stones_)
    if (field != 3) (field == 1 ? own : opp) += 1;  // field 3: blocked, nobody's stone
  int8_t own_colour;
  if (own == opp) own_colour = kBlack;           // we moved first
  else if (own + 1 == opp) own_colour = kWhite;  // the opponent moved first
  else {
    replies.push_back("ERROR " + cmd + ": impossible position with " + std::to_string(own) + " own and " +
                      std::to_string(opp) + " opponent stones (it must be our turn)");
    return std::nullopt;
  }
  std::vector<int8_t> cells(n * n, kEmpty);
  int last = kNoMove;
  for (auto& [p, field] : board_stones_) {
    cells[p] = field == 3 ? kBlocked : field == 1 ? own_colour : Opponent(own_colour);
    if (field == 2) last = p;
  }
  Board b = Board::FromStones(n, rule_, cells, own_colour, last);
  if (b.terminal()) {
    replies.push_back(b.outcome() != Outcome::kDraw ? "ERROR " + cmd + ": the position already has five in a row"
                      : b.move_count() == b.num_points()
                          ? "ERROR " + cmd + ": the board is full"
                          : "ERROR " + cmd + ": black has only forbidden points left (a draw)");
    return std::nullopt;
  }
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
    replies.push_back("ERROR the game is already over");
    return;
  }
  const int empties = board.num_points() - board.move_count();
  SearchLimits limits = LimitsUntil(received + ThinkingTime(tc_, empties));
  limits.excluded = blocked_;
  const int size = board.size();
  YixinReporter reporter(size, lines);
  const auto start = std::chrono::steady_clock::now();
  if (yixin_ && live_) {
    limits.on_progress = [&](const TreeReport& report) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (const std::string& l : reporter.Lines(report, seconds)) live_(l);
    };
  }
  MoveDecision d;
  try {
    d = player_.ChooseMove(board, limits);
  } catch (const std::exception& e) {
    spdlog::error("engine: search failed: {}", e.what());
    replies.push_back("ERROR search failed: " + OneLine(e.what()));
    return;
  }
  const TreeReport report = player_.Report();
  if (yixin_)
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
  player_.ClearTree();  // every swap2 position is a new root
  MoveDecision d = player_.ChooseMove(board, LimitsUntil(deadline));
  player_.ClearTree();
  return d;
}

void GomocupSession::Swap2Line(const std::string& line) {
  if (!board_error_.empty()) return;
  const int n = board_->size();
  std::string error;
  const int point = ParsePoint(line, &error);
  if (point == kNoMove) {
    board_error_ = "SWAP2BOARD: " + error;
    return;
  }
  if (std::find(swap2_stones_.begin(), swap2_stones_.end(), point) != swap2_stones_.end()) {
    board_error_ = "SWAP2BOARD: point " + FormatCoordinates(point, n) + " is listed twice";
    return;
  }
  swap2_stones_.push_back(point);
}

// Swap2 (Gomocup's SWAP2BOARD): every answer comes from the search's value of
// a position, `value` being the expected result for the side to move there
// (white after three or five stones).  margin: how far from even a position
// may be for the engine to call it balanced.
void GomocupSession::Swap2Done(std::chrono::steady_clock::time_point received, std::vector<std::string>& replies) {
  in_swap2_block_ = false;
  if (!board_error_.empty()) {
    replies.push_back("ERROR " + board_error_);
    return;
  }
  const int n = board_->size();
  const size_t k = swap2_stones_.size();
  if (k != 0 && k != 3 && k != 5) {
    replies.push_back("ERROR SWAP2BOARD: expected 0, 3 or 5 stones, got " + std::to_string(k));
    return;
  }
  if (n < 7) {
    replies.push_back("ERROR SWAP2BOARD: the board is too small for swap2 (7x7 at least)");
    return;
  }
  // Stones alternate black, white, black, ... in the order given.
  Board b(n, rule_);
  for (int p : swap2_stones_) {
    if (!b.IsLegal(p)) {
      replies.push_back("ERROR SWAP2BOARD: stone " + FormatCoordinates(p, n) + " is not a legal move there");
      return;
    }
    b.Play(p);
  }
  if (b.terminal()) {
    replies.push_back("ERROR SWAP2BOARD: the position is already decided");
    return;
  }
  constexpr float kBalanced = 0.15f;
  const auto budget = ThinkingTime(tc_, b.num_points() - b.move_count());
  auto share = [&](int part, int parts) { return received + budget * (part + 1) / parts; };
  std::ostringstream msg;
  msg << "MESSAGE swap2:";
  std::string answer;
  Board result = b;  // the position after our answer, for board()
  if (k == 0) {
    // Place three stones (black, white, black) so that the position is as even
    // as the search can tell: the opponent then chooses the colour.
    const int c = n / 2;
    auto at = [&](int dx, int dy) { return (c + dy) * n + (c + dx); };
    const std::vector<std::vector<int>> candidates = {
        {at(0, 0), at(1, 0), at(2, 1)},    // direct white, black one knight's step on
        {at(0, 0), at(1, 1), at(2, 0)},    // indirect white
        {at(0, 0), at(1, 0), at(-1, 2)},   // direct white, black further out
        {at(0, 0), at(1, 1), at(-2, 1)}};  // indirect white, black further out
    float best_gap = 2.0f;
    for (size_t i = 0; i < candidates.size(); ++i) {
      Board t(n, rule_);
      for (int p : candidates[i]) t.Play(p);
      const MoveDecision d = Evaluate(t, share(static_cast<int>(i), static_cast<int>(candidates.size())));
      msg << " opening " << i << " value " << FormatValue(d.value);
      if (std::fabs(d.value) < best_gap) {
        best_gap = std::fabs(d.value);
        result = t;
        answer.clear();
        for (int p : candidates[i]) answer += (answer.empty() ? "" : " ") + FormatCoordinates(p, n);
      }
    }
  } else if (k == 3) {
    // We are the second player: take black (SWAP), stay white and play the
    // fourth stone, or, when the position is even, add two stones (white,
    // black) and hand the choice back.
    const MoveDecision d = Evaluate(b, share(0, 2));
    msg << " white to move, value " << FormatValue(d.value);
    if (d.value < -kBalanced) {
      answer = "SWAP";
    } else if (d.value > kBalanced) {
      answer = FormatCoordinates(d.move, n);
      result.Play(d.move);
    } else {
      Board four = b;
      four.Play(d.move);
      const MoveDecision e = Evaluate(four, share(1, 2));
      four.Play(e.move);
      msg << "; after " << FormatCoordinates(d.move, n) << " " << FormatCoordinates(e.move, n) << " black's value "
          << FormatValue(e.value);
      answer = FormatCoordinates(d.move, n) + " " + FormatCoordinates(e.move, n);
      result = four;
    }
  } else {
    // Five stones: choose the colour.  Staying white means playing the sixth stone.
    const MoveDecision d = Evaluate(b, share(0, 1));
    msg << " white to move, value " << FormatValue(d.value);
    if (d.value >= 0) {
      answer = FormatCoordinates(d.move, n);
      result.Play(d.move);
    } else {
      answer = "SWAP";
    }
  }
  msg << " -> " << answer;
  spdlog::info("engine: {}", msg.str().substr(8));
  *board_ = result;
  history_.clear();
  last_decision_.reset();
  replies.push_back(msg.str());
  replies.push_back(answer);
}

}  // namespace gz
