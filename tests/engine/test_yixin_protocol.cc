// Yixin-Board's extensions of the Gomocup protocol (docs/engine.md
// "Analysis"): transcripts of the command sequences Yixin-Board sends to
// analyse, ask for the n best moves, stop, block moves and show forbidden
// points, replayed against the real session (rollout baseline, so no net is
// needed) and against the binary over pipes for YXSTOP.  Every reply line is
// checked against the grammar Yixin-Board parses; malformed extension
// commands must answer ERROR naming the command and leave the board alone.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "common/game/renju.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/session_test_util.h"
#include "common/harness/test_process.h"

using namespace gz;
using namespace std::chrono_literals;

namespace yixin_test {

// One reply line of the engine in Yixin mode must be one of these.
bool LineMatchesGrammar(const std::string& l, int size) {
  static const std::regex kForms[] = {
      std::regex(R"(MESSAGE REALTIME (POS|DONE|LOSE|BEST) (\d+),(\d+))"),
      std::regex(R"(MESSAGE REALTIME REFRESH)"),
      std::regex(R"(MESSAGE INFO (MAX_THREAD_NUM|MAX_HASH_SIZE) \d+)"),
      std::regex(R"(MESSAGE [^\r\n]+)"),
      std::regex(R"(INFO PV (\d+|DONE))"),
      std::regex(R"(INFO (NUMPV|DEPTH|SELDEPTH|NODES|TOTALNODES|TOTALTIME|SPEED) \d+)"),
      std::regex(R"(INFO EVAL (-?\d+|[+-]M\d+))"),
      std::regex(R"(INFO WINRATE [01]\.\d{4})"),
      std::regex(R"(INFO BESTLINE \d+,\d+( \d+,\d+)*)"),
      std::regex(R"(FORBID (\d{4})*\.)"),
      std::regex(R"((\d+),(\d+))"),
      std::regex(R"(ERROR [^\r\n]+)"),
      std::regex(R"(OK)"),
  };
  for (const std::regex& form : kForms) {
    std::smatch m;
    if (!std::regex_match(l, m, form)) continue;
    // Every coordinate on the line lies on the board.
    static const std::regex kPoint(R"((\d+),(\d+))");
    if (l.starts_with("ERROR ") || (l.starts_with("MESSAGE ") && !l.starts_with("MESSAGE REALTIME"))) return true;
    for (auto it = std::sregex_iterator(l.begin(), l.end(), kPoint); it != std::sregex_iterator(); ++it)
      if (std::stoi((*it)[1]) >= size || std::stoi((*it)[2]) >= size) return false;
    return true;
  }
  return false;
}

// The INFO lines of `lines` form whole blocks: INFO PV i, the ten keys in
// order, INFO PV DONE; i counts 0..NUMPV-1 within a report.  Returns the
// number of blocks; `last_numpv` gets the NUMPV of the last one.
int CheckInfoBlocks(const std::vector<std::string>& lines, int* last_numpv = nullptr) {
  static const char* kKeys[] = {"NUMPV", "DEPTH", "SELDEPTH", "NODES", "TOTALNODES", "TOTALTIME", "SPEED",
                                "EVAL", "WINRATE", "BESTLINE"};
  int blocks = 0, expected_index = 0, numpv = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("INFO ")) continue;
    INFO("line " << i << ": " << lines[i]);
    REQUIRE(lines[i].starts_with("INFO PV "));
    const int index = std::stoi(lines[i].substr(8));
    if (index == 0) expected_index = 0;
    REQUIRE(index == expected_index);
    for (size_t k = 0; k < std::size(kKeys); ++k) {
      REQUIRE(i + 1 + k < lines.size());
      REQUIRE(lines[i + 1 + k].starts_with(std::string("INFO ") + kKeys[k] + " "));
    }
    numpv = std::stoi(lines[i + 1].substr(11));
    REQUIRE(index < numpv);
    REQUIRE(i + 11 < lines.size());
    REQUIRE(lines[i + 11] == "INFO PV DONE");
    i += 11;
    ++expected_index;
    ++blocks;
  }
  if (last_numpv) *last_numpv = numpv;
  return blocks;
}

// The session over the rollout baseline (solver on), collecting the live
// lines and the replies of every command in one transcript.
struct YixinHarness {
  EngineSettings settings = gz::testing::SolverOnEngineSettings();
  EvaluatorSource source{settings.weights, settings.config};
  SearchPlayer player{source, settings.config};
  GomocupSession session{player, 400};
  std::vector<std::string> out;        // replies of the last command
  std::vector<std::string> transcript; // every line, live ones included

