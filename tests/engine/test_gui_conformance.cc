// The conformance table of docs/engine.md "What the GUIs send": each row
// replays the exact lines a program players use sends (read from their source:
// Piskvork's protocol page, the Gomocup manager `GomocupJudge`, the original
// Yixin-Board and dhbloo's line shipped with Rapfi) to the real
// pbrain-gomoku-zero binary over pipes, and judges every reply line the way
// that program parses it:
//   manager: a line `x,y` (two integers) is the move, MESSAGE is logged,
//     anything else is skipped while the clock runs (an ERROR where a move is
//     owed is a forfeit by time);
//   Yixin-Board (original): OK / MESSAGE / DETAIL / DEBUG / ERROR / UNKNOWN /
//     FORBID are known, every other line is read as a move;
//   Yixin-Board (dhbloo): the same plus INFO blocks; other lines are a move
//     only when they start with `%d,%d`.
// Liveness bounds (a reply within N seconds) are limits for a hung engine,
// never a measured speed.
//
// The same rows run on the Windows build under wine (tools/
// test_windows_engine.sh): GZ_ENGINE_COMMAND is then the command that starts
// the engine ("wine64 DIR/pbrain-gomoku-zero.exe") and GZ_ENGINE_PATH_PREFIX
// ("Z:") what makes a path of this machine one the engine can open.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <regex>
#include <sstream>
#include <thread>

#include "common/base/child_process.h"
#include "common/base/fileio.h"
#include "common/game/board.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"
#include "engine/gomocup_session.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/session_test_util.h"

using namespace gz;
using namespace gz::testing;
using namespace std::chrono_literals;

namespace {

enum class Gui { kManager, kYixinOriginal, kYixinRapfi };

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The command that starts the engine under test: GZ_ENGINE_COMMAND split on
// blanks, else the Linux binary of this build.
std::vector<std::string> EngineCommand() {
  const char* command = std::getenv("GZ_ENGINE_COMMAND");
  if (!command || !*command) return {EngineBinary()};
  std::istringstream words(command);
  return {std::istream_iterator<std::string>(words), {}};
}

// A scratch file's name, apart from the Linux run's when the rows run on the
// Windows build (both may run at once under ctest -j2).
std::string Scratch(const std::string& name) {
  const char* command = std::getenv("GZ_ENGINE_COMMAND");
  return TestTmpPath((command && *command ? "win_" : "") + name);
}

// A path of this machine as the engine under test opens it.
std::string EnginePath(const std::string& path) {
  const char* prefix = std::getenv("GZ_ENGINE_PATH_PREFIX");
  return (prefix ? prefix : "") + path;
}

std::string UpperCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// What `gui` makes of one reply line: a move (x, y as printed), or nothing.
std::optional<std::pair<int, int>> MoveAsParsed(Gui gui, const std::string& line) {
  if (gui == Gui::kManager) {
    static const std::regex move(R"(^\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*$)");
    std::smatch m;
    if (StartsWith(UpperCase(line), "MESSAGE") || !std::regex_match(line, m, move)) return std::nullopt;
    return std::make_pair(std::stoi(m[1]), std::stoi(m[2]));
  }
  const std::string u = UpperCase(line);
  for (const char* known : {"OK", "MESSAGE", "DETAIL", "DEBUG", "ERROR", "UNKNOWN", "FORBID"})
    if (StartsWith(u, known)) return std::nullopt;
  if (gui == Gui::kYixinRapfi && StartsWith(u, "INFO")) return std::nullopt;
  int x = 0, y = 0;
  if (std::sscanf(line.c_str(), "%d,%d", &x, &y) == 2) return std::make_pair(x, y);
  // The original line reads every unknown line as a move (sscanf unchecked):
  // a line it cannot parse is an illegal move there, which ends the game.
  if (gui == Gui::kYixinOriginal) return std::make_pair(-1, -1);
  return std::nullopt;
}

// The engine over pipes, its stderr kept apart (a GUI never reads it).

class EngineUnderGui {
 public:
  EngineUnderGui(Gui gui, std::vector<std::string> args, const std::string& tag,
                 const std::vector<std::string>& unset_env = {"GOMOKU_LOG_LEVEL"})
      : gui_(gui), stderr_path_(Scratch("gui_" + tag + ".stderr")) {
    std::filesystem::remove(stderr_path_);
    ChildOptions o = PipedTestChild(stderr_path_);
    o.unset_env = unset_env;
    std::vector<std::string> argv = EngineCommand();
    argv.insert(argv.end(), args.begin(), args.end());
    engine_ = std::make_unique<ChildProcess>(argv, o);
  }
  ~EngineUnderGui() {
    if (engine_->Poll() == std::nullopt) engine_->Kill();
  }

