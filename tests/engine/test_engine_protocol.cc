// In-process tests of the engine library: line splitting, coordinates, time
// budgets, tactics, the Gomocup state machine over the real baseline search,
// tree reuse, the stop flag, settings files and the terminal game.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/game/tactics.h"
#include "common/net/net_api.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"
#include "engine/line_input.h"
#include "engine/terminal_game.h"
#include "engine/time_control.h"
#include "common/match/classical_player.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"
#include "tests/engine/session_test_util.h"
#include "tests/support/text_checks.h"

using namespace gz;
using Clock = std::chrono::steady_clock;
using gz::testing::RequireContainsAll;

namespace {

// The baseline engine's player: default settings (rollout evaluator).
struct BaselinePlayer {
  EngineSettings settings;
  EvaluatorSource source{settings.weights, settings.config};
  SearchPlayer player{source, settings.config};
};

// A terminal game of `size` against the engine, the human playing `human`,
// no thinking time, `max_simulations` a move.
TerminalGameOptions QuickGame(int size, int8_t human, int max_simulations) {
  TerminalGameOptions opt;
  opt.size = size;
  opt.human = human;
  opt.time_per_move = std::chrono::milliseconds(0);
  opt.max_simulations = max_simulations;
  return opt;
}

// A baseline engine (rollout evaluator) with a small simulation cap and a
// session around it.  Replies of the last command are in `out`.
struct Harness {
  BaselinePlayer engine;
  GomocupSession session;
  std::vector<std::string> out;

  explicit Harness(int max_sims = 300) : session(engine.player, max_sims) {}

  // Sends one line; returns true unless it was END.
  bool Send(const std::string& line) {
    out.clear();
    return session.Handle(line, Clock::now(), out);
  }
  // The replies of the last command but MESSAGE and Yixin's INFO lines.
  std::vector<std::string> Answers() const {
    std::vector<std::string> a;
    for (auto& l : out)
      if (l.rfind("MESSAGE ", 0) != 0 && l.rfind("INFO ", 0) != 0) a.push_back(l);
    return a;
  }
  // Sends `line`; the answer must be an ERROR.
  void ExpectError(const std::string& line) {
    Send(line);
    INFO("sent: " << line);
    REQUIRE(Answer().starts_with("ERROR"));
  }
  std::string Answer() const {
    auto a = Answers();
    REQUIRE(a.size() == 1);
    return a[0];
  }
  // The point the answer names; it must lie on the board.
  int AnswerMove() const {
    const std::string answer = Answer();
    INFO("answer: " << answer);
    const auto point = gz::testing::PointOnBoard(answer, session.board()->size());
    REQUIRE(point.has_value());
    return *point;
  }
  // Sends a BOARD block: the "x,y,field" lines, then DONE.
  void SendBoard(std::initializer_list<const char*> fields) {
    Send("BOARD");
    for (const char* l : fields) Send(l);
    Send("DONE");
  }
};

}  // namespace

TEST_CASE("LineSplitter accepts CR, LF and CRLF and drops empty lines") {
  LineSplitter s;
  auto lines = s.Feed("START 15\r\nBEGIN\rTURN 1,2\nINFO time");
  REQUIRE(lines == std::vector<std::string>{"START 15", "BEGIN", "TURN 1,2"});
  lines = s.Feed("_left 100\r");
  REQUIRE(lines == std::vector<std::string>{"INFO time_left 100"});
  lines = s.Feed("\n\n\r\nEND");
  REQUIRE(lines.empty());
  REQUIRE(s.Finish() == std::optional<std::string>("END"));
  REQUIRE_FALSE(s.Finish().has_value());
  REQUIRE(IsEndCommand(" end \t"));
  REQUIRE(IsEndCommand("END"));
  REQUIRE_FALSE(IsEndCommand("ENDX"));
  REQUIRE_FALSE(IsEndCommand("BEGIN"));
  // A huge line is cut, not kept whole.
  lines = s.Feed(std::string(kMaxLineLength * 3, 'x') + "\nABOUT\n");
  REQUIRE(lines.size() == 2);
  REQUIRE(lines[0].size() == kMaxLineLength);
  REQUIRE(lines[1] == "ABOUT");
}

TEST_CASE("coordinates parse strictly") {
  REQUIRE(ParseCoordinates("7,8") == std::optional<std::pair<int, int>>({7, 8}));
  REQUIRE(ParseCoordinates(" 3 , 14 ") == std::optional<std::pair<int, int>>({3, 14}));
  REQUIRE(ParseCoordinates("-1,2") == std::optional<std::pair<int, int>>({-1, 2}));
  REQUIRE_FALSE(ParseCoordinates("7").has_value());
  REQUIRE_FALSE(ParseCoordinates("a,b").has_value());
  REQUIRE_FALSE(ParseCoordinates("1,2,3").has_value());
  REQUIRE_FALSE(ParseCoordinates("1.5,2").has_value());
  REQUIRE_FALSE(ParseCoordinates(",").has_value());
  REQUIRE(FormatCoordinates(3 * 15 + 7, 15) == "7,3");
}

