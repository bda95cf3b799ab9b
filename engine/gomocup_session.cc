#include "engine/gomocup_session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string_view>

#include "common/base/errors.h"
#include "common/game/point_text.h"
#include "common/game/renju.h"
#include "engine/fallback_move.h"
#include "engine/protocol_text.h"

namespace gz {

GomocupSession::GomocupSession(MovePlayer& player, int max_simulations, MovePlayer* backup)
    : main_player_(player),
      backup_(backup),
      player_(&player),
      max_simulations_(max_simulations),
      default_max_simulations_(max_simulations) {}

bool GomocupSession::Handle(const std::string& raw, Time received,
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

const GomocupSession::Command* GomocupSession::FindCommand(const std::string& word) {
  using S = GomocupSession;
  static const Command kCommands[] = {
      // Gomocup (Piskvork): the protocol's commands.
      {"START", &S::Start}, {"RESTART", &S::Restart}, {"RECTSTART", &S::RectStart}, {"BEGIN", &S::Begin},
      {"TURN", &S::Turn}, {"BOARD", &S::OpenBlock}, {"SWAP2BOARD", &S::OpenBlock}, {"TAKEBACK", &S::Takeback},
      {"INFO", &S::Info}, {"ABOUT", &S::About},
      // Yixin-Board's extensions (gomocup_yixin.cc, gomocup_swap2.cc).
      {"YXSHOWINFO", &S::YxShowInfo, false}, {"YXBOARD", &S::OpenBlock}, {"YXBLOCK", &S::OpenBlock},
      {"YXBLOCKUNDO", &S::OpenBlock}, {"YXBLOCKRESET", &S::YxBlockReset, false}, {"YXSTOP", &S::YxStop},
      {"YXHASHCLEAR", &S::YxHashClear, false}, {"YXSHOWFORBID", &S::YxShowForbid, false},
      {"YXNBEST", &S::YxNBest}, {"YXSEARCHDEFEND", &S::YxNBest}, {"YXBALANCEONE", &S::YxBalance},
      {"YXBALANCETWO", &S::YxBalance}, {"YXSWAP2STEP1", &S::YxSwap2Step, false},
      {"YXSWAP2STEP2", &S::YxSwap2Step, false}, {"YXSWAP2STEP3", &S::YxSwap2Step, false},
      {"YXDRAW", &S::YxNoted}, {"YXRESIGN", &S::YxNoted},
      // Yixin's own engine's extensions, which this one does not have: read the
      // way the GUI sends them, so no line of theirs is taken for a command.
      // The database queries Yixin-Board sends after every board change get no
      // answer (silence is "no entry"); the others one ERROR, which both GUIs
      // only log.  yxedittextdatabase "text" arrives without its line break
      // (the first point of its block is glued on): matched by its prefix.
      {"YXQUERYDATABASE*", &S::YxQuery}, {"YXEDITTEXTDATABASE*", &S::Unsupported},
      {"YXBLOCKPATH", &S::Unsupported}, {"YXBLOCKPATHUNDO", &S::Unsupported}, {"YXSOOSORVSTEP2", &S::Unsupported},
      {"YXSOOSORVSTEP3", &S::Unsupported}, {"YXSOOSORVSTEP4", &S::Unsupported}, {"YXSOOSORVSTEP5", &S::Unsupported},
      {"YXSOOSORVSTEP6", &S::Unsupported}, {"YXEDITLABELDATABASE", &S::Unsupported},
      {"YXEDITTVDDATABASE", &S::Unsupported}, {"YXDELETEDATABASEONE", &S::Unsupported},
      {"YXDELETEDATABASEALL", &S::Unsupported}, {"YXSETBESTMOVEDATABASE", &S::Unsupported},
      {"YXCLEARBESTMOVEDATABASE", &S::Unsupported},
      // ... and those that take one argument line (a file name) instead of a block.
      {"YXHASHDUMP", &S::UnsupportedWithLine}, {"YXHASHLOAD", &S::UnsupportedWithLine},
      {"YXSETDATABASE", &S::UnsupportedWithLine}, {"YXDBTOTXT", &S::UnsupportedWithLine},
      {"YXDBTOTXTALL", &S::UnsupportedWithLine}, {"YXTXTTODB", &S::UnsupportedWithLine},
      {"YXLIBTODB", &S::UnsupportedWithLine}, {"YXDBMERGE", &S::UnsupportedWithLine},
      {"YXDBSPLIT", &S::UnsupportedWithLine}, {"YXDBTOPOS", &S::UnsupportedWithLine},
  };
  for (const Command& c : kCommands)
    if (word == c.word) return &c;
  for (const Command& c : kCommands) {
    const std::string_view w(c.word);
    if (w.back() == '*' && std::string_view(word).substr(0, w.size() - 1) == w.substr(0, w.size() - 1)) return &c;
  }
  return nullptr;
}

bool GomocupSession::Dispatch(const std::string& raw, Time received, std::vector<std::string>& replies) {
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
  const Command* found = FindCommand(command);
  if (!found) {
    replies.push_back(command.rfind("YX", 0) == 0 ? "ERROR " + OneLine(command) + ": unknown command (not supported)"
                                                  : "UNKNOWN command '" + OneLine(command) + "' is not supported");
  } else if (!found->takes_args && !args.empty()) {
    replies.push_back("ERROR " + command + ": takes no arguments, got '" + OneLine(args) + "'");
  } else {
    std::string word = found->word;
    if (word.back() == '*') word.pop_back();
    (this->*found->handle)(Call{word, args, received, replies});
  }
  return true;
}

void GomocupSession::Start(const Call& c) { StartGame(c.args, c.replies); }

void GomocupSession::Restart(const Call& c) {
  if (!board_) {
    c.replies.push_back("ERROR no game to restart; send START first");
    return;
  }
  NewGame(board_->size());
  c.replies.push_back("OK");
}

void GomocupSession::RectStart(const Call& c) {
  const std::optional<PointXY> wh = ParseXY(c.args);  // "W,H"
  if (wh && wh->x == wh->y) StartGame(std::to_string(wh->x), c.replies);  // a square is a START
  else c.replies.push_back("ERROR rectangular boards are not supported; use START with a square size");
}

void GomocupSession::Begin(const Call& c) {
  if (!board_) c.replies.push_back("ERROR no game started; send START first");
  else if (board_->move_count() != 0) c.replies.push_back("ERROR BEGIN needs an empty board (use BOARD for a position)");
  else Think(c.received, c.replies);
}

void GomocupSession::About(const Call& c) {
  std::ostringstream os;
  os << "name=\"" << kEngineName << "\", version=\"" << kEngineVersion << "\", author=\"" << kEngineAuthor
     << "\", country=\"" << kEngineCountry << "\"";
  if (*kEngineWww != '\0') os << ", www=\"" << kEngineWww << "\"";
  c.replies.push_back(os.str());
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

void GomocupSession::StartGame(const std::string& args, std::vector<std::string>& replies) {
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

int GomocupSession::PointOfCommand(const Call& c) {
  if (!board_) {
    c.replies.push_back("ERROR no game started; send START first");
    return kNoMove;
  }
  std::string error;
  const std::optional<int> move = ParsePoint(c.args, board_->size(), &error);
  if (!move) c.replies.push_back("ERROR " + c.word + ": " + error);
  return move.value_or(kNoMove);
}

void GomocupSession::Turn(const Call& c) {
  const int move = PointOfCommand(c);
  if (move == kNoMove) return;
  std::vector<std::string>& replies = c.replies;
  if (board_->at(move) != kEmpty) {
    replies.push_back("ERROR TURN: point " + FormatPoint(move, board_->size()) + " is occupied");
    return;
  }
  if (board_->terminal()) {
    // Our reading of the rule ended the game and the manager plays on (it
    // judges otherwise): take its stone as given, and a move is owed.
    *board_ = PlaceStone(*board_, move);
    history_.push_back(move);
    Think(c.received, replies);
    return;
  }
  if (!board_->IsLegal(move)) {  // renju: black's forbidden point
    replies.push_back("ERROR TURN: point " + FormatPoint(move, board_->size()) + " is " +
                      (board_->rule() == Rule::kRenju && board_->to_move() == kBlack
                           ? std::string("forbidden for black under renju: ") +
                                 ForbiddenReasonName(ForbiddenReasonForBlack(*board_, move))
                           : std::string("not a legal move")));
    return;
  }
  board_->Play(move);
  history_.push_back(move);
  Think(c.received, replies);  // a move is owed even when our reading of the rule ends the game here
}

void GomocupSession::Takeback(const Call& c) {
  const int move = PointOfCommand(c);
  if (move == kNoMove) return;
  std::vector<std::string>& replies = c.replies;
  if (board_->at(move) == kEmpty) {
    replies.push_back("ERROR TAKEBACK: there is no stone at " + FormatPoint(move, board_->size()));
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

void GomocupSession::Info(const Call& c) {
  const std::string& args = c.args;
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

}  // namespace gz