  // GomocupJudge ends lines with CRLF; Yixin-Board with LF.
  void Send(const std::string& line) { engine_->Write(line + (gui_ == Gui::kManager ? "\r\n" : "\n")); }
  void SendAll(const std::vector<std::string>& lines) {
    for (const auto& l : lines) Send(l);
  }
  // Reads lines until the GUI sees a move, up to `limit`; every line is kept.
  // nullopt: no move in time.
  std::optional<std::pair<int, int>> AwaitMove(std::chrono::milliseconds limit = 60000ms) {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left <= 0ms) return std::nullopt;
      auto line = engine_->ReadLine(left);
      if (!line) return std::nullopt;
      lines_.push_back(*line);
      if (auto m = MoveAsParsed(gui_, *line)) return m;
    }
  }
  // Every line that arrives within `wait` (for replies that are not moves).
  std::vector<std::string> Drain(std::chrono::milliseconds wait) {
    std::vector<std::string> got;
    while (auto line = engine_->ReadLine(wait)) {
      got.push_back(*line);
      lines_.push_back(*line);
    }
    return got;
  }
  // The `n` lines expected (each within `limit`, so a loaded machine is no
  // failure), then every further line that arrives within `quiet`: a reply
  // with more lines than expected still shows.
  std::vector<std::string> DrainAtLeast(size_t n, std::chrono::milliseconds quiet,
                                        std::chrono::milliseconds limit = 60000ms) {
    std::vector<std::string> got;
    while (got.size() < n) {
      auto line = engine_->ReadLine(limit);
      if (!line) return got;
      got.push_back(*line);
      lines_.push_back(*line);
    }
    for (const std::string& l : Drain(quiet)) got.push_back(l);
    return got;
  }
  std::string NextLine(std::chrono::milliseconds limit = 60000ms) {
    auto line = engine_->ReadLine(limit);
    REQUIRE(line);
    lines_.push_back(*line);
    return *line;
  }
  const std::vector<std::string>& lines() const { return lines_; }
  std::string Stderr() const { return FileExists(stderr_path_) ? ReadFileOrThrow(stderr_path_) : ""; }
  ChildProcess& process() { return *engine_; }

 private:
  Gui gui_;
  std::string stderr_path_;
  std::unique_ptr<ChildProcess> engine_;
  std::vector<std::string> lines_;
};

// The rollout baseline: fast, and it plays any size.
std::vector<std::string> Baseline() { return {"--settings", EnginePath(DefaultsOnlySettings())}; }

// A legal answer on the n x n board with `taken` stones.
void CheckLegal(const std::optional<std::pair<int, int>>& m, int n, const std::vector<std::pair<int, int>>& taken) {
  REQUIRE(m);
  CHECK(m->first >= 0);
  CHECK(m->second >= 0);
  CHECK(m->first < n);
  CHECK(m->second < n);
  for (auto& t : taken) CHECK(*m != t);
}

}  // namespace

