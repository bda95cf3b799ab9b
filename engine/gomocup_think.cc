// GomocupSession's thinking (gomocup_session.h): the search under the turn's
// clock, the analysis lines, the MESSAGE and the move reply, and the move
// answered where a move is owed and no search can give one.
#include <spdlog/spdlog.h>

#include <sstream>

#include "common/game/point_text.h"
#include "engine/fallback_move.h"
#include "engine/gomocup_session.h"
#include "engine/protocol_text.h"
#include "engine/yixin_output.h"

namespace gz {

void GomocupSession::Think(Time received, std::vector<std::string>& replies, bool play, int lines) {
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
  spdlog::info("engine: move {} ({}), value {}, {} sims, {:.3f} s (slowest simulation {:.1f} ms)",
               FormatPoint(d.move, size), MoveReasonName(d.reason), FormatValue(d.value), d.simulations, d.seconds,
               d.longest_simulation_ms);
  if (play) {
    board.Play(d.move);
    history_.push_back(d.move);
  }
  last_decision_ = d;
  replies.push_back(MoveMessage(d, report, size));
  replies.push_back(FormatPoint(d.move, size));
}

std::string GomocupSession::MoveMessage(const MoveDecision& d, const TreeReport& report, int size) {
  std::ostringstream msg;
  if (d.reason == MoveReason::kWin) {
    msg << "MESSAGE immediate win at " << FormatPoint(d.move, size);
  } else if (d.reason == MoveReason::kBlock) {
    msg << "MESSAGE forced block at " << FormatPoint(d.move, size);
  } else if (report.proof) {
    // A proof is a distance, not a win rate.
    msg << "MESSAGE proven " << (report.proof->win ? "win" : "loss") << " in " << (report.proof->complete ? "" : ">=")
        << report.proof->plies << " plies:";
    for (int m : report.proof->line) msg << " " << FormatPoint(m, size);
    msg << " (sims " << d.simulations << ")";
  } else {
    msg << "MESSAGE value " << FormatValue(d.value) << " sims " << d.simulations << " (+" << d.reused_visits
        << " reused) time " << static_cast<int>(d.seconds * 1000) << "ms best";
    for (auto& [m, v] : d.top) msg << " " << FormatPoint(m, size) << "=" << v;
  }
  return msg.str();
}

void GomocupSession::AnswerFallback(const std::string& why, bool play, std::vector<std::string>& replies) {
  Board& board = *board_;
  const int move = FallbackMove(board, blocked_);
  spdlog::error("engine: {}; answering {} without a search", why,
                move == kNoMove ? "nothing" : FormatPoint(move, board.size()));
  if (move == kNoMove) {  // a full board: no point is left to answer with
    replies.push_back("ERROR " + OneLine(why) + "; no empty point is left");
    return;
  }
  if (play) {
    if (board.IsLegal(move)) board.Play(move);
    else board = PlaceStone(board, move);
    history_.push_back(move);
  }
  last_decision_.reset();
  replies.push_back("MESSAGE " + OneLine(why) + "; playing " + FormatPoint(move, board.size()) +
                    " without a search");
  replies.push_back(FormatPoint(move, board.size()));
}

SearchLimits GomocupSession::LimitsUntil(Time deadline) const {
  SearchLimits limits;
  limits.deadline = deadline;
  limits.max_simulations = max_simulations_;
  limits.tree_memory_bytes = TreeMemoryBudget(tc_);
  limits.stop = stop_;
  limits.interrupt = interrupt_;
  return limits;
}

MoveDecision GomocupSession::Evaluate(const Board& board, Time deadline) {
  searched_ = true;
  player_->ClearTree();  // every swap2 position is a new root
  MoveDecision d = player_->ChooseMove(board, LimitsUntil(deadline));
  player_->ClearTree();
  return d;
}

}  // namespace gz
