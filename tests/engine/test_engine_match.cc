// The engine with a real (tiny, random) checkpoint, and full games between
// two engine processes driven by a minimal manager.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "common/game/board.h"
#include "common/base/fileio.h"
#include "common/net/net_api.h"
#include "common/base/child_process.h"
#include "engine/gomocup_session.h"
#include "tests/engine/engine_test_util.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"

using namespace gz;
using namespace gz::testing;
using namespace std::chrono_literals;

namespace {

// The 9x9, 8-channel, 1-block checkpoint shared by the tests here.
std::string TinyCheckpoint() {
  static const std::string path = [] {
    std::string p = TestTmpPath("engine_tiny_9x9.ckpt");
    CreateRandomCheckpoint(p, 9, Rule::kFreestyle, 8, 1, /*seed=*/11, /*iteration=*/3, /*model_generation=*/3);
    return p;
  }();
  return path;
}

// Next non-MESSAGE line within 5 s (60 s for the first reply of a process,
// which includes starting it and loading LibTorch).
std::string Reply(ChildProcess& e, std::chrono::milliseconds timeout = 5000ms) {
  for (;;) {
    auto line = e.ReadLine(timeout);
    INFO("no reply within " << timeout.count() << " ms");
    REQUIRE(line.has_value());
    if (!line->starts_with("MESSAGE")) return *line;
  }
}

int ParseMove(const std::string& reply, const Board& board) {
  INFO("reply: " << reply);
  REQUIRE(std::regex_match(reply, std::regex(R"(\d+,\d+)")));
  auto xy = ParseCoordinates(reply);
  REQUIRE(xy.has_value());
  REQUIRE(xy->first < board.size());
  REQUIRE(xy->second < board.size());
  const int m = xy->second * board.size() + xy->first;
  REQUIRE(board.IsLegal(m));
  return m;
}

void EndAndReap(ChildProcess& e) {
  e.WriteLine("END");
  auto code = e.WaitExit(10000ms);
  REQUIRE(code.has_value());
  REQUIRE(*code == 0);
}

// A full 9x9 game between two engine processes started with `black` and
// `white` (argv), short turns; the board at the end.  Every reply must be a
// legal move; the game must end by the rules.
Board PlayFullGame(const std::vector<std::string>& black_argv, const std::vector<std::string>& white_argv,
                   const std::string& name) {
  ChildProcess black(black_argv, PipedTestChild(TestTmpPath(name + "_black.stderr")));
  ChildProcess white(white_argv, PipedTestChild(TestTmpPath(name + "_white.stderr")));
  ChildProcess* engines[2] = {&black, &white};
  for (ChildProcess* e : engines) {
    e->WriteLine("INFO timeout_turn 100");
    e->WriteLine("INFO timeout_match 60000");
    e->WriteLine("INFO rule 0");
    e->WriteLine("START 9");
    REQUIRE(Reply(*e, 60000ms) == "OK");
  }
  Board board(9, Rule::kFreestyle);
  black.WriteLine("BEGIN");
  int move = ParseMove(Reply(black), board);
  board.Play(move);
  int side = 1;  // white answers next
  std::vector<std::string> record{FormatCoordinates(move, 9)};
  while (!board.terminal()) {
    ChildProcess& e = *engines[side];
    e.WriteLine("INFO time_left 60000");
    e.WriteLine("TURN " + FormatCoordinates(move, 9));
    move = ParseMove(Reply(e), board);
    board.Play(move);
    record.push_back(FormatCoordinates(move, 9));
    side = 1 - side;
  }
  std::string moves;
  for (auto& m : record) moves += m + " ";
  INFO("moves: " << moves);
  REQUIRE(board.terminal());
  REQUIRE(static_cast<int>(record.size()) <= 81);
  const bool full = board.move_count() == 81;
  const bool five = board.outcome() == Outcome::kBlackWins || board.outcome() == Outcome::kWhiteWins;
  REQUIRE((five || (full && board.outcome() == Outcome::kDraw)));
  WARN(name << ": game over after " << record.size() << " moves: "
            << (board.outcome() == Outcome::kBlackWins   ? "black wins"
                : board.outcome() == Outcome::kWhiteWins ? "white wins"
                                                         : "draw"));
  EndAndReap(black);
  EndAndReap(white);
  return board;
}

}  // namespace

