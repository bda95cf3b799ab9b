#include "tools/gomocup_protocol.h"

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>

#include "common/base/child_process.h"
#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/point_text.h"

namespace gz {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long START may take: wine's first start in a fresh prefix and the net's
// load (common/match/engine_player.h's bound).
constexpr milliseconds kStartTimeout = kEngineStartTimeout;

// One brain process and the checks of its replies.
class Session {
 public:
  Session(const EngineCommand& engine, const ProtocolCheckOptions& options, std::ostream& log)
      : options_(options), log_(log), board_(options.size, Rule::kFreestyle) {
    std::vector<std::string> argv = engine.argv;
    if (!engine.dir.empty()) {  // as EngineMatchPlayer: a shell enters the folder and execs the brain
      argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", engine.dir};
      argv.insert(argv.end(), engine.argv.begin(), engine.argv.end());
    }
    ChildOptions child;
    child.stderr_path = options.stderr_path;
    child.die_with_parent = true;
    process_ = std::make_unique<ChildProcess>(argv, child);
  }

  const std::vector<std::string>& failures() const { return failures_; }
  Board& board() { return board_; }

  void Fail(const std::string& step, const std::string& why) {
    failures_.push_back(step + ": " + why);
    log_ << "  FAIL " << step << ": " << why << "\n";
  }

  void Ok(const std::string& step, const std::string& detail) { log_ << "  ok   " << step << ": " << detail << "\n"; }

  void Send(const std::string& text) { process_->WriteLine(text); }

  // The next reply that is not MESSAGE / DEBUG, or nullopt after `timeout`.
  std::optional<std::string> Reply(milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      auto line = process_->ReadLine(std::max(left, milliseconds(0)));
      if (!line) return std::nullopt;
      if (line->rfind("MESSAGE", 0) == 0 || line->rfind("DEBUG", 0) == 0) continue;
      return line;
    }
  }

  // `command` must be answered OK.
  void ExpectOk(const std::string& step, const std::string& command, milliseconds timeout = milliseconds(5000)) {
    Send(command);
    auto r = Reply(timeout);
    if (!r) return Fail(step, "no answer to '" + command + "'");
    if (*r != "OK") return Fail(step, "'" + command + "' answered '" + *r + "', expected OK");
    log_ << "  ok   " << step << "\n";
  }

  // Parses "X,Y" points on the board (nullopt: malformed or off the board).
  std::optional<int> ParsePoint(const std::string& text) const {
    std::string error;
    return gz::ParsePoint(text, board_.size(), &error);  // common/game/point_text.h
  }

  // Sends `command`, expects a legal move within the turn limit plus grace,
  // plays it on the board.  kNoMove after a failure.
  int ExpectMove(const std::string& step, const std::string& command) {
    const auto start = Clock::now();
    Send(command);
    const milliseconds allowed(options_.turn_ms + options_.grace_ms);
    auto r = Reply(allowed);
    const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
    if (!r) {
      Fail(step, "no move within " + std::to_string(allowed.count()) + " ms" +
                     (process_->eof() ? " (the process ended)" : ""));
      return kNoMove;
    }
    auto point = ParsePoint(*r);
    if (!point || !board_.IsLegal(*point)) {
      Fail(step, "reply '" + *r + "' is not a legal move on the " + std::string(RuleName(board_.rule())) + " board");
      return kNoMove;
    }
    Play(*point);
    log_ << "  ok   " << step << ": " << *r << " in " << took << " ms\n";
    return *point;
  }

  // The first legal point from the centre outwards, for our own moves.
  int OurMove() const {
    const int n = board_.size(), c = n / 2;
    for (int r = 0; r < n; ++r)
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          const int x = c + dx, y = c + dy;
          if (x >= 0 && y >= 0 && x < n && y < n && board_.IsLegal(y * n + x)) return y * n + x;
        }
    return kNoMove;
  }

  // Plays `point` on the board and remembers it (Board keeps no history).
  void Play(int point) {
    board_.Play(point);
    history_.push_back(point);
  }
  // Takes the last stone back: its point.
  int TakeBack() {
    const int point = history_.back();
    history_.pop_back();
    board_.Remove(point);
    return point;
  }

  // Our move as TURN, answered by the brain's move.
  void TurnAndReply(const std::string& step) {
    const int ours = OurMove();
    Play(ours);
    ExpectMove(step, "TURN " + FormatPoint(ours, board_.size()));
  }

  void NewBoard(Rule rule) {
    board_ = Board(options_.size, rule);
    history_.clear();
  }

  // END: the process must exit with status 0.
  void End() {
    Send("END");
    process_->CloseStdin();
    auto code = process_->WaitExit(milliseconds(10000));
    if (!code) return Fail("END", "the process did not exit within 10 s");
    if (*code != 0) return Fail("END", "the process exited with status " + std::to_string(*code));
    log_ << "  ok   END: exit status 0\n";
  }

 private:
  ProtocolCheckOptions options_;
  std::ostream& log_;
  std::unique_ptr<ChildProcess> process_;
  Board board_;
  std::vector<int> history_;  // board_'s stones in the order played
  std::vector<std::string> failures_;
};