TEST_CASE("thinking time respects the turn limit, the match time and the margin") {
  TimeControl tc;
  tc.timeout_turn_ms = 1000;
  REQUIRE(ThinkingTime(tc, 200).count() == 1000 - 100 - 50);
  REQUIRE(HardMoveLimitMs(tc) == 1000);
  tc.timeout_turn_ms = 0;  // as fast as possible
  REQUIRE(ThinkingTime(tc, 200).count() == 0);
  tc.timeout_turn_ms = 5000;
  tc.timeout_match_ms = 100000;
  tc.time_left_ms = 10000;
  tc.time_left_known = true;
  // 200 empty points: 100 own moves left, clamped to 25 -> 10000 / 25 = 400.
  REQUIRE(ThinkingTime(tc, 200).count() == 400 - 40 - 50);
  // Few points left: divide by at least 5.
  REQUIRE(ThinkingTime(tc, 3).count() == 2000 - 200 - 50);
  tc.time_left_ms = 30;  // almost out of time: never negative
  REQUIRE(ThinkingTime(tc, 100).count() == 0);
  REQUIRE(HardMoveLimitMs(tc) == 30);
  tc.time_left_ms = -500;  // already over (the protocol allows negative values)
  REQUIRE(ThinkingTime(tc, 100).count() == 0);
  tc.time_left_ms = kUnlimitedTimeLeft;
  REQUIRE(ThinkingTime(tc, 100).count() == 5000 - 500 - 50);
  REQUIRE(TreeMemoryBudget(tc) == (int64_t{512} << 20));
  tc.max_memory_bytes = 300000000;
  REQUIRE(TreeMemoryBudget(tc) == 100000000);
}

TEST_CASE("tactics find the winning move and the forced block") {
  std::vector<int8_t> cells(81, kEmpty);
  auto at = [](int x, int y) { return y * 9 + x; };
  // Black: four on row 4 (x = 1..4), x = 0 blocked by white; white: four on row 7 (x = 2..5) open.
  for (int x = 1; x <= 4; ++x) cells[at(x, 4)] = kBlack;
  cells[at(0, 4)] = kWhite;
  for (int x = 2; x <= 5; ++x) cells[at(x, 7)] = kWhite;
  cells[at(8, 8)] = kBlack;
  Board black_to_move = Board::FromStones(9, Rule::kFreestyle, cells, kBlack);
  REQUIRE(FindWinningMove(black_to_move) == at(5, 4));
  Board white_to_move = Board::FromStones(9, Rule::kFreestyle, cells, kWhite);
  REQUIRE((FindWinningMove(white_to_move) == at(1, 7) || FindWinningMove(white_to_move) == at(6, 7)));
  REQUIRE(FindForcedBlock(white_to_move) == at(5, 4));
  // Black to move without its four: must block white's four (two ends, either).
  cells[at(4, 4)] = kEmpty;
  cells[at(7, 0)] = kBlack;
  Board must_block = Board::FromStones(9, Rule::kFreestyle, cells, kBlack);
  REQUIRE(FindWinningMove(must_block) == kNoMove);
  REQUIRE(FindForcedBlock(must_block) == at(1, 7));
}

TEST_CASE("standard rule: an overline is not a win for the tactics") {
  std::vector<int8_t> cells(81, kEmpty);
  // Black X X X X _ X on row 0: filling x=4 makes six.
  for (int x : {0, 1, 2, 3, 5}) cells[x] = kBlack;
  for (int x : {0, 1, 2, 3, 4}) cells[8 * 9 + x] = kWhite;
  cells[8 * 9 + 4] = kEmpty;
  cells[7 * 9 + 8] = kWhite;
  Board standard = Board::FromStones(9, Rule::kStandard, cells, kBlack);
  REQUIRE(FindWinningMove(standard) == kNoMove);
  Board freestyle = Board::FromStones(9, Rule::kFreestyle, cells, kBlack);
  REQUIRE(FindWinningMove(freestyle) == 4);
}