TEST_CASE("conformance: dhbloo's Yixin-Board starts engine --force-utf8 and plays renju (rule 2)") {
  EngineUnderGui e(Gui::kYixinRapfi, {"--force-utf8", "--settings", EnginePath(DefaultsOnlySettings())}, "yb_rapfi");
  e.SendAll({"info show_detail 3", "yxshowinfo"});
  CHECK(e.NextLine() == "MESSAGE INFO MAX_THREAD_NUM " + std::to_string(std::max(1u, std::thread::hardware_concurrency())));
  CHECK(StartsWith(e.NextLine(), "MESSAGE INFO MAX_HASH_SIZE"));
  e.SendAll({"START 15", "INFO max_node 3000", "INFO timeout_turn 2000000", "INFO timeout_match 100000000",
             "INFO time_left 100000000", "INFO max_depth 225", "INFO time_increment 0", "INFO caution_factor 1",
             "INFO thread_num 1", "INFO hash_size 524288", "INFO pondering 0", "INFO vcthread 0", "INFO rule 2"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"INFO time_left 100000000", "start 15", "board", "7,7,2", "done", "INFO time_left 100000000",
             "yxquerydatabaseallt", "7,7", "done"});
  CHECK(e.NextLine() == "OK");  // the second START
  const auto m = e.AwaitMove();
  CheckLegal(m, 15, {{7, 7}});
  // Analysis lines came first, as its parser reads them, and INFO keys all had a value.
  bool pv = false;
  for (const std::string& l : e.lines())
    if (StartsWith(l, "INFO ")) {
      pv = true;
      CHECK(l.find(' ', 5) != std::string::npos);
    }
  CHECK(pv);
  e.Send("end");
  CHECK(e.process().WaitExit(30000ms) == 0);
  CHECK(e.Stderr().empty());
}

TEST_CASE("conformance: the original Yixin-Board (START w h, show_detail 1) reads only known lines and one move") {
  EngineUnderGui e(Gui::kYixinOriginal, Baseline(), "yb_original");
  e.SendAll({"info show_detail 1", "yxshowinfo", "START 15 15", "INFO timeout_turn 1000", "INFO timeout_match 1000000000",
             "INFO time_left 1000000000", "INFO max_node 2000", "INFO caution_factor 1", "INFO thread_num 1",
             "INFO hash_size 524288", "INFO pondering 0", "INFO checkmate 1", "INFO rule 0"});
  const std::vector<std::string> start = e.DrainAtLeast(3, 2000ms);
  REQUIRE(start.size() == 3);  // two MESSAGE INFO lines and OK: nothing a move parser could take
  CHECK(start[2] == "OK");
  e.SendAll({"start 15 15", "board", "7,7,2", "8,8,1", "8,7,2", "done"});
  CHECK(e.NextLine() == "OK");
  const auto m = e.AwaitMove();
  CheckLegal(m, 15, {{7, 7}, {8, 8}, {8, 7}});
  for (const std::string& l : e.lines()) CHECK_FALSE(StartsWith(l, "INFO"));
  // A rectangle is refused by name, as other engines do.
  e.Send("START 15 20");
  CHECK(StartsWith(e.NextLine(), "ERROR rectangular boards are not supported"));
  e.Send("end");
  CHECK(e.process().WaitExit(30000ms) == 0);
}

TEST_CASE("conformance: Yixin-Board's stop and new game end a search with exactly one move line") {
  EngineUnderGui e(Gui::kYixinRapfi, Baseline(), "yb_stop");
  // Its analysis level: no time limit, no node limit -- only yxstop ends the search.
  e.SendAll({"info show_detail 0", "START 15", "INFO max_node -1", "INFO timeout_turn 2000000",
             "INFO timeout_match 100000000", "INFO time_left 100000000"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"start 15", "board", "7,7,2", "done"});
  CHECK(e.NextLine() == "OK");
  std::this_thread::sleep_for(300ms);
  e.Send("yxstop");
  CheckLegal(e.AwaitMove(30000ms), 15, {{7, 7}});
  // New game while thinking (dhbloo's new_game sends no yxstop): START ends it.
  e.SendAll({"start 15", "board", "7,7,2", "8,8,1", "done"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"start 15"});  // the GUI's next position arrives: the running search answers
  CheckLegal(e.AwaitMove(30000ms), 15, {{7, 7}, {8, 8}});
  CHECK(e.NextLine() == "OK");
  // Exactly one move each time: nothing else is waiting.
  for (const std::string& l : e.Drain(1000ms)) CHECK_FALSE(MoveAsParsed(Gui::kYixinRapfi, l));
  e.Send("end");
  CHECK(e.process().WaitExit(30000ms) == 0);
}