  YixinHarness() {
    session.set_live_output([this](const std::string& l) { transcript.push_back(l); });
  }
  void Send(const std::string& line) {
    out.clear();
    session.Handle(line, std::chrono::steady_clock::now(), out);
    transcript.insert(transcript.end(), out.begin(), out.end());
  }
  void SendAll(const std::vector<std::string>& lines) {
    for (const std::string& l : lines) Send(l);
  }
  void CheckGrammar() const {
    const int size = session.board() ? session.board()->size() : 15;
    for (const std::string& l : transcript) {
      INFO("line: " << l);
      CHECK(LineMatchesGrammar(l, size));
    }
  }
  std::vector<int8_t> Cells() const { return session.board()->cells(); }
};

// What dhbloo's Yixin-Board sends when it starts an engine (its init_engine
// order; show_detail 3: the REALTIME marks and the INFO blocks).
const std::vector<std::string> kHandshake = {"info show_detail 3", "yxshowinfo",           "info thread_num 1",    "info hash_size 19",
                                             "info max_node 400",    "info max_depth 225",   "info caution_factor 4",
                                             "info pondering 0",     "info timeout_match 0", "info timeout_turn 60000",
                                             "info rule 0",          "start 15"};

}  // namespace yixin_test

using namespace yixin_test;

TEST_CASE("yixin: the handshake answers YXSHOWINFO and maps or ignores the INFO keys") {
  YixinHarness h;
  h.Send("yxshowinfo");
  REQUIRE(h.out.size() == 2);
  CHECK(std::regex_match(h.out[0], std::regex(R"(MESSAGE INFO MAX_THREAD_NUM [1-9]\d*)")));
  CHECK(std::regex_match(h.out[1], std::regex(R"(MESSAGE INFO MAX_HASH_SIZE \d+)")));
  CHECK(h.session.show_detail() == 0);  // YXSHOWINFO alone asks for no analysis lines
  h.Send("info show_detail 1");
  CHECK(h.session.show_detail() == 1);
  h.SendAll({"info thread_num 3", "info hash_size 19", "info max_depth 225", "info caution_factor 4",
             "info pondering 1"});
  CHECK(h.player.threads() == 3);
  h.SendAll(kHandshake);
  CHECK((h.out == std::vector<std::string>{"OK"}));
  CHECK(h.player.threads() == 1);
  h.CheckGrammar();
}

TEST_CASE("yixin: analyse -- BOARD in Yixin mode reports whole PV blocks before the move") {
  YixinHarness h;
  h.SendAll(kHandshake);
  h.SendAll({"board", "7,7,2", "8,8,1", "7,8,2", "done"});
  const std::vector<std::string> reply = h.out;
  REQUIRE(reply.size() >= 14);
  // The final report, the MESSAGE, then the move.
  CHECK(std::regex_match(reply.back(), std::regex(R"(\d+,\d+)")));
  CHECK(reply[reply.size() - 2].starts_with("MESSAGE "));
  const bool refreshed =
      std::find(h.transcript.begin(), h.transcript.end(), "MESSAGE REALTIME REFRESH") != h.transcript.end();
  CHECK(refreshed);
  int numpv = 0;
  CHECK(CheckInfoBlocks(reply, &numpv) == 1);
  CHECK(numpv == 1);
  // The block's first BESTLINE move is the move played.
  const auto best = std::find_if(reply.begin(), reply.end(), [](auto& l) { return l.starts_with("INFO BESTLINE "); });
  REQUIRE(best != reply.end());
  CHECK(best->substr(14, reply.back().size()) == reply.back());
  CheckInfoBlocks(h.transcript);
  h.CheckGrammar();
}