TEST_CASE("session: START, BEGIN, TURN, errors, UNKNOWN, ABOUT, RESTART, END") {
  Harness h;
  REQUIRE(h.Send("ABOUT"));
  // The version is the configured one (the VERSION file, or -DGOMOKU_VERSION as
  // tools/release.sh passes it), handed to the test by CMake, never a literal.
  std::smatch about;
  const std::string answer = h.Answer();
  REQUIRE(std::regex_match(answer, about, std::regex(R"re(name="gomoku-zero", version="([^"]+)", author="gomoku-zero developers", country="[^"]+"(, www="[^"]+")?)re")));
  CHECK(about[1] == std::string(GZ_EXPECTED_VERSION));
  CHECK(std::string(kEngineVersion) == GZ_EXPECTED_VERSION);

  h.ExpectError("BEGIN");  // no START yet
  h.Send("BOARD");  // without a game: the block is consumed, one ERROR at DONE
  REQUIRE(h.out.empty());
  h.Send("1,1,2");
  REQUIRE(h.out.empty());
  h.ExpectError("DONE");
  h.ExpectError("START 4");
  h.ExpectError("START 23");
  h.ExpectError("START fifteen");
  h.Send("start 9");  // case-insensitive keywords
  REQUIRE(h.Answer() == "OK");
  REQUIRE(h.session.board()->size() == 9);

  h.Send("INFO timeout_turn 60000");  // the simulation cap ends the search
  REQUIRE(h.out.empty());
  h.Send("INFO no_such_key 5");
  REQUIRE(h.out.empty());

  h.Send("BEGIN");
  REQUIRE(h.out.size() == 2);
  REQUIRE(h.out[0].starts_with("MESSAGE "));
  int first = h.AnswerMove();
  REQUIRE(h.session.board()->at(first) == kBlack);
  REQUIRE(h.session.last_decision()->simulations == 300);

  h.ExpectError("BEGIN");  // board not empty

  const std::string occupied = FormatCoordinates(first, 9);
  h.ExpectError("TURN " + occupied);
  h.ExpectError("TURN 9,0");
  h.ExpectError("TURN -1,3");
  h.ExpectError("TURN 3");
  h.ExpectError("TURN x,y");
  REQUIRE(h.session.board()->move_count() == 1);  // the errors changed nothing

  int opp = first == 0 ? 1 : 0;
  h.Send("TURN " + FormatCoordinates(opp, 9));
  int reply = h.AnswerMove();
  REQUIRE(reply != first);
  REQUIRE(reply != opp);
  REQUIRE(h.session.board()->move_count() == 3);

  h.Send("SUGGEST");
  REQUIRE(h.Answer().starts_with("UNKNOWN"));
  h.ExpectError("RECTSTART 9,10");

  // TAKEBACK our reply and the opponent's move; the position is as before.
  h.Send("TAKEBACK " + FormatCoordinates(reply, 9));
  REQUIRE(h.Answer() == "OK");
  h.Send("TAKEBACK " + FormatCoordinates(opp, 9));
  REQUIRE(h.Answer() == "OK");
  REQUIRE(h.session.board()->move_count() == 1);
  REQUIRE(h.session.board()->to_move() == kWhite);
  REQUIRE(h.session.board()->last_move() == first);
  h.ExpectError("TAKEBACK " + FormatCoordinates(opp, 9));  // empty point
  h.Send("TURN " + FormatCoordinates(opp, 9));
  h.AnswerMove();

  h.Send("RESTART");
  REQUIRE(h.Answer() == "OK");
  REQUIRE(h.session.board()->move_count() == 0);
  REQUIRE_FALSE(h.Send("END"));
}

TEST_CASE("session: BOARD infers the side to move, wins and blocks") {
  Harness h;
  h.Send("START 15");
  REQUIRE(h.Answer() == "OK");
  SECTION("own four: play the five") {
    h.Send("BOARD");
    REQUIRE(h.out.empty());
    for (const char* l : {"3,5,1", "4,5,1", "5,5,1", "6,5,1", "0,0,2", "2,9,2", "10,12,2", "14,14,2"}) {
      h.Send(l);
      REQUIRE(h.out.empty());
    }
    h.Send("DONE");
    const std::string move = h.Answer();
    REQUIRE((move == "2,5" || move == "7,5"));
    REQUIRE(h.session.board()->terminal());
    REQUIRE(h.session.board()->outcome() == Outcome::kBlackWins);  // equal counts: we are black
  }
  SECTION("opponent four: block it") {
    h.SendBoard({"3,8,2", "2,8,1", "4,8,2", "10,2,1", "5,8,2", "12,12,1", "6,8,2"});
    REQUIRE(h.Answer() == "7,8");
    REQUIRE(h.session.board()->at(8, 7) == kWhite);  // one stone fewer: we are white
  }
  SECTION("bad BOARD blocks give one ERROR at DONE and leave the engine usable") {
    // (Stone counts that fit no side to move are played, by the parity of
    // every stone: a move is owed; "session: a move is owed ...".)
    for (auto lines : {std::vector<std::string>{"1,1,4"},                // no such field
                       std::vector<std::string>{"1,1,2", "1,1,2"},       // duplicate
                       std::vector<std::string>{"15,1,2"},               // off the board
                       std::vector<std::string>{"1,1"}}) {               // malformed
      h.Send("BOARD");
      for (auto& l : lines) {
        h.Send(l);
        REQUIRE(h.out.empty());
      }
      h.ExpectError("DONE");
    }
    h.Send("RESTART");
    REQUIRE(h.Answer() == "OK");
    h.Send("BEGIN");
    h.AnswerMove();
  }
}

TEST_CASE("session: INFO rule switches exact-five on the board") {
  Harness h;
  h.Send("INFO rule 1");
  h.Send("START 9");
  REQUIRE(h.session.board()->rule() == Rule::kStandard);
  h.Send("INFO rule 0");
  REQUIRE(h.session.board()->rule() == Rule::kFreestyle);
  h.Send("INFO rule 3");  // exactly five + continuous
  REQUIRE(h.session.rule() == Rule::kStandard);
  h.Send("INFO rule x");  // ignored
  REQUIRE(h.session.rule() == Rule::kStandard);
  REQUIRE(h.out.empty());
  h.Send("INFO rule 4");  // renju
  REQUIRE(h.session.rule() == Rule::kRenju);
  REQUIRE(h.session.board()->rule() == Rule::kRenju);
  h.Send("INFO rule 5");  // renju wins over exactly-five
  REQUIRE(h.session.rule() == Rule::kRenju);
  h.Send("INFO rule 9");  // caro (8) with exactly five (1), as Gomocup's caro league sends it
  REQUIRE(h.session.rule() == Rule::kCaro);
  REQUIRE(h.session.board()->rule() == Rule::kCaro);
  h.Send("INFO rule 0");
  h.Send("INFO rule 8");  // caro alone: the manager's rule 8, where an overline wins
  REQUIRE(h.session.rule() == Rule::kCaroOverline);
  REQUIRE(h.out.empty());
}

TEST_CASE("session: under caro a five blocked at both ends does not end the game") {
  Harness h;
  h.Send("INFO rule 9");
  h.Send("START 9");
  REQUIRE(h.Answer() == "OK");
  // Our stones (field 1) O at 0,4 and 6,4; theirs (field 2) X X X X X on row 4
  // from x=1 to x=5 between them: blocked at both ends, no win, we are to move.
  h.SendBoard({"1,4,2", "0,4,1", "2,4,2", "6,4,1", "3,4,2", "8,8,1", "4,4,2", "8,0,1", "5,4,2"});
  REQUIRE_FALSE(h.session.board()->terminal());
  const int move = h.AnswerMove();
  REQUIRE(move >= 0);
  // The same stones under freestyle are a finished game.
  Board free = Board::FromStones(9, Rule::kFreestyle, h.session.board()->cells(), kBlack);
  CHECK(free.terminal());
}

TEST_CASE("session: renju refuses black's forbidden point and never plays one") {
  Harness h(200);
  h.Send("INFO rule 4");
  h.Send("START 9");
  REQUIRE(h.Answer() == "OK");
  // We are white: black X X X . X X on row 0 (the gap 3,0 is an overline point).
  h.SendBoard({"0,0,2", "8,8,1", "1,0,2", "6,8,1", "2,0,2", "4,8,1", "4,0,2", "2,8,1", "5,0,2"});
  const int white_move = h.AnswerMove();
  REQUIRE(h.session.board()->to_move() == kBlack);
  if (white_move != 3) {
    // The opponent (black) tries the forbidden point: ERROR, nothing changes.
    const int before = h.session.board()->move_count();
    h.Send("TURN 3,0");
    REQUIRE(h.Answer() == "ERROR TURN: point 3,0 is forbidden for black under renju: overline");
    REQUIRE(h.session.board()->move_count() == before);
  }
  // As black, the engine never answers a forbidden point.
  Harness b(150);
  b.Send("INFO rule 4");
  b.Send("START 9");
  b.SendBoard({"0,0,1", "8,8,2", "1,0,1", "6,8,2", "2,0,1", "4,8,2", "4,0,1", "2,8,2", "5,0,1", "0,8,2"});
  const int m = b.AnswerMove();
  CHECK(m != 3);
  CHECK(b.session.board()->at(m) == kBlack);
}

TEST_CASE("session: BOARD field 3 (continuous game) marks nobody's points") {
  Harness h;
  h.Send("INFO rule 2");  // continuous game
  h.Send("START 15");
  // A scored black line (field 3) on row 0, then ordinary stones.
  h.SendBoard({"0,0,3", "1,0,3", "2,0,3", "3,0,3", "4,0,3", "7,7,2", "8,8,1", "7,8,2"});
  const int m = h.AnswerMove();
  const Board& b = *h.session.board();
  CHECK(b.at(0) == kBlocked);
  CHECK(b.at(4) == kBlocked);
  CHECK(m >= 5);  // never on a blocked point
  CHECK(b.at(m) == kWhite);  // one own stone, two opponent stones (field 3 counts for nobody): we are white
  CHECK(b.move_count() == 9);
}

TEST_CASE("session: RECTSTART with a square answers like START, a rectangle is refused") {
  Harness h;
  h.Send("RECTSTART 9,9");
  REQUIRE(h.Answer() == "OK");
  REQUIRE(h.session.board()->size() == 9);
  h.ExpectError("RECTSTART 9,11");
  h.ExpectError("RECTSTART x");
}

TEST_CASE("session: SWAP2BOARD answers the three stages from the search's values") {
  Harness h(300);
  h.Send("INFO timeout_turn 300");
  h.Send("INFO rule 1");
  h.Send("START 15");
  // Stage 1: empty board -> three stones, black white black, all distinct, legal.
  h.Send("SWAP2BOARD");
  REQUIRE(h.out.empty());
  h.Send("DONE");
  REQUIRE(h.out.size() == 2);
  CHECK(h.out[0].starts_with("MESSAGE swap2:"));
  {
    std::istringstream is(h.Answer());
    std::vector<std::string> parts{std::istream_iterator<std::string>(is), {}};
    REQUIRE(parts.size() == 3);
    Board b(15, Rule::kStandard);
    for (auto& p : parts) {
      auto xy = ParseCoordinates(p);
      REQUIRE(xy);
      b.Play(xy->second * 15 + xy->first);
    }
    CHECK(h.session.board()->cells() == b.cells());
  }
  // Stage 2: three stones -> SWAP, one stone, or two stones.
  for (int trial = 0; trial < 2; ++trial) {
    h.Send("SWAP2BOARD");
    for (const char* l : trial == 0 ? std::vector<const char*>{"7,7", "8,7", "9,9"}
                                    : std::vector<const char*>{"7,7", "0,14", "7,9"})
      h.Send(l);
    h.Send("DONE");
    const std::string a = h.Answer();
    std::istringstream is(a);
    std::vector<std::string> parts{std::istream_iterator<std::string>(is), {}};
    INFO(a);
    if (a == "SWAP") continue;
    REQUIRE((parts.size() == 1 || parts.size() == 2));
    for (auto& p : parts) REQUIRE(ParseCoordinates(p));
    CHECK(h.session.board()->move_count() == static_cast<int>(3 + parts.size()));
  }
  // Stage 3: five stones -> SWAP or the sixth stone (white's).
  h.Send("SWAP2BOARD");
  for (const char* l : {"7,7", "8,7", "9,9", "8,8", "8,6"}) h.Send(l);
  h.Send("DONE");
  const std::string a = h.Answer();
  if (a != "SWAP") {
    auto xy = ParseCoordinates(a);
    REQUIRE(xy);
    CHECK(h.session.board()->at(xy->second, xy->first) == kWhite);
  }
  // A bad block: one ERROR at DONE, the engine stays usable.
  h.Send("SWAP2BOARD");
  h.Send("7,7");
  h.Send("7,8");
  h.ExpectError("DONE");  // two stones
  h.Send("SWAP2BOARD");
  h.Send("7,7");
  h.Send("7,7");
  h.ExpectError("DONE");  // listed twice
  h.Send("RESTART");
  REQUIRE(h.Answer() == "OK");
  h.Send("BEGIN");
  h.AnswerMove();
}

TEST_CASE("search player reuses its tree across its own move and the opponent's reply") {
  BaselinePlayer engine;
  SearchPlayer& player = engine.player;
  SearchLimits limits;
  limits.max_simulations = 600;
  Board board(7, Rule::kFreestyle);
  MoveDecision first = player.ChooseMove(board, limits);
  REQUIRE(first.reason == MoveReason::kSearch);
  REQUIRE(first.reused_visits == 0);
  REQUIRE(first.simulations == 600);
  board.Play(first.move);
  // Try every reply on a copy of the player: replies the first search
  // explored must come with their subtree, the others with nothing.
  int replies_with_subtree = 0;
  for (int reply : board.LegalMoves()) {
    SearchPlayer copy = player;
    Board next = board;
    next.Play(reply);
    MoveDecision d = copy.ChooseMove(next, limits);
    REQUIRE(d.root_visits == d.reused_visits + d.simulations);
    if (d.reused_visits > 0) ++replies_with_subtree;
  }
  REQUIRE(replies_with_subtree > 0);
  // A position the tree cannot follow (a stone removed) starts from scratch.
  Board other(7, Rule::kFreestyle);
  other.Play(board.LegalMoves().front());
  MoveDecision fresh = player.ChooseMove(other, limits);
  REQUIRE(fresh.reused_visits == 0);
}

TEST_CASE("search stops for the deadline and the stop flag but always returns a legal move") {
  BaselinePlayer engine;
  SearchPlayer& player = engine.player;
  Board board(15, Rule::kFreestyle);
  SearchLimits limits;
  limits.deadline = Clock::now();  // already over
  MoveDecision d = player.ChooseMove(board, limits);
  REQUIRE(board.IsLegal(d.move));
  REQUIRE(d.simulations <= 2);
  std::atomic<bool> stop{true};
  limits.deadline = Clock::time_point::max();
  limits.stop = &stop;
  player.ClearTree();
  d = player.ChooseMove(board, limits);
  REQUIRE(board.IsLegal(d.move));
  REQUIRE(d.simulations <= 2);
  // The memory budget caps the tree: room for 10 expansions of 225 children.
  limits.stop = nullptr;
  const size_t expansion = Mcts::ExpansionBytes(225);
  limits.tree_memory_bytes = static_cast<int64_t>(expansion * 10);
  player.ClearTree();
  d = player.ChooseMove(board, limits);
  REQUIRE(d.simulations >= 2);
  REQUIRE(d.simulations < 12);
  REQUIRE(d.tree_bytes <= expansion * 10);
  REQUIRE(d.tree_bytes + 2 * expansion > expansion * 10);  // it used what it had
}

TEST_CASE("engine settings files are strict and resolve relative paths") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(GZ_TEST_TMP) / "engine_settings";
  fs::create_directories(dir);
  const std::string good = (dir / "good.json").string();
  WriteFileAtomic(good, R"({"weights": "nets/best.ckpt", "max_simulations": 1234,
                            "config": {"mcts": {"c_puct": 2.5}, "run": {"seed": 7}}})");
  EngineSettings s = LoadEngineSettingsFile(good);
  REQUIRE(s.weights == (dir / "nets/best.ckpt").string());
  REQUIRE(s.max_simulations == 1234);
  REQUIRE(s.config.mcts.c_puct == Approx(2.5));
  REQUIRE(s.config.run.seed == 7);

  const std::string unknown = (dir / "unknown.json").string();
  WriteFileAtomic(unknown, R"({"weigths": "x"})");
  REQUIRE_THROWS_AS(LoadEngineSettingsFile(unknown), ConfigError);
  const std::string bad_config = (dir / "bad_config.json").string();
  WriteFileAtomic(bad_config, R"({"config": {"mcts": {"c_puct": -1}}})");
  REQUIRE_THROWS_AS(LoadEngineSettingsFile(bad_config), ConfigError);

  // Command line beats the file; the default file is looked up next to the binary.
  WriteFileAtomic((dir / kEngineSettingsFileName).string(), R"({"max_simulations": 99})");
  EngineCommandLine cl;
  REQUIRE(ResolveEngineSettings(cl, dir.string()).max_simulations == 99);
  cl.max_simulations = 500;
  cl.weights = "/abs/w.ckpt";
  cl.overrides = {"mcts.c_puct=3"};
  EngineSettings r = ResolveEngineSettings(cl, dir.string());
  REQUIRE(r.max_simulations == 500);
  REQUIRE(r.weights == "/abs/w.ckpt");
  REQUIRE(r.config.mcts.c_puct == Approx(3.0));
  cl.overrides = {"mcts.nope=3"};
  REQUIRE_THROWS_AS(ResolveEngineSettings(cl, dir.string()), ConfigError);
}

TEST_CASE("engine settings: player net or classical:N, from the file or --player, refused by name") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(GZ_TEST_TMP) / "engine_settings_player";
  fs::create_directories(dir);
  const std::string classical = (dir / "classical.json").string();
  WriteFileAtomic(classical, R"({"player": "classical:2500"})");
  CHECK(LoadEngineSettingsFile(classical).classical_nodes == 2500);
  const std::string net = (dir / "net.json").string();
  WriteFileAtomic(net, R"({"player": "net", "weights": "w.ckpt"})");
  CHECK(LoadEngineSettingsFile(net).classical_nodes == 0);
  for (const char* bad : {R"({"player": "classical:0"})", R"({"player": "classical:many"})", R"({"player": "mcts"})",
                          R"({"player": 5000})"}) {
    const std::string path = (dir / "bad.json").string();
    WriteFileAtomic(path, bad);
    INFO(bad);
    try {
      LoadEngineSettingsFile(path);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("'player'"));
    }
  }
  // --player beats the file; --weights alone makes the file's classical player a net;
  // --weights with --player classical:N is refused.
  EngineCommandLine cl;
  cl.settings_file = net;
  cl.player = "classical:300";
  CHECK(ResolveEngineSettings(cl, dir.string()).classical_nodes == 300);
  cl = EngineCommandLine{};
  cl.settings_file = classical;
  cl.weights = "/abs/w.ckpt";
  CHECK(ResolveEngineSettings(cl, dir.string()).classical_nodes == 0);
  cl.player = "classical:300";
  CHECK_THROWS_WITH(ResolveEngineSettings(cl, dir.string()), Catch::Contains("uses no net"));
  cl = EngineCommandLine{};
  cl.player = "classical:x";
  CHECK_THROWS_WITH(ResolveEngineSettings(cl, dir.string()), Catch::Contains("--player"));
  // MakeEnginePlayer: the classical player has no evaluator source.
  cl = EngineCommandLine{};
  cl.settings_file = classical;
  const EnginePlayer e = MakeEnginePlayer(ResolveEngineSettings(cl, dir.string()));
  CHECK(e.source == nullptr);
  REQUIRE(dynamic_cast<ClassicalPlayer*>(e.player.get()) != nullptr);
}

