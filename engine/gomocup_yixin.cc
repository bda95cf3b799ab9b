// GomocupSession's Yixin-Board extensions (gomocup_session.h; what both
// Yixin-Board lines send and parse: docs/engine.md "Yixin-Board").  The
// command table (gomocup_session.cc) names each command's handler.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "common/game/point_text.h"
#include "common/game/renju.h"
#include "engine/gomocup_session.h"
#include "engine/protocol_text.h"
#include "engine/yixin_output.h"

namespace gz {

void GomocupSession::YxShowInfo(const Call& c) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  c.replies.push_back("MESSAGE INFO MAX_THREAD_NUM " + std::to_string(cores));
  // Yixin-Board's hash slider; INFO hash_size is ignored (the tree follows max_memory).
  c.replies.push_back("MESSAGE INFO MAX_HASH_SIZE 20");
}

void GomocupSession::YxBlockReset(const Call&) { blocked_.clear(); }

// Nothing left to do: the reader raised the interrupt when the line arrived,
// so a running search has already answered.
void GomocupSession::YxStop(const Call&) {}

void GomocupSession::YxHashClear(const Call&) { player_->ClearTree(); }

// YXNBEST n; YXSEARCHDEFEND: the five best moves, as YXNBEST 5 (no search of its own).
void GomocupSession::YxNBest(const Call& c) {
  const auto n = c.word == "YXNBEST" ? ParseInteger(c.args) : std::optional<long long>(5);
  const int points = board_ ? board_->num_points() : 0;
  if (!board_) {
    c.replies.push_back("ERROR " + c.word + ": no game started; send START first");
  } else if (!n || *n < 1 || *n > points) {
    c.replies.push_back("ERROR YXNBEST: expected a number of moves 1.." + std::to_string(points) + ", got '" +
                        OneLine(c.args) + "'");
  } else if (board_->terminal()) {
    c.replies.push_back("ERROR " + c.word + ": the game is already over");
  } else {
    Think(c.received, c.replies, /*play=*/false, static_cast<int>(*n));
  }
}

// A draw offer or a resignation from the GUI's console: neither GUI reads an
// answer (nor does Rapfi give one); the game goes on as the GUI says.
void GomocupSession::YxNoted(const Call& c) { spdlog::info("engine: {} noted", c.word); }

void GomocupSession::YxQuery(const Call& c) { Open(Block::kQuery, c.args); }

void GomocupSession::Unsupported(const Call& c) {
  Open(Block::kSkipped, c.args);
  block_error_ = c.word + ": not supported by this engine";  // answered at DONE
}

void GomocupSession::UnsupportedWithLine(const Call& c) {
  c.replies.push_back("ERROR " + c.word + ": not supported by this engine");
  Open(Block::kArgumentLine, c.args);
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

// FORBID XXYY...XXYY.: black's forbidden points, two digits a coordinate.
void GomocupSession::YxShowForbid(const Call& c) {
  if (!board_) {
    c.replies.push_back("ERROR YXSHOWFORBID: no game started; send START first");
    return;
  }
  std::string out = "FORBID ";
  const int n = board_->size();
  if (board_->rule() == Rule::kRenju && board_->to_move() == kBlack && !board_->terminal()) {
    for (int p : ForbiddenPoints(*board_)) out += FormatPointPacked(p, n);
  }
  c.replies.push_back(out + ".");
}

// YXBALANCEONE s / YXBALANCETWO s: the stone (or the two stones, one of each
// side) after which the position is as close to the target as the search can
// tell.  s is a Yixin score for the side that places the stones (0: even;
// the win rate 1 / (1 + e^(-s/600)), yixin_output.h), default 0.  Among the
// moves the search looked at (a fiftieth of its visits at least) the one
// whose win rate is nearest the target; YXBALANCETWO plays the best move
// first and balances the reply on half the time each.  The reply is the GUI's
// move line ("X,Y" or "X1,Y1 X2,Y2"); nothing is played here.
void GomocupSession::YxBalance(const Call& c) {
  const std::string& name = c.word;
  const int stones = name == "YXBALANCEONE" ? 1 : 2;
  const std::string& args = c.args;
  const Time received = c.received;
  std::vector<std::string>& replies = c.replies;
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
  auto balanced = [&](const Board& b, Time deadline, double want) {
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
      replies.push_back(FormatPoint(balanced(*board_, received + budget, target).first, n));
      return;
    }
    const int first = balanced(*board_, received + budget / 2, target).second;
    Board after = *board_;
    after.Play(first);
    if (after.terminal()) {
      replies.push_back("ERROR " + name + ": the best move " + FormatPoint(first, n) + " ends the game");
      return;
    }
    // The reply's side wants the opponent's target.
    const int second = balanced(after, received + budget, 1.0 - target).first;
    replies.push_back(FormatPoint(first, n) + " " + FormatPoint(second, n));
  } catch (const std::exception& e) {
    replies.push_back("ERROR " + name + ": " + OneLine(e.what()));
  }
}

}  // namespace gz
