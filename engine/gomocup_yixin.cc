// GomocupSession's Yixin-Board extensions (gomocup_session.h; what both
// Yixin-Board lines send and parse: docs/engine.md "Yixin-Board").
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "common/game/renju.h"
#include "engine/gomocup_session.h"
#include "engine/protocol_text.h"
#include "engine/yixin_output.h"

namespace gz {
namespace {

bool OneOf(const std::string& word, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (word == w) return true;
  return false;
}

// Extensions of Yixin's own engine that this one does not have.  Each is read
// the way the GUI sends it (a block up to DONE, or one argument line) so no
// line of it is taken for a command, and answered with one ERROR line, which
// both GUIs only log.  The database queries Yixin-Board sends after every
// board change get no answer at all: silence is "no entry".
bool IsUnsupportedBlock(const std::string& c) {
  return OneOf(c, {"YXBLOCKPATH", "YXBLOCKPATHUNDO", "YXSOOSORVSTEP2", "YXSOOSORVSTEP3", "YXSOOSORVSTEP4",
                   "YXSOOSORVSTEP5", "YXSOOSORVSTEP6", "YXEDITLABELDATABASE", "YXEDITTVDDATABASE",
                   "YXEDITTEXTDATABASE", "YXDELETEDATABASEONE", "YXDELETEDATABASEALL", "YXSETBESTMOVEDATABASE",
                   "YXCLEARBESTMOVEDATABASE"});
}
bool IsDatabaseQuery(const std::string& c) { return c.rfind("YXQUERYDATABASE", 0) == 0; }
bool IsUnsupportedWithArgumentLine(const std::string& c) {
  return OneOf(c, {"YXHASHDUMP", "YXHASHLOAD", "YXSETDATABASE", "YXDBTOTXT", "YXDBTOTXTALL", "YXTXTTODB",
                   "YXLIBTODB", "YXDBMERGE", "YXDBSPLIT", "YXDBTOPOS"});
}

}  // namespace

void GomocupSession::Yixin(const std::string& command, const std::string& args,
                           std::chrono::steady_clock::time_point received, std::vector<std::string>& replies) {
  auto no_args = [&] {
    if (args.empty()) return true;
    replies.push_back("ERROR " + command + ": takes no arguments, got '" + OneLine(args) + "'");
    return false;
  };
  // yxedittextdatabase "text" arrives without its line break: the first
  // point of its block is glued on, so the word is matched by its prefix.
  const std::string word = command.rfind("YXEDITTEXTDATABASE", 0) == 0 ? "YXEDITTEXTDATABASE" : command;
  if (word == "YXSHOWINFO") {
    if (!no_args()) return;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    replies.push_back("MESSAGE INFO MAX_THREAD_NUM " + std::to_string(cores));
    // Yixin-Board's hash slider; INFO hash_size is ignored (the tree follows max_memory).
    replies.push_back("MESSAGE INFO MAX_HASH_SIZE 20");
  } else if (word == "YXBOARD") {
    OpenBlock(Block::kYxBoard, word, args);
  } else if (word == "YXBLOCK" || word == "YXBLOCKUNDO") {
    OpenBlock(word == "YXBLOCK" ? Block::kYxBlock : Block::kYxBlockUndo, word, args);
  } else if (word == "YXBLOCKRESET") {
    if (no_args()) blocked_.clear();
  } else if (word == "YXSTOP") {
    // Nothing left to do: the reader raised the interrupt when the line
    // arrived, so a running search has already answered.
  } else if (word == "YXHASHCLEAR") {
    if (no_args()) player_->ClearTree();
  } else if (word == "YXSHOWFORBID") {
    if (!no_args()) return;
    if (!board_) replies.push_back("ERROR YXSHOWFORBID: no game started; send START first");
    else ShowForbid(replies);
  } else if (word == "YXNBEST" || word == "YXSEARCHDEFEND") {
    // YXSEARCHDEFEND: the five best moves, as YXNBEST 5 (no search of its own).
    const auto n = word == "YXNBEST" ? ParseInteger(args) : std::optional<long long>(5);
    const int points = board_ ? board_->num_points() : 0;
    if (!board_) {
      replies.push_back("ERROR " + word + ": no game started; send START first");
    } else if (!n || *n < 1 || *n > points) {
      replies.push_back("ERROR YXNBEST: expected a number of moves 1.." + std::to_string(points) + ", got '" +
                        OneLine(args) + "'");
    } else if (board_->terminal()) {
      replies.push_back("ERROR " + word + ": the game is already over");
    } else {
      Think(received, replies, /*play=*/false, static_cast<int>(*n));
    }
  } else if (word == "YXBALANCEONE" || word == "YXBALANCETWO") {
    YxBalance(word == "YXBALANCEONE" ? 1 : 2, args, received, replies);
  } else if (word == "YXSWAP2STEP1" || word == "YXSWAP2STEP2" || word == "YXSWAP2STEP3") {
    if (no_args()) YxSwap2Step(word.back() - '0', received, replies);
  } else if (word == "YXDRAW" || word == "YXRESIGN") {
    // A draw offer or a resignation from the GUI's console: neither GUI reads
    // an answer (nor does Rapfi give one); the game goes on as the GUI says.
    spdlog::info("engine: {} noted", word);
  } else if (IsDatabaseQuery(word)) {
    OpenBlock(Block::kSkipped, word, args);
  } else if (IsUnsupportedBlock(word)) {
    OpenBlock(Block::kSkipped, word, args);
  } else if (IsUnsupportedWithArgumentLine(word)) {
    replies.push_back("ERROR " + word + ": not supported by this engine");
    OpenBlock(Block::kArgumentLine, word, args);
  } else {
    replies.push_back("ERROR " + OneLine(word) + ": unknown command (not supported)");
  }
}

void GomocupSession::SkippedDone(std::vector<std::string>& replies) {
  if (!IsDatabaseQuery(block_name_)) replies.push_back("ERROR " + block_name_ + ": not supported by this engine");
}

bool GomocupSession::YixinInfo(const std::string& key, const std::string& value) {
  // Keys Yixin-Board sends that have no counterpart in an MCTS engine.
  static const char* kIgnored[] = {"hash_size",      "max_depth", "pondering", "caution_factor", "thread_split_depth",
                                   "nbest_sym",      "nbestsym",  "checkmate", "usedatabase",    "time_increment",
                                   "database_readonly", "vcthread", "start_depth"};
  const bool mapped = key == "thread_num" || key == "max_node" || key == "show_detail";
  if (!mapped && std::find(std::begin(kIgnored), std::end(kIgnored), key) == std::end(kIgnored)) return false;
  if (!mapped) {
    spdlog::info("engine: INFO {} {} ignored (no such setting in this engine; docs/engine.md \"Yixin-Board\")", key,
                 value);
    return true;
  }
  const auto v = ParseInteger(value);
  if (!v) {
    spdlog::warn("engine: ignoring INFO {} with a non-numeric value '{}'", key, value);
    return true;
  }
  if (key == "thread_num") {
    player_->set_threads(static_cast<int>(std::clamp<long long>(*v, 1, 256)));
    spdlog::info("engine: INFO thread_num: {} search threads", player_->threads());
  } else if (key == "max_node") {
    // Yixin's node cap is our simulation cap; <= 0 means none (the configured one).
    max_simulations_ = *v > 0 ? static_cast<int>(std::min<long long>(*v, 1 << 30)) : default_max_simulations_;
    spdlog::info("engine: INFO max_node: at most {} simulations a move", max_simulations_);
  } else {
    // Bits as Rapfi reads them: 1 the MESSAGE REALTIME marks, 2 the INFO
    // blocks (yixin_output.h).  The original Yixin-Board sends 1 and takes an
    // INFO line for a move; dhbloo's sends 3.
    show_detail_ = static_cast<int>(*v) & (kShowRealtime | kShowDetail);
  }
  return true;
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

void GomocupSession::YxBlockDone(bool add, std::vector<std::string>& replies) {
  if (!board_error_.empty()) {
    replies.push_back("ERROR " + board_error_);
    return;
  }
  for (int p : block_points_) {
    const auto at = std::find(blocked_.begin(), blocked_.end(), p);
    if (add && at == blocked_.end()) blocked_.push_back(p);
    if (!add && at != blocked_.end()) blocked_.erase(at);
  }
}

// YXBALANCEONE s / YXBALANCETWO s: the stone (or the two stones, one of each
// side) after which the position is as close to the target as the search can
// tell.  s is a Yixin score for the side that places the stones (0: even;
// the win rate 1 / (1 + e^(-s/600)), yixin_output.h), default 0.  Among the
// moves the search looked at (a fiftieth of its visits at least) the one
// whose win rate is nearest the target; YXBALANCETWO plays the best move
// first and balances the reply on half the time each.  The reply is the GUI's
// move line ("X,Y" or "X1,Y1 X2,Y2"); nothing is played here.
void GomocupSession::YxBalance(int stones, const std::string& args, std::chrono::steady_clock::time_point received,
                               std::vector<std::string>& replies) {
  const std::string name = stones == 1 ? "YXBALANCEONE" : "YXBALANCETWO";
  const auto s = args.empty() ? std::optional<long long>(0) : ParseInteger(args);
  if (!s) {
    replies.push_back("ERROR " + name + ": expected a score, got '" + OneLine(args) + "'");
    return;
  }
  if (!board_ || board_->terminal()) {
    replies.push_back("ERROR " + name + (board_ ? ": the game is already over" : ": no game started; send START first"));
    return;
  }
  const double target = 1.0 / (1.0 + std::exp(-static_cast<double>(*s) / 600.0));
  const auto budget = ThinkingTime(tc_, board_->num_points() - board_->move_count());
  searched_ = true;
  auto balanced = [&](const Board& b, std::chrono::steady_clock::time_point deadline, double want) {
    SearchLimits limits = LimitsUntil(deadline);
    limits.excluded = blocked_;
    const MoveDecision d = player_->ChooseMove(b, limits);
    const TreeReport r = player_->Report();
    int best = d.move;
    double gap = 2.0;
    const int min_visits = std::max(1, r.root_visits / 50);
    for (const MoveReport& m : r.moves)
      if (m.visits >= min_visits && std::fabs(m.winrate - want) < gap) {
        gap = std::fabs(m.winrate - want);
        best = m.move;
      }
    return std::make_pair(best, d.move);
  };
  const int n = board_->size();
  try {
    if (stones == 1) {
      replies.push_back(FormatCoordinates(balanced(*board_, received + budget, target).first, n));
      return;
    }
    const int first = balanced(*board_, received + budget / 2, target).second;
    Board after = *board_;
    after.Play(first);
    if (after.terminal()) {
      replies.push_back("ERROR " + name + ": the best move " + FormatCoordinates(first, n) + " ends the game");
      return;
    }
    // The reply's side wants the opponent's target.
    const int second = balanced(after, received + budget, 1.0 - target).first;
    replies.push_back(FormatCoordinates(first, n) + " " + FormatCoordinates(second, n));
  } catch (const std::exception& e) {
    replies.push_back("ERROR " + name + ": " + OneLine(e.what()));
  }
}

}  // namespace gz