TEST_CASE("session: the classical player answers the protocol (centre, block, YXBLOCK, analysis lines)") {
  ClassicalPlayer player(3000);
  GomocupSession session(player, 100000);
  std::vector<std::string> out;
  auto send = [&](const std::string& line) {
    out.clear();
    session.Handle(line, Clock::now(), out);
  };
  auto answer = [&]() {  // the reply, after any MESSAGE and Yixin INFO lines
    std::vector<std::string> a;
    for (auto& l : out)
      if (!l.starts_with("MESSAGE ") && !l.starts_with("INFO ")) a.push_back(l);
    REQUIRE(a.size() == 1);
    return a[0];
  };
  send("INFO timeout_turn 2000");
  send("START 15");
  REQUIRE(answer() == "OK");
  send("BEGIN");
  CHECK(answer() == "7,7");
  send("TURN 8,8");
  const std::optional<std::pair<int, int>> reply = ParseCoordinates(answer());
  REQUIRE(reply.has_value());
  CHECK(session.board()->move_count() == 3);
  // White has four in a row on row 0 (x 0..3) after BOARD: black must block at 4,0.
  send("RESTART");
  send("BOARD");
  for (const char* l : {"0,0,2", "1,0,2", "2,0,2", "3,0,2", "7,7,1", "8,8,1", "6,9,1"}) send(l);
  send("DONE");
  CHECK(answer() == "4,0");
  CHECK(session.last_decision()->reason == MoveReason::kBlock);
  // YXBLOCK keeps the search off a point; Yixin mode prints the analysis lines.
  send("RESTART");
  send("YXSHOWINFO");
  send("INFO show_detail 3");
  send("YXBLOCK");
  send("7,7");
  send("DONE");
  send("BEGIN");
  CHECK(answer() != "7,7");
  // The analysis lines name the move played, with the player's node count.
  const std::string played = answer();
  CHECK(std::find(out.begin(), out.end(), "MESSAGE REALTIME BEST " + played) != out.end());
  CHECK(std::find(out.begin(), out.end(), "INFO NODES " + std::to_string(session.last_decision()->simulations)) !=
        out.end());
}