TEST_CASE("conformance: Yixin-Board's block list survives START, undo removes a point") {
  EngineUnderGui e(Gui::kYixinRapfi, {"--player", "classical:2000"}, "yb_block");
  e.SendAll({"START 15", "INFO timeout_turn 500", "yxblock", "7,7", "done", "yxblock", "7,8", "done", "yxblockundo",
             "7,8", "done"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"start 15", "board", "done"});  // an empty board: the centre is the natural move
  CHECK(e.NextLine() == "OK");
  const auto m = e.AwaitMove();
  CheckLegal(m, 15, {{7, 7}});
  e.Send("end");
  CHECK(e.process().WaitExit(30000ms) == 0);
}

TEST_CASE("conformance: Yixin-Board's swap2 steps answer in the grammar it parses") {
  EngineUnderGui e(Gui::kYixinRapfi, Baseline(), "yb_swap2");
  e.SendAll({"START 15", "INFO timeout_turn 300", "INFO rule 1"});
  CHECK(e.NextLine() == "OK");
  const std::regex stone(R"(^MESSAGE SWAP2 MOVE([1-5]) (\d+) (\d+)$)");
  e.Send("yxswap2step1");
  std::vector<std::pair<int, int>> three;
  for (int i = 1; i <= 3; ++i) {
    const std::string l = e.NextLine();
    std::smatch m;
    REQUIRE(std::regex_match(l, m, stone));
    CHECK(m[1] == std::to_string(i));
    three.emplace_back(std::stoi(m[2]), std::stoi(m[3]));
  }
  CHECK(three[0] != three[1]);
  CHECK(three[1] != three[2]);
  CHECK(three[0] != three[2]);
  e.SendAll({"start 15", "yxboard", "7,7,2", "7,8,1", "8,9,2", "done", "yxswap2step2"});
  CHECK(e.NextLine() == "OK");
  const std::string a = e.NextLine();
  if (StartsWith(a, "MESSAGE SWAP2 MOVE4 ")) {
    std::smatch m;
    CHECK(std::regex_match(a, m, stone));
    const std::string b = e.NextLine();
    CHECK(std::regex_match(b, m, stone));
    CHECK(m[1] == "5");
  } else {
    CHECK((a == "MESSAGE SWAP2 SWAP1 YES" || a == "MESSAGE SWAP2 SWAP1 NO"));
  }
  e.SendAll({"start 15", "yxboard", "7,7,2", "7,8,1", "8,9,2", "6,6,1", "9,9,2", "done", "yxswap2step3"});
  CHECK(e.NextLine() == "OK");
  const std::string c = e.NextLine();
  CHECK((c == "MESSAGE SWAP2 SWAP2 YES" || c == "MESSAGE SWAP2 SWAP2 NO"));
  e.Send("end");
  CHECK(e.process().WaitExit(30000ms) == 0);
}

TEST_CASE("conformance: Yixin-Board's balance, database, draw and resign commands") {
  EngineUnderGui e(Gui::kYixinRapfi, Baseline(), "yb_misc");
  e.SendAll({"START 15", "INFO timeout_turn 300"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"start 15", "yxboard", "7,7,2", "done", "yxbalanceone 0"});
  CHECK(e.NextLine() == "OK");
  CheckLegal(e.AwaitMove(), 15, {{7, 7}});
  e.SendAll({"yxbalancetwo 0"});
  const std::string two = e.NextLine();
  int x1, y1, x2, y2;
  REQUIRE(std::sscanf(two.c_str(), "%d,%d %d,%d", &x1, &y1, &x2, &y2) == 4);
  CHECK(std::make_pair(x1, y1) != std::make_pair(x2, y2));
  // No database here: the queries get no answer, their lines are no commands;
  // draw and resign are noted; the database editor's commands get one ERROR.
  e.SendAll({"yxquerydatabaseallt", "7,7", "done", "yxquerydatabaseone", "7,7", "done", "yxdraw", "yxresign",
             "yxedittextdatabase \"abc\"7,7", "done", "yxsetdatabase", "C:\\db.db", "yxshowforbid"});
  const std::vector<std::string> got = e.DrainAtLeast(3, 2000ms);
  REQUIRE(got.size() == 3);
  CHECK(StartsWith(got[0], "ERROR YXEDITTEXTDATABASE"));
  CHECK(StartsWith(got[1], "ERROR YXSETDATABASE"));
  CHECK(got[2] == "FORBID .");
  e.Send("end");
  CHECK(e.process().WaitExit(30000ms) == 0);
}