// SWAP2BOARD with 0 stones: three points, legal one after the other; then
// with those 3: SWAP, or one or two legal points.
void CheckSwap2(Session& s, int size) {
  s.NewBoard(Rule::kFreestyle);
  s.Send("SWAP2BOARD");
  s.Send("DONE");
  auto r = s.Reply(milliseconds(20000));
  if (!r) return s.Fail("SWAP2BOARD (0 stones)", "no answer");
  std::istringstream words(*r);
  std::vector<int> stones;
  for (std::string w; words >> w;) {
    auto p = s.ParsePoint(w);
    if (!p || !s.board().IsLegal(*p)) return s.Fail("SWAP2BOARD (0 stones)", "answer '" + *r + "' is not 3 legal points");
    s.Play(*p);
    stones.push_back(*p);
  }
  if (stones.size() != 3) return s.Fail("SWAP2BOARD (0 stones)", "answer '" + *r + "' is not 3 points");
  s.Ok("SWAP2BOARD (0 stones)", *r);
  s.Send("RESTART");
  if (auto ok = s.Reply(milliseconds(5000)); !ok || *ok != "OK") return s.Fail("RESTART", "no OK before SWAP2BOARD");
  s.Send("SWAP2BOARD");
  for (int p : stones) s.Send(FormatPoint(p, size));
  s.Send("DONE");
  r = s.Reply(milliseconds(20000));
  if (!r) return s.Fail("SWAP2BOARD (3 stones)", "no answer");
  if (*r != "SWAP") {
    std::istringstream more(*r);
    int count = 0;
    for (std::string w; more >> w; ++count) {
      auto p = s.ParsePoint(w);
      if (!p || !s.board().IsLegal(*p)) return s.Fail("SWAP2BOARD (3 stones)", "answer '" + *r + "' is not legal");
      s.Play(*p);
    }
    if (count < 1 || count > 2)
      return s.Fail("SWAP2BOARD (3 stones)", "answer '" + *r + "' has " + std::to_string(count) + " points");
  }
  s.Ok("SWAP2BOARD (3 stones)", *r);
}

}  // namespace

std::vector<std::string> RunProtocolChecks(const EngineCommand& engine, const ProtocolCheckOptions& options,
                                           std::ostream& log) {
  const int n = options.size;
  log << "protocol checks of " << engine.name << "\n";
  Session s(engine, options, log);
  try {
    s.ExpectOk("START", "START " + std::to_string(n), kStartTimeout);
    for (const std::string& info :
         {"INFO timeout_turn " + std::to_string(options.turn_ms), std::string("INFO timeout_match 180000"),
          std::string("INFO time_left 180000"), "INFO max_memory " + std::to_string(options.max_memory),
          std::string("INFO game_type 1"), std::string("INFO rule 0"), std::string("INFO folder C:\\tmp")})
      s.Send(info);
    s.Send("ABOUT");
    if (auto about = s.Reply(milliseconds(5000)); !about || about->rfind("name=", 0) != 0)
      s.Fail("ABOUT", "no name=\"...\" line");
    s.ExpectMove("BEGIN", "BEGIN");
    s.TurnAndReply("TURN");
    // TAKEBACK the brain's last move, then ours: the board is back to one stone.
    s.ExpectOk("TAKEBACK (its move)", "TAKEBACK " + FormatPoint(s.TakeBack(), n));
    s.ExpectOk("TAKEBACK (our move)", "TAKEBACK " + FormatPoint(s.TakeBack(), n));
    s.TurnAndReply("TURN after TAKEBACK");
    s.ExpectOk("RESTART", "RESTART");
    // BOARD: four stones, black (the brain, field 1) to move.
    s.NewBoard(Rule::kFreestyle);
    std::string block = "BOARD";
    for (int i = 0; i < 4; ++i) {
      const int p = s.OurMove();
      s.Play(p);
      block += "\n" + FormatPoint(p, n) + "," + (i % 2 == 0 ? "1" : "2");
    }
    s.ExpectMove("BOARD", block + "\nDONE");
    s.ExpectOk("RESTART before SWAP2BOARD", "RESTART");
    CheckSwap2(s, n);
    // Renju: the brain is black; its moves must avoid black's forbidden points.
    s.Send("INFO rule 4");
    s.ExpectOk("RESTART (renju)", "RESTART");
    s.NewBoard(Rule::kRenju);
    s.ExpectMove("BEGIN (renju)", "BEGIN");
    for (int i = 0; i < 3 && !s.board().terminal(); ++i) s.TurnAndReply("TURN (renju)");
    s.End();
  } catch (const GomokuError& e) {
    s.Fail("session", e.what());
  }
  return s.failures();
}

}  // namespace gz