TEST_CASE("a checkpoint that cannot be loaded turns START into ERROR") {
  EngineSettings settings;
  settings.weights = std::string(GZ_TEST_TMP) + "/does-not-exist.ckpt";
  EvaluatorSource source(settings.weights, settings.config);
  REQUIRE(source.uses_network());
  REQUIRE(source.CheckSize(15).find("cannot load weights") != std::string::npos);
  SearchPlayer player(source, settings.config);
  GomocupSession session(player, 100);
  std::vector<std::string> out;
  session.Handle("START 15", Clock::now(), out);
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].starts_with("ERROR cannot load weights"));
}

TEST_CASE("START 20 with a conv-heads checkpoint made for 15x15 plays; an fc one is refused") {
  const std::string conv = std::string(GZ_TEST_TMP) + "/engine_conv15.gzck";
  const std::string fc = std::string(GZ_TEST_TMP) + "/engine_fc15.gzck";
  CreateRandomCheckpoint(conv, 15, Rule::kFreestyle, 8, 1, /*seed=*/21, /*iteration=*/2, /*model_generation=*/2,
                         "conv");
  CreateRandomCheckpoint(fc, 15, Rule::kFreestyle, 8, 1, /*seed=*/21, /*iteration=*/2, /*model_generation=*/2);
  auto run = [](const std::string& weights, const std::string& start, std::vector<std::string>& out) {
    EngineSettings settings;
    settings.weights = weights;
    settings.config.inference.threads = 1;
    auto source = std::make_unique<EvaluatorSource>(settings.weights, settings.config);
    SearchPlayer player(*source, settings.config);
    GomocupSession session(player, 50);
    out.clear();
    session.Handle(start, Clock::now(), out);
    if (out.size() == 1 && out[0] == "OK") {
      out.clear();
      session.Handle("BEGIN", Clock::now(), out);
      std::vector<std::string> moves;
      for (auto& l : out)
        if (!l.starts_with("MESSAGE")) moves.push_back(l);
      out = moves;
      // Back at the checkpoint's own size and then another again: each START re-targets.
      std::vector<std::string> again;
      session.Handle("RESTART", Clock::now(), again);
      session.Handle("END", Clock::now(), again);
    }
    return source->Describe();
  };
  std::vector<std::string> out;
  for (const char* start : {"START 20", "START 9", "START 22", "START 15"}) {
    INFO(start);
    const std::string described = run(conv, start, out);
    REQUIRE(out.size() == 1);
    const int n = std::stoi(std::string(start).substr(6));
    auto xy = ParseCoordinates(out[0]);
    REQUIRE(xy.has_value());
    CHECK(xy->first >= 0);
    CHECK(xy->first < n);
    CHECK(xy->second >= 0);
    CHECK(xy->second < n);
    CHECK(described.find("conv heads") != std::string::npos);
  }
  // One session over several sizes: START 20, then RESTART keeps 20, then START 13.
  {
    EngineSettings settings;
    settings.weights = conv;
    settings.config.inference.threads = 1;
    EvaluatorSource source(settings.weights, settings.config);
    SearchPlayer player(source, settings.config);
    GomocupSession session(player, 30);
    for (const char* line : {"START 20", "BEGIN", "START 13", "BEGIN"}) {
      out.clear();
      session.Handle(line, Clock::now(), out);
      REQUIRE_FALSE(out.empty());
      CHECK_FALSE(out.back().starts_with("ERROR"));
    }
    REQUIRE(session.board()->size() == 13);
  }
  run(fc, "START 20", out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].starts_with("ERROR board size 20 is not supported: the checkpoint was trained for 15x15"));
  CHECK(out[0].find("fc heads play only that size") != std::string::npos);
  run(fc, "START 15", out);
  REQUIRE(out.size() == 1);
  CHECK(ParseCoordinates(out[0]).has_value());
}