TEST_CASE("yixin: n-best -- YXBOARD sets the position silently, YXNBEST 3 reports three lines and plays nothing") {
  YixinHarness h;
  h.SendAll(kHandshake);
  h.SendAll({"yxboard", "7,7,2", "8,8,1", "done"});
  CHECK(h.out.empty());
  REQUIRE(h.session.board()->move_count() == 2);
  CHECK(h.session.board()->to_move() == kBlack);
  const auto before = h.Cells();
  h.Send("yxnbest 3");
  int numpv = 0;
  CHECK(CheckInfoBlocks(h.out, &numpv) == 3);
  CHECK(numpv == 3);
  CHECK(std::regex_match(h.out.back(), std::regex(R"(\d+,\d+)")));
  CHECK((h.Cells() == before));  // analysis only
  // The three lines start with three different moves.
  std::vector<std::string> firsts;
  for (const auto& l : h.out)
    if (l.starts_with("INFO BESTLINE ")) firsts.push_back(l.substr(14, l.find(' ', 14) - 14));
  REQUIRE(firsts.size() == 3);
  CHECK((firsts[0] != firsts[1]));
  CHECK((firsts[1] != firsts[2]));
  CHECK((firsts[0] != firsts[2]));
  h.CheckGrammar();
}

TEST_CASE("yixin: block -- YXBLOCK keeps every search off the points until YXBLOCKRESET") {
  YixinHarness h;
  h.SendAll(kHandshake);
  // Black (to move) has an immediate five at 7,3 (column 7, rows 4..7 black).
  h.SendAll({"yxboard", "7,4,1", "7,5,1", "7,6,1", "7,7,1", "1,1,2", "3,1,2", "5,1,2", "9,1,2", "done"});
  REQUIRE(h.out.empty());
  h.SendAll({"yxblock", "7,3", "7,8", "done"});
  CHECK(h.out.empty());
  CHECK(h.session.blocked().size() == 2);
  h.Send("yxnbest 2");
  const std::string move = h.out.back();
  REQUIRE(std::regex_match(move, std::regex(R"(\d+,\d+)")));
  CHECK(move != "7,3");
  CHECK(move != "7,8");
  for (const auto& l : h.out) {
    INFO(l);
    CHECK(l.find(" 7,3") == std::string::npos);
    CHECK(l.find(" 7,8") == std::string::npos);
  }
  h.Send("yxblockreset");
  CHECK(h.out.empty());
  h.Send("yxnbest 1");
  CHECK((h.out.back() == "7,3" || h.out.back() == "7,8"));
  h.CheckGrammar();
}

TEST_CASE("yixin: forbidden points -- YXSHOWFORBID lists black's renju fouls as XXYY pairs") {
  YixinHarness h;
  // Yixin-Board numbers its rules 0 freestyle, 1 standard, 2 renju.
  std::vector<std::string> renju = kHandshake;
  std::replace(renju.begin(), renju.end(), std::string("info rule 0"), std::string("info rule 2"));
  h.SendAll(renju);
  REQUIRE(h.session.rule() == Rule::kRenju);
  // Black: 6,7 7,7 (row 7) and 8,5 8,6 (column 8): 8,7 is a double three.
  h.SendAll({"yxboard", "6,7,1", "7,7,1", "8,5,1", "8,6,1", "0,0,2", "0,14,2", "14,0,2", "14,14,2", "done"});
  REQUIRE(h.out.empty());
  const auto before = h.Cells();
  h.Send("yxshowforbid");
  REQUIRE(h.out.size() == 1);
  std::string expected = "FORBID ";
  for (int p : ForbiddenPoints(*h.session.board())) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%02d%02d", p % 15, p / 15);
    expected += buf;
  }
  CHECK(h.out[0] == expected + ".");
  CHECK(h.out[0].find("0807") != std::string::npos);
  CHECK((h.Cells() == before));
  // White to move: nothing is forbidden.
  h.SendAll({"yxboard", "6,7,2", "7,7,2", "8,5,2", "8,6,2", "0,0,1", "0,14,1", "14,0,1", "done"});
  REQUIRE(h.out.empty());
  h.Send("yxshowforbid");
  CHECK((h.out == std::vector<std::string>{"FORBID ."}));
  h.CheckGrammar();
}

TEST_CASE("yixin: a proven win is reported as a distance, never as a win rate short of 1") {
  YixinHarness h;
  h.SendAll(kHandshake);
  // Black's four-three: 6,5 is a four (five point 7,5) and an open three on
  // column 6; then 6,8 makes an open four.  B W B W B: five plies.
  h.SendAll({"board", "3,5,1", "4,5,1", "5,5,1", "6,6,1", "6,7,1", "2,5,2", "0,0,2", "14,0,2", "0,14,2", "14,14,2",
             "done"});
  const std::vector<std::string> reply = h.out;
  INFO([&] {
    std::string all;
    for (auto& l : reply) all += l + "\n";
    return all;
  }());
  REQUIRE(reply.size() >= 2);
  CHECK(reply.back() == "6,5");
  CHECK(std::regex_match(reply[reply.size() - 2], std::regex(R"(MESSAGE proven win in 5 plies: 6,5 .*)")));
  CHECK(std::find(reply.begin(), reply.end(), "INFO EVAL +M5") != reply.end());
  CHECK(std::find(reply.begin(), reply.end(), "INFO WINRATE 1.0000") != reply.end());
  for (const auto& l : reply) CHECK(!l.starts_with("INFO WINRATE 0.99"));
  h.CheckGrammar();
}