TEST_CASE("conformance: the manager's game never gets an ERROR where a move is owed") {
  // Caro as the manager judges rule 8: our overline-making point wins (the
  // engine takes it), and a BOARD that our rule reads as finished still gets
  // a move.
  EngineUnderGui e(Gui::kManager, Baseline(), "manager");
  e.SendAll({"START 15", "INFO timeout_turn 1000", "INFO timeout_match 180000", "INFO max_memory 367001600",
             "INFO game_type 1", "INFO rule 8", "INFO folder C:\\tmp"});
  CHECK(e.NextLine() == "OK");
  // Ours (1) on row 7 at x=1..3 and 5..6: 4,7 makes six, which wins under rule 8.
  e.SendAll({"INFO time_left 180000", "BOARD", "1,7,1", "1,1,2", "2,7,1", "3,3,2", "3,7,1", "5,5,2", "5,7,1",
             "9,9,2", "6,7,1", "11,11,2", "DONE"});
  auto m = e.AwaitMove(20000ms);
  REQUIRE(m);
  CHECK(*m == std::make_pair(4, 7));
  // A position that already has the opponent's five: still a move, no ERROR.
  e.SendAll({"INFO time_left 170000", "BOARD", "0,0,2", "1,0,2", "2,0,2", "3,0,2", "4,0,2", "7,7,1", "8,8,1",
             "9,9,1", "10,10,1", "DONE"});
  m = e.AwaitMove(20000ms);
  CheckLegal(m, 15, {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {7, 7}, {8, 8}, {9, 9}, {10, 10}});
  for (const std::string& l : e.lines()) CHECK_FALSE(StartsWith(l, "ERROR"));
  e.Send("END");
  CHECK(e.process().WaitExit(30000ms) == 0);
  CHECK(e.Stderr().empty());
}

TEST_CASE("conformance: nothing after END, even when END interrupts a search") {
  EngineUnderGui e(Gui::kManager, Baseline(), "end");
  e.SendAll({"START 15", "INFO timeout_turn 100000", "INFO max_node -1"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"BOARD", "7,7,2", "DONE"});
  std::this_thread::sleep_for(200ms);
  e.Send("END");
  REQUIRE(e.process().WaitExit(30000ms) == 0);
  for (const std::string& l : e.Drain(100ms)) CHECK_FALSE(MoveAsParsed(Gui::kManager, l));
}

TEST_CASE("conformance: a broken settings file or net is a MESSAGE and play goes on") {
  const std::string dir = Scratch("gui_broken");
  std::filesystem::create_directories(dir);
  WriteFileAtomic(dir + "/broken.json", "{\"weights\": ");
  EngineUnderGui bad(Gui::kManager, {"--settings", EnginePath(dir + "/broken.json")}, "broken_settings");
  CHECK(StartsWith(bad.NextLine(), "MESSAGE engine settings: "));
  bad.SendAll({"START 15", "INFO timeout_turn 500"});
  CHECK(bad.NextLine() == "OK");
  bad.SendAll({"BOARD", "7,7,2", "DONE"});
  CheckLegal(bad.AwaitMove(), 15, {{7, 7}});
  for (const std::string& l : bad.lines()) CHECK_FALSE(StartsWith(l, "ERROR"));
  bad.Send("END");
  CHECK(bad.process().WaitExit(30000ms) == 0);

  WriteFileAtomic(dir + "/not_a_net.pt", "not a checkpoint");
  EngineUnderGui net(Gui::kManager, {"--settings", EnginePath(DefaultsOnlySettings()), "--weights", EnginePath(dir + "/not_a_net.pt")},
                     "broken_net");
  net.SendAll({"START 15", "INFO timeout_turn 500"});
  const std::string message = net.NextLine();
  CHECK(StartsWith(message, "MESSAGE cannot load weights"));
  CHECK(message.find("plays instead") != std::string::npos);
  CHECK(net.NextLine() == "OK");
  net.SendAll({"BOARD", "7,7,2", "DONE"});
  CheckLegal(net.AwaitMove(), 15, {{7, 7}});
  net.Send("END");
  CHECK(net.process().WaitExit(30000ms) == 0);
}

