// A scripted Gomocup manager session against the real pbrain-gomoku-zero
// binary (pure-MCTS baseline) through pipes, plus the real `play` binary.
//
// Every reply is read with a 5 s timeout: with INFO timeout_turn 1000 a reply
// that does not arrive in time fails the test.  Only the first reply of a
// process gets 60 s (starting a process that links LibTorch can take seconds
// on a loaded machine; that is not a turn).  Reply times are measured and
// printed, not asserted.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iterator>
#include <random>
#include <sstream>
#include <regex>
#include <set>
#include <thread>

#include "common/game/board.h"
#include "common/base/fileio.h"
#include "common/base/child_process.h"
#include "common/net/net_api.h"
#include "engine/gomocup_session.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/session_test_util.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"
#include "tests/support/text_checks.h"

using namespace gz;
using namespace gz::testing;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kPlay = BinPath("play");

// Drives one engine process like a manager and keeps the game state so every
// move reply can be checked for legality.
class Manager {
 public:
  explicit Manager(std::vector<std::string> extra = {})
      : engine_(Args(extra), PipedTestChild(TestTmpPath("engine_manager.stderr"))) {}

  static std::vector<std::string> Args(const std::vector<std::string>& extra) {
    std::vector<std::string> a{EngineBinary(), "--settings", DefaultsOnlySettings()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }

  void Send(const std::string& line, const std::string& terminator = "\r\n") {
    engine_.Write(line + terminator);
    sent_at_ = Clock::now();
  }

  // The next reply that is not a MESSAGE (MESSAGE lines are checked for form).
  std::string Reply() {
    for (;;) {
      auto line = engine_.ReadLine(started_ ? 5000ms : 60000ms);
      started_ = true;
      INFO("no reply in time (eof=" << engine_.eof() << ")");
      REQUIRE(line.has_value());
      if (line->starts_with("MESSAGE")) {
        REQUIRE((*line == "MESSAGE" || line->starts_with("MESSAGE ")));
        continue;
      }
      last_reply_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - sent_at_).count();
      return *line;
    }
  }

  // Expects a move: "X,Y" on the board, on an empty point.  Plays it.
  int Move() {
    std::string r = Reply();
    INFO("reply: " << r);
    REQUIRE(std::regex_match(r, std::regex(R"(\d+,\d+)")));
    auto xy = ParseCoordinates(r);
    REQUIRE(xy.has_value());
    const int n = board_->size();
    REQUIRE(xy->first < n);
    REQUIRE(xy->second < n);
    const int m = xy->second * n + xy->first;
    REQUIRE(board_->IsLegal(m));
    board_->Play(m);
    return m;
  }

  // Sends `line`; the reply must be an ERROR.
  void ExpectError(const std::string& line) {
    Send(line);
    INFO("sent: " << line);
    REQUIRE(Reply().starts_with("ERROR"));
  }

  // Sends a BOARD block: the `stones` ("x,y,field") and DONE.
  void SendBoard(const std::vector<std::string>& stones) {
    Send("BOARD");
    for (const std::string& stone : stones) Send(stone);
    Send("DONE");
  }

  void ExpectNoReplyPending() {
    // Protocol commands without an answer (INFO) must not produce output:
    // ABOUT is answered next, so any stray line would show up instead.
    Send("ABOUT");
    REQUIRE(Reply().starts_with("name=\"gomoku-zero\""));
  }

  void NewBoard(int size, Rule rule = Rule::kFreestyle) { board_.emplace(size, rule); }
  Board& board() { return *board_; }
  ChildProcess& process() { return engine_; }
  double last_reply_ms() const { return last_reply_ms_; }

 private:
  ChildProcess engine_;
  std::optional<Board> board_;
  Clock::time_point sent_at_ = Clock::now();
  double last_reply_ms_ = 0;
  bool started_ = false;  // a first reply arrived
};

std::string Xy(int move, int size) { return FormatCoordinates(move, size); }

// Sends one CRLF-terminated line to a folder's brain; its next non-MESSAGE reply.
std::string FolderBrainReply(ChildProcess& brain, const std::string& line) {
  brain.Write(line + "\r\n");
  for (;;) {
    auto r = brain.ReadLine(60000ms);
    REQUIRE(r.has_value());
    if (!r->starts_with("MESSAGE")) return *r;
  }
}

}  // namespace