TEST_CASE("yixin: malformed or unknown extension commands answer ERROR naming the command; the board stays") {
  YixinHarness h;
  h.SendAll(kHandshake);
  h.SendAll({"yxboard", "7,7,2", "8,8,1", "done"});
  const auto before = h.Cells();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"yxnbest"}, "ERROR YXNBEST"},
      {{"yxnbest many"}, "ERROR YXNBEST"},
      {{"yxnbest 0"}, "ERROR YXNBEST"},
      {{"yxfrobnicate"}, "ERROR YXFROBNICATE"},
      {{"yxshowforbid now"}, "ERROR YXSHOWFORBID"},
      {{"yxboard", "7,7", "done"}, "ERROR YXBOARD"},
      {{"yxboard", "99,1,1", "done"}, "ERROR YXBOARD"},
      {{"yxboard extra", "1,1,1", "done"}, "ERROR YXBOARD"},
      {{"yxblock", "7", "done"}, "ERROR YXBLOCK"},
      {{"yxblock", "20,3", "done"}, "ERROR YXBLOCK"},
  };
  for (const auto& [lines, prefix] : cases) {
    h.SendAll(lines);
    INFO("sent: " << lines.front());
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0].starts_with(prefix));
    CHECK((h.Cells() == before));
    CHECK(h.session.blocked().empty());
  }
  // Still in step: a valid command after the errors works.
  h.Send("yxnbest 1");
  CHECK(std::regex_match(h.out.back(), std::regex(R"(\d+,\d+)")));
  h.CheckGrammar();
}

TEST_CASE("yixin: stop -- the binary streams analysis while thinking and YXSTOP makes it answer at once") {
  using gz::testing::EngineBinary;
  ChildProcess engine({EngineBinary(), "--settings", gz::testing::DefaultsOnlySettings()},
                      gz::testing::PipedTestChild(gz::testing::TestTmpPath("yixin_stop.stderr")));
  std::vector<std::string> lines;
  auto read = [&](std::chrono::milliseconds timeout) {
    auto l = engine.ReadLine(timeout);
    INFO("eof=" << engine.eof());
    REQUIRE(l.has_value());
    lines.push_back(*l);
    return *l;
  };
  for (const char* c : {"info show_detail 3", "yxshowinfo", "info timeout_match 0", "info timeout_turn 120000", "info max_node 0",
                        "info rule 0", "start 15"})
    engine.WriteLine(c);
  CHECK(read(60000ms).starts_with("MESSAGE INFO MAX_THREAD_NUM "));
  CHECK(read(5000ms).starts_with("MESSAGE INFO MAX_HASH_SIZE "));
  CHECK(read(5000ms) == "OK");
  // Analyse: a position, then a search of up to two minutes.
  for (const char* c : {"board", "7,7,2", "8,8,1", "7,8,2", "done"}) engine.WriteLine(c);
  // Live analysis arrives while the search runs ...
  while (!read(30000ms).starts_with("INFO PV DONE")) {
  }
  const size_t live = lines.size();
  engine.WriteLine("yxstop");
  // ... and YXSTOP ends it: the final report, the MESSAGE, the move.
  while (!std::regex_match(read(30000ms), std::regex(R"(\d+,\d+)"))) {
  }
  CHECK(lines.size() > live);
  CHECK(CheckInfoBlocks(lines) >= 2);
  for (const std::string& l : lines) {
    INFO("line: " << l);
    CHECK(LineMatchesGrammar(l, 15));
  }
  // The engine is still in step after the stop: a malformed command, then a turn.
  engine.WriteLine("yxnbest x");
  CHECK(read(5000ms).starts_with("ERROR YXNBEST"));
  engine.WriteLine("end");
  CHECK((engine.WaitExit(30000ms) == std::optional<int>(0)));
}