TEST_CASE("conformance: the bare engine plays the shipped nets from any folder; the baseline only when asked") {
  const std::string log = Scratch("gui_bare.log");
  std::filesystem::remove(log);
  // No settings file, no --weights: as qpiskvork or a Linux Yixin-Board start it.
  EngineUnderGui e(Gui::kManager, {"--log-file", EnginePath(log)}, "bare");
  e.SendAll({"START 15", "INFO timeout_turn 300"});
  CHECK(e.NextLine() == "OK");
  e.SendAll({"BOARD", "7,7,2", "DONE"});
  CheckLegal(e.AwaitMove(), 15, {{7, 7}});
  e.Send("END");
  CHECK(e.process().WaitExit(30000ms) == 0);
  const std::string text = ReadFileOrThrow(log);
  CHECK(text.find("gz-15x15-freestyle-") != std::string::npos);
  CHECK(text.find("baseline") == std::string::npos);
  CHECK(e.Stderr().empty());

  const std::string log2 = Scratch("gui_baseline.log");
  std::filesystem::remove(log2);
  EngineUnderGui b(Gui::kManager, {"--weights", "none", "--log-file", EnginePath(log2)}, "baseline");
  b.SendAll({"START 15", "END"});
  CHECK(b.NextLine() == "OK");
  CHECK(b.process().WaitExit(30000ms) == 0);
  CHECK(ReadFileOrThrow(log2).find("baseline") != std::string::npos);
}

TEST_CASE("conformance: INFO rule values as Yixin-Board and the manager mean them") {
  struct Row {
    long long value;
    Rule rule;
  };
  for (const Row& r : {Row{0, Rule::kFreestyle}, Row{1, Rule::kStandard}, Row{2, Rule::kRenju}, Row{3, Rule::kStandard},
                       Row{4, Rule::kRenju}, Row{5, Rule::kRenju}, Row{8, Rule::kCaroOverline}, Row{9, Rule::kCaro},
                       Row{10, Rule::kCaroOverline}, Row{12, Rule::kRenju}}) {
    INFO("INFO rule " << r.value);
    CHECK(RuleOfInfoValue(r.value) == r.rule);
  }
}

TEST_CASE("conformance: a brain suspended between moves survives the SIGHUP of an orphaned process group") {
  // Linux sends SIGHUP (then SIGCONT) to the stopped members of a process
  // group that a manager's exit leaves orphaned; the manager suspends the
  // brain between moves, so the brain must outlive it.  POSIX only: the
  // Windows build under wine is a wine process, and Windows has no SIGHUP.
  const char* command = std::getenv("GZ_ENGINE_COMMAND");
  if (command && *command) return;
  EngineUnderGui e(Gui::kManager, Baseline(), "sighup");
  e.SendAll({"START 15", "INFO timeout_turn 300"});
  CHECK(e.NextLine() == "OK");
  e.process().Signal(SIGSTOP);
  e.process().Signal(SIGHUP);
  e.process().Signal(SIGCONT);
  e.SendAll({"BOARD", "7,7,2", "DONE"});
  CheckLegal(e.AwaitMove(), 15, {{7, 7}});
  e.Send("END");
  CHECK(e.process().WaitExit(30000ms) == 0);
}