TEST_CASE("terminal UI: drawing and move notation") {
  Board b(9, Rule::kFreestyle);
  b.Play(4 * 9 + 7);  // h5
  std::string drawn = DrawBoard(b);
  REQUIRE(drawn.find("    a b c d e f g h i\n") == 0);
  REQUIRE(drawn.find("\n  5 . . . . . . .(X).\n") != std::string::npos);
  REQUIRE(FormatHumanMove(4 * 9 + 7, 9) == "h5");
  std::string err;
  REQUIRE(ParseHumanMove("h5", 9, &err) == std::optional<int>(4 * 9 + 7));
  REQUIRE(ParseHumanMove(" H5 ", 9, &err) == std::optional<int>(4 * 9 + 7));
  REQUIRE(ParseHumanMove("7,4", 9, &err) == std::optional<int>(4 * 9 + 7));
  REQUIRE_FALSE(ParseHumanMove("j5", 9, &err).has_value());
  REQUIRE(err.find("off the board") != std::string::npos);
  REQUIRE_FALSE(ParseHumanMove("h10", 9, &err).has_value());
  REQUIRE_FALSE(ParseHumanMove("hello", 9, &err).has_value());
  REQUIRE_FALSE(ParseHumanMove("9,0", 9, &err).has_value());
}

