// GomocupSession's swap2 (gomocup_session.h): Gomocup's SWAP2BOARD and
// Yixin-Board's yxswap2step1/2/3 ask the same three questions; one decision
// (Swap2Decide) answers them, and each protocol words it its own way.
#include <spdlog/spdlog.h>

#include <cmath>
#include <sstream>

#include "common/game/point_text.h"
#include "engine/gomocup_session.h"
#include "engine/protocol_text.h"

namespace gz {

// Every answer comes from the search's value of a position, `value` being
// the expected result for the side to move there (white after three or five
// stones).
std::optional<GomocupSession::Swap2Decision> GomocupSession::Swap2Decide(
    const std::vector<int>& stones, Time received, const std::string& name,
    std::vector<std::string>& replies) {
  const int n = board_->size();
  const size_t k = stones.size();
  if (k != 0 && k != 3 && k != 5) {
    replies.push_back("ERROR " + name + ": expected 0, 3 or 5 stones, got " + std::to_string(k));
    return std::nullopt;
  }
  if (n < 7) {
    replies.push_back("ERROR " + name + ": the board is too small for swap2 (7x7 at least)");
    return std::nullopt;
  }
  // Stones alternate black, white, black, ... in the order given.
  Board b(n, rule_);
  for (int p : stones) {
    if (!b.IsLegal(p)) {
      replies.push_back("ERROR " + name + ": stone " + FormatPoint(p, n) + " is not a legal move there");
      return std::nullopt;
    }
    b.Play(p);
  }
  if (b.terminal()) {
    replies.push_back("ERROR " + name + ": the position is already decided");
    return std::nullopt;
  }
  const auto budget = ThinkingTime(tc_, b.num_points() - b.move_count());
  const Share share = [&](int part, int parts) { return received + budget * (part + 1) / parts; };
  std::ostringstream msg;
  msg << "MESSAGE swap2:";
  Swap2Decision out;
  out.result = b;
  if (k == 0) Swap2Place3(share, out, msg);
  else if (k == 3) Swap2After3(b, share, out, msg);
  else Swap2After5(b, share, out, msg);
  msg << " -> ";
  if (out.swap) msg << "SWAP";
  for (size_t i = 0; i < out.stones.size(); ++i) msg << (i ? " " : "") << FormatPoint(out.stones[i], n);
  out.message = msg.str();
  spdlog::info("engine: {}", out.message.substr(8));
  return out;
}

// How far from even a position may be for the engine to call it balanced.
constexpr float kSwap2Balanced = 0.15f;

// No stones: place three (black, white, black) so that the position is as
// even as the search can tell; the opponent then chooses the colour.
void GomocupSession::Swap2Place3(const Share& share, Swap2Decision& out, std::ostream& msg) {
  const int n = board_->size();
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
      out.result = t;
      out.stones = candidates[i];
    }
  }
}

// Three stones: we are the second player.  Take black (swap), stay white and
// play the fourth stone, or, when the position is even, add two stones
// (white, black) and hand the choice back.
void GomocupSession::Swap2After3(const Board& b, const Share& share, Swap2Decision& out, std::ostream& msg) {
  const int n = board_->size();
  const MoveDecision d = Evaluate(b, share(0, 2));
  msg << " white to move, value " << FormatValue(d.value);
  if (d.value < -kSwap2Balanced) {
    out.swap = true;
  } else if (d.value > kSwap2Balanced) {
    out.stones = {d.move};
    out.result.Play(d.move);
  } else {
    Board four = b;
    four.Play(d.move);
    const MoveDecision e = Evaluate(four, share(1, 2));
    four.Play(e.move);
    msg << "; after " << FormatPoint(d.move, n) << " " << FormatPoint(e.move, n) << " black's value "
        << FormatValue(e.value);
    out.stones = {d.move, e.move};
    out.result = four;
  }
}

// Five stones: choose the colour.  Staying white means playing the sixth stone.
void GomocupSession::Swap2After5(const Board& b, const Share& share, Swap2Decision& out, std::ostream& msg) {
  const MoveDecision d = Evaluate(b, share(0, 1));
  msg << " white to move, value " << FormatValue(d.value);
  if (d.value >= 0) {
    out.stones = {d.move};
    out.result.Play(d.move);
  } else {
    out.swap = true;
  }
}

void GomocupSession::Swap2Done(Time received, std::vector<std::string>& replies) {
  if (!block_error_.empty()) {
    replies.push_back("ERROR " + block_error_);
    return;
  }
  const std::optional<Swap2Decision> d = Swap2Decide(block_points_, received, "SWAP2BOARD", replies);
  if (!d) return;
  const int n = board_->size();
  std::string answer = d->swap ? "SWAP" : "";
  for (int p : d->stones) answer += (answer.empty() ? "" : " ") + FormatPoint(p, n);
  *board_ = d->result;
  history_.clear();
  last_decision_.reset();
  replies.push_back(d->message);
  replies.push_back(answer);
}

// Yixin-Board's swap2 steps (its main.c): step 1 on an empty board, steps 2
// and 3 after a YXBOARD of 3 and 5 stones.  The replies are the MESSAGE SWAP2
// lines it parses, points as "X Y".  The GUI keeps the position: ours stays as
// it was (the next BOARD sets it).
void GomocupSession::YxSwap2Step(const Call& c) {
  const std::string& name = c.word;
  const int step = name.back() - '0';  // YXSWAP2STEP1, 2 or 3
  const Time received = c.received;
  std::vector<std::string>& replies = c.replies;
  if (!board_) {
    replies.push_back("ERROR " + name + ": no game started; send START first");
    return;
  }
  const std::vector<int> stones = step == 1 ? std::vector<int>{} : history_;
  const size_t expected = step == 1 ? 0 : step == 2 ? 3 : 5;
  if (stones.size() != expected) {
    replies.push_back("ERROR " + name + ": expected a YXBOARD of " + std::to_string(expected) + " stones first, got " +
                      std::to_string(stones.size()));
    return;
  }
  const std::optional<Swap2Decision> d = Swap2Decide(stones, received, name, replies);
  if (!d) return;
  // d->message is logged, not sent: Yixin-Board reads every line that
  // starts with MESSAGE SWAP2 as one of its swap2 answers.
  const int n = board_->size();
  if (step == 1) {
    for (size_t i = 0; i < d->stones.size(); ++i)
      replies.push_back("MESSAGE SWAP2 MOVE" + std::to_string(i + 1) + " " + FormatPointSpaced(d->stones[i], n));
  } else if (step == 2 && d->stones.size() == 2) {
    replies.push_back("MESSAGE SWAP2 MOVE4 " + FormatPointSpaced(d->stones[0], n));
    replies.push_back("MESSAGE SWAP2 MOVE5 " + FormatPointSpaced(d->stones[1], n));
  } else {
    // SWAPk YES: the engine takes black; NO: it stays white and plays the
    // next stone when the GUI sends the position.
    replies.push_back("MESSAGE SWAP2 SWAP" + std::to_string(step - 1) + (d->swap ? " YES" : " NO"));
  }
}

}  // namespace gz