TEST_CASE("scripted manager session through every mandatory command") {
  Manager m;
  m.Send("ABOUT");
  // The binary answers the configured version (CMake hands it to the test).
  const std::string about = m.Reply();
  REQUIRE(std::regex_match(about, std::regex(R"(name="gomoku-zero", version="[^"]+", author="[^"]+", country="[^"]+".*)")));
  CHECK(about.find(std::string("version=\"") + GZ_EXPECTED_VERSION + "\"") != std::string::npos);

  // Limits; INFO never answers (checked by the ABOUT that follows).
  m.Send("INFO timeout_turn 1000");
  m.Send("INFO timeout_match 0", "\n");  // LF only
  m.Send("INFO max_memory 83886080", "\r");  // CR only
  m.Send("INFO time_left 2147483647");
  m.Send("INFO game_type 1");
  m.Send("INFO rule 0");
  m.Send("INFO folder /tmp");
  m.Send("INFO some_future_key 42");
  m.ExpectNoReplyPending();

  m.ExpectError("START 4");
  m.ExpectError("START 30");
  m.Send("START 15");
  REQUIRE(m.Reply() == "OK");
  m.NewBoard(15);

  m.Send("BEGIN");
  int own1 = m.Move();
  WARN("BEGIN answered in " << m.last_reply_ms() << " ms (timeout_turn 1000)");
  int opp1 = m.board().at(7, 7) == kEmpty ? 7 * 15 + 7 : 7 * 15 + 8;
  m.board().Play(opp1);
  m.Send("TURN " + Xy(opp1, 15));
  int own2 = m.Move();
  WARN("TURN answered in " << m.last_reply_ms() << " ms (timeout_turn 1000)");

  SECTION("error paths leave the engine usable") {
    m.ExpectError("TURN " + Xy(own1, 15));  // occupied
    m.ExpectError("TURN 15,3");  // out of range
    m.ExpectError("TURN 3,-1");
    m.ExpectError("TURN 7");  // bad syntax
    m.ExpectError("TURN seven,eight");
    m.Send("FROBNICATE 1 2");
    REQUIRE(m.Reply().starts_with("UNKNOWN"));
    m.ExpectError("RECTSTART 15,20");
    // Still playing the same game.
    int opp2 = m.board().LegalMoves().front();
    m.board().Play(opp2);
    m.Send("TURN " + Xy(opp2, 15));
    m.Move();
  }

  SECTION("TAKEBACK undoes moves one by one") {
    m.Send("TAKEBACK " + Xy(own2, 15));
    REQUIRE(m.Reply() == "OK");
    m.Send("TAKEBACK " + Xy(opp1, 15));
    REQUIRE(m.Reply() == "OK");
    m.ExpectError("TAKEBACK " + Xy(opp1, 15));  // already empty
    // Replay a different reply in the position after our first move.
    m.NewBoard(15);
    m.board().Play(own1);
    int opp = m.board().at(0, 0) == kEmpty ? 0 : 1;
    m.board().Play(opp);
    m.Send("TURN " + Xy(opp, 15));
    m.Move();
  }

  SECTION("BOARD: take the win, block the four, reject nonsense") {
    m.Send("RESTART");
    REQUIRE(m.Reply() == "OK");
    // Our four on row 5 (x = 3..6), equal counts: we are black and must win.
    m.SendBoard({"3,5,1", "0,0,2", "4,5,1", "2,9,2", "5,5,1", "10,12,2", "6,5,1", "14,14,2"});
    std::string win = m.Reply();
    REQUIRE((win == "2,5" || win == "7,5"));

    m.Send("RESTART");
    REQUIRE(m.Reply() == "OK");
    // Opponent's four on row 8 (x = 3..6), its left end taken by us: we are
    // white (one stone fewer) with no four of our own, and must block 7,8.
    m.SendBoard({"3,8,2", "2,8,1", "4,8,2", "10,2,1", "5,8,2", "12,12,1", "6,8,2"});
    REQUIRE(m.Reply() == "7,8");

    m.Send("RESTART");
    REQUIRE(m.Reply() == "OK");
    // Two own stones, no opponent stone: counts no side to move fits (a
    // continuous game, a GUI's odd position).  A move is owed: one comes.
    m.SendBoard({"1,1,1", "2,2,1"});
    const std::string odd = m.Reply();
    INFO("reply: " << odd);
    REQUIRE(PointOnBoard(odd, 15).has_value());
    CHECK(odd != "1,1");
    CHECK(odd != "2,2");
    m.Send("RESTART");
    REQUIRE(m.Reply() == "OK");
    m.SendBoard({"1,1,7"});  // no such field
    REQUIRE(m.Reply().starts_with("ERROR"));
    m.SendBoard({"20,1,2"});  // off the board
    REQUIRE(m.Reply().starts_with("ERROR"));
    // Usable afterwards.
    m.Send("RESTART");
    REQUIRE(m.Reply() == "OK");
    m.NewBoard(15);
    m.Send("BEGIN");
    m.Move();
  }

  SECTION("a second game on another size after START") {
    m.Send("START 9");
    REQUIRE(m.Reply() == "OK");
    m.NewBoard(9);
    m.Send("INFO timeout_turn 300");
    int opp = 4 * 9 + 4;
    m.board().Play(opp);
    m.Send("TURN 4,4");
    m.Move();
  }

  // END: the process exits promptly with status 0.
  m.Send("END");
  auto code = m.process().WaitExit(10000ms);
  REQUIRE(code.has_value());
  REQUIRE(*code == 0);
}

namespace {
std::vector<std::string> Words(const std::string& s) {
  std::istringstream is(s);
  return {std::istream_iterator<std::string>(is), std::istream_iterator<std::string>()};
}
// The point "x,y" names; it must lie on the n x n board.
int PointOf(const std::string& xy, int n) {
  INFO("coordinates: " << xy);
  const auto point = gz::testing::PointOnBoard(xy, n);
  REQUIRE(point.has_value());
  return *point;
}
}  // namespace

// A manager script plays one whole game per rule against the real
// engine: a swap2 opening (SWAP2BOARD with 0, 3 and, when the engine adds two
// stones, 5 stones), then a continuous-game BOARD (INFO rule bit 2; one
// field-3 point, nobody's), then TURN to the end.  The script referees every
// reply with our rules (a renju black reply on a forbidden point fails) and
// plays its own moves at random among the legal ones.
TEST_CASE("manager script: a full game of each rule with a swap2 opening and a continuous-game BOARD") {
  struct Case {
    Rule rule;
    int info_rule;  // Gomocup bits: 1 exactly five, 2 continuous, 4 renju
  };
  const int n = 9;
  std::mt19937 rng(17);
  for (const Case c : {Case{Rule::kFreestyle, 2}, Case{Rule::kStandard, 3}, Case{Rule::kRenju, 6}}) {
    INFO("rule " << RuleName(c.rule));
    Manager m({"--max-simulations", "300"});
    m.Send("INFO timeout_turn 300");
    m.Send("INFO rule " + std::to_string(c.info_rule));
    m.Send("START " + std::to_string(n));
    REQUIRE(m.Reply() == "OK");
    m.NewBoard(n, c.rule);
    Board& b = m.board();
    std::vector<int> order;  // every stone in the order placed
    auto place = [&](int p) {
      INFO("stone " << Xy(p, n) << " on\n" << b.ToString());
      REQUIRE(b.IsLegal(p));
      b.Play(p);
      order.push_back(p);
    };
    // Swap2 stage 1: the engine places black, white, black.
    m.Send("SWAP2BOARD");
    m.Send("DONE");
    const std::vector<std::string> three = Words(m.Reply());
    REQUIRE(three.size() == 3);
    for (auto& w : three) place(PointOf(w, n));
    // Stage 2: asked again as the second player.
    m.Send("SWAP2BOARD");
    for (int p : order) m.Send(Xy(p, n));
    m.Send("DONE");
    const std::string second = m.Reply();
    int8_t engine = kBlack;
    if (second == "SWAP") {
      engine = kBlack;  // the engine takes black; white (the script) is to move
    } else {
      const std::vector<std::string> w = Words(second);
      REQUIRE((w.size() == 1 || w.size() == 2));
      for (auto& x : w) place(PointOf(x, n));
      if (w.size() == 1) {
        engine = kWhite;  // it stayed white and played the fourth stone
      } else {
        // Stage 3: five stones, the (same) engine chooses the colour.
        m.Send("SWAP2BOARD");
        for (int p : order) m.Send(Xy(p, n));
        m.Send("DONE");
        const std::string third = m.Reply();
        if (third == "SWAP") {
          engine = kBlack;
        } else {
          place(PointOf(third, n));
          engine = kWhite;
        }
      }
    }
    INFO("engine plays " << (engine == kBlack ? "black" : "white") << " after the opening");
    REQUIRE(b.to_move() != engine);
    // The script's move, then the position as a continuous-game BOARD with
    // one blocked point (field 3) in a corner that is still empty.
    auto script_move = [&] {
      const std::vector<int> legal = b.LegalMoves();
      REQUIRE(!legal.empty());
      place(legal[rng() % legal.size()]);
    };
    script_move();
    int blocked = kNoMove;
    for (int corner : {0, n - 1, n * (n - 1), n * n - 1})
      if (b.at(corner) == kEmpty) {
        blocked = corner;
        break;
      }
    REQUIRE(blocked != kNoMove);
    std::vector<std::string> lines;
    for (int p : order) lines.push_back(Xy(p, n) + "," + (b.at(p) == engine ? "1" : "2"));
    lines.push_back(Xy(blocked, n) + ",3");
    std::vector<int8_t> cells = b.cells();
    cells[blocked] = kBlocked;
    b = Board::FromStones(n, c.rule, cells, engine, order.back());
    m.SendBoard(lines);
    int moves = 0;
    for (;;) {
      const int own = m.Move();  // legal under the rule, or the test fails
      CHECK(own != blocked);
      ++moves;
      if (b.terminal()) break;
      const std::vector<int> legal = b.LegalMoves();
      REQUIRE(!legal.empty());
      const int reply = legal[rng() % legal.size()];
      b.Play(reply);
      if (b.terminal()) break;
      m.Send("TURN " + Xy(reply, n));
    }
    WARN(RuleName(c.rule) << ": " << moves << " engine moves, outcome " << static_cast<int>(b.outcome())
                          << ", engine " << (engine == kBlack ? "black" : "white"));
    CHECK(b.terminal());
    m.Send("END");
    CHECK(m.process().WaitExit(5000ms).has_value());
  }
}

// Tools/make_gomocup_folder.sh makes a folder a manager loads as
// is: the brain finds its settings and checkpoint next to itself.
TEST_CASE("make_gomocup_folder.sh: the folder's brain answers START and ABOUT with its checkpoint") {
  const std::string dir = FreshTestDir("gomocup_folder");
  const std::string ckpt = dir + "/tiny15.ckpt";
  CreateRandomCheckpoint(ckpt, 15, Rule::kFreestyle, 8, 1, /*seed=*/3, /*iteration=*/1, /*model_generation=*/1);
  const std::string out = dir + "/brain";
  const std::string make_folder =
      std::string(GZ_SOURCE_DIR) + "/tools/make_gomocup_folder.sh --binary " + EngineBinary();
  REQUIRE(ShellStatus(make_folder + " " + out + " " + ckpt + " > " + dir + "/script.log 2>&1") == 0);
  CHECK(std::filesystem::exists(out + "/tiny15.ckpt"));
  CHECK(ReadFileOrThrow(out + "/pbrain-gomoku-zero.json").find("\"weights\": \"tiny15.ckpt\"") != std::string::npos);
  CHECK(ReadFileOrThrow(out + "/README.txt").find("pbrain-gomoku-zero") != std::string::npos);
  // The licences travel with the brain (LICENSE: MIT, the nets included).
  CHECK(ReadFileOrThrow(out + "/LICENSE").find("MIT License") != std::string::npos);
  CHECK(std::filesystem::exists(out + "/THIRD_PARTY.md"));
  ChildProcess brain({out + "/pbrain-gomoku-zero"}, PipedTestChild(dir + "/brain.stderr"));
  auto reply = [&](const std::string& line) { return FolderBrainReply(brain, line); };
  CHECK(reply("START 15") == "OK");
  CHECK(reply("ABOUT").starts_with("name=\"gomoku-zero\""));
  // The checkpoint was loaded: it plays only 15x15, so a 9x9 game is the
  // classical player's, said in a MESSAGE before the OK.
  brain.Write("START 9\r\n");
  const auto said = brain.ReadLine(60000ms);
  REQUIRE(said.has_value());
  CHECK(said->starts_with("MESSAGE board size 9 is not supported"));
  CHECK(said->find("classical:") != std::string::npos);
  CHECK(brain.ReadLine(60000ms) == std::optional<std::string>("OK"));
  brain.Write("END\r\n");
  CHECK(brain.WaitExit(10000ms).has_value());
  // A bad checkpoint path is refused by the script.
  CHECK(ShellStatus(make_folder + " " + out + " /no/such.ckpt > /dev/null 2>&1") != 0);
  // Without a checkpoint: the newest shipped 15x15 freestyle net; --baseline: none.
  const std::string shipped = dir + "/shipped";
  REQUIRE(ShellStatus(make_folder + " " + shipped + " > " + dir + "/script2.log 2>&1") == 0);
  const std::string settings = ReadFileOrThrow(shipped + "/pbrain-gomoku-zero.json");
  CHECK_THAT(settings, Catch::Contains("15x15-freestyle"));
  const std::string base = dir + "/baseline";
  REQUIRE(ShellStatus(make_folder + " --baseline " + base + " > /dev/null 2>&1") == 0);
  CHECK(ReadFileOrThrow(base + "/pbrain-gomoku-zero.json") == "{\"weights\": \"none\"}\n");
  // --classical N: no net, the classical player; its brain opens at the centre.
  const std::string classical = dir + "/classical";
  REQUIRE(ShellStatus(make_folder + " --classical 2000 " + classical + " > /dev/null 2>&1") == 0);
  CHECK(ReadFileOrThrow(classical + "/pbrain-gomoku-zero.json") == "{\"player\": \"classical:2000\"}\n");
  CHECK_THAT(ReadFileOrThrow(classical + "/README.txt"), Catch::Contains("classical player"));
  CHECK(std::filesystem::directory_iterator(classical) != std::filesystem::directory_iterator());
  for (const auto& entry : std::filesystem::directory_iterator(classical))
    CHECK(entry.path().extension() != ".pt");
  ChildProcess cbrain({classical + "/pbrain-gomoku-zero"}, PipedTestChild(dir + "/cbrain.stderr"));
  auto creply = [&](const std::string& line) { return FolderBrainReply(cbrain, line); };
  CHECK(creply("START 20") == "OK");
  CHECK(creply("BEGIN") == "10,10");
  cbrain.Write("END\r\n");
  CHECK(cbrain.WaitExit(10000ms).has_value());
  for (const char* bad : {"0", "x", "-5", ""})
    CHECK(ShellStatus(make_folder + " --classical '" + bad + "' " + dir + "/bad > /dev/null 2>&1") != 0);
  CHECK(ShellStatus(make_folder + " --classical 100 " + dir + "/bad " + ckpt + " > /dev/null 2>&1") != 0);
}

TEST_CASE("END during a long think stops the search and exits") {
  Manager m;
  m.Send("INFO timeout_turn 60000");
  m.Send("START 15");
  REQUIRE(m.Reply() == "OK");
  m.Send("BEGIN");
  std::this_thread::sleep_for(200ms);
  const auto sent = Clock::now();
  m.Send("END");
  auto code = m.process().WaitExit(10000ms);
  REQUIRE(code.has_value());
  REQUIRE(*code == 0);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
  WARN("exited " << ms << " ms after END (the turn limit was 60 s)");
}

TEST_CASE("end of input ends the engine with status 0") {
  Manager m;
  m.Send("START 15");
  REQUIRE(m.Reply() == "OK");
  m.process().CloseStdin();
  auto code = m.process().WaitExit(10000ms);
  REQUIRE(code.has_value());
  REQUIRE(*code == 0);
}

TEST_CASE("broken settings: the engine explains the problem in a MESSAGE and plays on") {
  std::string bad = TestTmpPath("engine_bad_settings.json");
  WriteFileAtomic(bad, R"({"max_simulations": "many"})");
  ChildProcess engine({EngineBinary(), "--settings", bad}, PipedTestChild(TestTmpPath("engine_manager.stderr")));
  engine.WriteLine("INFO timeout_turn 1000");
  engine.WriteLine("START 15");
  auto reply = engine.ReadLine(60000ms);  // first reply: includes process start
  REQUIRE(reply.has_value());
  REQUIRE(reply->starts_with("MESSAGE engine settings:"));
  REQUIRE(reply->find("max_simulations") != std::string::npos);
  REQUIRE(engine.ReadLine(60000ms) == std::optional<std::string>("OK"));
  engine.WriteLine("END");
  REQUIRE(engine.WaitExit(10000ms) == std::optional<int>(0));
}

TEST_CASE("play binary: a short game from the terminal") {
  ChildProcess play({kPlay, "--settings", DefaultsOnlySettings(), "--size", "9", "--simulations", "50", "--human", "black"},
                    PipedTestChild(TestTmpPath("engine_play.stderr")));
  play.Write("e5\ne5\nk3\nundo\ne5\nquit\n");
  std::string out = play.ReadAll(120000ms);  // returns when play closes stdout
  auto code = play.WaitExit(10000ms);
  INFO(out);
  REQUIRE(code == std::optional<int>(0));
  RequireContainsAll(out, {"    a b c d e f g h i\n", "engine plays ", "illegal move: e5 is occupied",
                           "illegal move: 'k3' is off the board", "took back your last move", "bye"});
}

TEST_CASE("play binary: bad flags are reported with status 2") {
  ChildProcess play({kPlay, "--size", "40"}, PipedTestChild(TestTmpPath("engine_play.stderr")));
  REQUIRE(play.WaitExit(60000ms) == std::optional<int>(2));
}