TEST_CASE("terminal game: moves, illegal input, undo and quit") {
  BaselinePlayer engine;
  TerminalGame game(engine.player, QuickGame(9, kBlack, 50));
  std::istringstream in("e5\nz9\ne5\nfoo\nundo\nundo\n4,4\nquit\n");
  std::ostringstream out;
  int moves = game.Run(in, out);
  const std::string text = out.str();
  REQUIRE(moves == 2);  // e5 (again, after the undo) and the engine's reply
  REQUIRE(game.board().at(4, 4) == kBlack);
  RequireContainsAll(text, {"engine plays ", "illegal move: 'z9' is off the board", "illegal move: e5 is occupied",
                            "illegal move: 'foo' is not a move", "took back your last move and the engine's reply",
                            "nothing to undo", "bye"});
}

TEST_CASE("terminal game: the engine as black opens, a finished game can be undone") {
  BaselinePlayer engine;
  TerminalGame game(engine.player, QuickGame(7, kWhite, 20));
  std::istringstream in("undo\n");  // nothing of ours to undo; then end of input quits
  std::ostringstream out;
  REQUIRE(game.Run(in, out) == 1);
  REQUIRE(out.str().find("nothing to undo") != std::string::npos);
}

namespace {

// A player whose search always fails (an evaluator error, a bug): the session
// must still answer a move wherever one is owed.
class ThrowingPlayer : public MovePlayer {
 public:
  std::string CheckSize(int) const override { return ""; }
  std::string Describe() const override { return "throwing player"; }
  MoveDecision ChooseMove(const Board&, const SearchLimits&) override { throw GomokuError("injected search failure"); }
  TreeReport Report() const override { return {}; }
  void ClearTree() override {}
  void set_threads(int) override {}
  int threads() const override { return 1; }
};

}  // namespace