TEST_CASE("checkpoint engine: plays only the size it was trained for") {
  const std::string ckpt = TinyCheckpoint();
  ChildProcess e({EngineBinary(), "--settings", DefaultsOnlySettings(), "--weights", ckpt, "--set", "inference.device=cpu"},
                 PipedTestChild(TestTmpPath("engine_match.stderr")));
  e.WriteLine("INFO timeout_turn 300");
  e.WriteLine("START 15");
  // Not its size: the game goes to the classical player, said in a MESSAGE.
  const auto said = e.ReadLine(60000ms);
  REQUIRE(said.has_value());
  INFO(*said);
  REQUIRE(said->starts_with("MESSAGE board size 15 is not supported"));
  REQUIRE(said->find("9x9") != std::string::npos);
  REQUIRE(Reply(e) == "OK");
  e.WriteLine("START 9");
  REQUIRE(Reply(e) == "OK");
  Board board(9, Rule::kFreestyle);
  e.WriteLine("BEGIN");
  board.Play(ParseMove(Reply(e), board));
  int opp = board.LegalMoves().back();
  board.Play(opp);
  e.WriteLine("TURN " + FormatCoordinates(opp, 9));
  board.Play(ParseMove(Reply(e), board));
  // The network engine also takes an immediate win.
  e.WriteLine("RESTART");
  REQUIRE(Reply(e) == "OK");
  e.WriteLine("BOARD");
  for (const char* l : {"1,1,1", "1,2,1", "1,3,1", "1,4,1", "5,5,2", "6,6,2", "7,7,2", "8,8,2"}) e.WriteLine(l);
  e.WriteLine("DONE");
  std::string win = Reply(e);
  REQUIRE((win == "1,0" || win == "1,5"));
  EndAndReap(e);
}

TEST_CASE("checkpoint engine: weights from the settings file, relative to it") {
  const std::string ckpt = TinyCheckpoint();
  const std::filesystem::path dir = FreshTestDir("engine_settings_dir");
  std::filesystem::copy_file(ckpt, dir / "net.ckpt", std::filesystem::copy_options::overwrite_existing);
  const std::string settings = (dir / "pbrain-gomoku-zero.json").string();
  WriteFileAtomic(settings, R"({"weights": "net.ckpt", "max_simulations": 64,
                                "config": {"inference": {"device": "cpu", "symmetry": "none"}}})");
  ChildProcess e({EngineBinary(), "--settings", settings}, PipedTestChild(TestTmpPath("engine_match.stderr")));
  e.WriteLine("START 9");
  REQUIRE(Reply(e, 60000ms) == "OK");
  e.WriteLine("BEGIN");
  Board board(9, Rule::kFreestyle);
  ParseMove(Reply(e), board);
  EndAndReap(e);

  // A missing checkpoint: START explains it in a MESSAGE, and the classical
  // player plays.
  WriteFileAtomic(settings, R"({"weights": "missing.ckpt"})");
  ChildProcess missing({EngineBinary(), "--settings", settings}, PipedTestChild(TestTmpPath("engine_match.stderr")));
  missing.WriteLine("START 9");
  const auto said = missing.ReadLine(60000ms);
  REQUIRE(said.has_value());
  REQUIRE(said->starts_with("MESSAGE cannot load weights"));
  REQUIRE(Reply(missing) == "OK");
  EndAndReap(missing);
}


TEST_CASE("two engine processes play a full 9x9 game") {
  // Black: the tiny network; white: the rollout baseline.
  PlayFullGame({EngineBinary(), "--settings", DefaultsOnlySettings(), "--weights", TinyCheckpoint(), "--set",
                "inference.device=cpu", "--set", "inference.symmetry=none"},
               {EngineBinary(), "--settings", DefaultsOnlySettings(), "--set", "run.seed=5"}, "engine_match");
}

TEST_CASE("the classical engine (settings file player classical:N, no net) plays a full game and opens at the centre") {
  const std::filesystem::path dir = FreshTestDir("engine_classical");
  const std::string settings = (dir / "pbrain-gomoku-zero.json").string();
  WriteFileAtomic(settings, R"({"player": "classical:3000", "log_file": "engine.log"})");
  const Board board = PlayFullGame({EngineBinary(), "--settings", settings},
                                   {EngineBinary(), "--settings", DefaultsOnlySettings(), "--set", "run.seed=5"},
                                   "engine_classical");
  CHECK(board.at(4 * 9 + 4) == kBlack);  // BEGIN on the empty 9x9 board: the centre
  // The log names the player (in the log file: nothing goes to stderr by default).
  CHECK_THAT(ReadFileOrThrow((dir / "engine.log").string()), Catch::Contains("classical:3000"));
}