TEST_CASE("session: a throwing search still answers a legal move: a win, a block, else near the centre") {
  ThrowingPlayer player;
  GomocupSession session(player, 100);
  std::vector<std::string> out;
  auto send = [&](const std::string& line) {
    out.clear();
    session.Handle(line, Clock::now(), out);
  };
  auto move = [&] {
    REQUIRE(out.size() == 2);
    CHECK(out[0].starts_with("MESSAGE "));
    CHECK(out[0].find("injected search failure") != std::string::npos);
    const auto p = gz::testing::PointOnBoard(out[1], 15);
    REQUIRE(p);
    return *p;
  };
  send("START 15");
  send("BEGIN");
  CHECK(move() == 7 * 15 + 7);  // empty board: the centre
  CHECK(session.board()->at(7 * 15 + 7) == kBlack);
  // Our four on row 0 (x = 0..3) wins at 4,0 before anything else.
  for (const char* l : {"BOARD", "0,0,1", "9,9,2", "1,0,1", "9,10,2", "2,0,1", "9,11,2", "3,0,1", "3,9,2", "DONE"})
    send(l);
  CHECK(move() == 4);
  // Their four (x = 0..3 on row 2) is blocked at 4,2.
  for (const char* l : {"BOARD", "0,2,2", "9,9,1", "1,2,2", "9,11,1", "2,2,2", "12,3,1", "3,2,2", "DONE"}) send(l);
  CHECK(move() == 2 * 15 + 4);
  // TURN and an unexpected failure elsewhere in a move: a move, never ERROR.
  send("TURN 5,5");
  move();
}

TEST_CASE("session: a move is owed even where our rule says the game is over") {
  Harness h;
  h.Send("START 15");
  // Their five on row 0: the manager plays on (it judges otherwise), we answer a move.
  h.SendBoard({"0,0,2", "1,0,2", "2,0,2", "3,0,2", "4,0,2", "7,7,1", "8,8,1", "9,9,1", "10,10,1"});
  REQUIRE(h.session.board()->terminal());
  const int m = h.AnswerMove();
  CHECK(m != 7 * 15 + 7);
  // A TURN that makes their five by our reading: a move as well.  They hold
  // two fours (rows 0 and 2); we block one, they complete the other.
  h.Send("START 15");
  h.SendBoard({"0,0,2", "1,0,2", "2,0,2", "3,0,2", "0,2,2", "1,2,2", "2,2,2", "3,2,2", "7,7,1", "9,9,1", "11,11,1",
               "13,13,1", "7,12,1", "9,13,1", "12,6,1"});
  const int block = h.AnswerMove();
  REQUIRE((block == 4 || block == 2 * 15 + 4));
  h.Send(block == 4 ? "TURN 4,2" : "TURN 4,0");
  REQUIRE(h.session.board()->terminal());
  const int answered = h.AnswerMove();
  // The manager plays on: the next TURN on the finished board gets a move too.
  const int next = answered == 7 * 15 + 8 ? 7 * 15 + 6 : 7 * 15 + 8;
  REQUIRE(h.session.board()->at(next) == kEmpty);
  h.Send(gz::FormatCoordinates(next, 15) == "8,7" ? "TURN 8,7" : "TURN 6,7");
  const int again = h.AnswerMove();
  CHECK(again != next);
  CHECK(h.session.board()->at(next) != kEmpty);
}

TEST_CASE("session: a GUI's START + BOARD each move keeps the search tree when the position extends the last") {
  // Yixin-Board sends `start 15` and the whole position before every engine
  // move: the tree of the last search must still be reused.
  Harness h(400);
  h.Send("INFO show_detail 2");  // the INFO blocks: BESTLINE names the reply the tree explored most
  h.Send("START 15");
  h.SendBoard({"7,7,2"});
  const int first = h.AnswerMove();
  std::string line;
  for (const std::string& l : h.out)
    if (l.starts_with("INFO BESTLINE ")) line = l.substr(14);
  std::istringstream pv(line);
  std::string own, reply;
  pv >> own >> reply;
  REQUIRE(own == gz::FormatCoordinates(first, 15));
  REQUIRE(!reply.empty());
  h.Send("START 15");
  REQUIRE(h.Answer() == "OK");
  h.Send("BOARD");
  h.Send("7,7,2");
  h.Send(own + ",1");
  h.Send(reply + ",2");
  h.Send("DONE");
  h.AnswerMove();
  REQUIRE(h.session.last_decision().has_value());
  CHECK(h.session.last_decision()->reused_visits > 0);
  // A position that does not extend the last one starts a new tree.
  h.Send("START 15");
  h.SendBoard({"0,0,2"});
  h.AnswerMove();
  CHECK(h.session.last_decision()->reused_visits == 0);
}
