// The manager side of the Gomocup protocol (common/match/engine_player.h): our own
// pbrain-gomoku-zero as an external engine, and misbehaving wrappers written
// here (an occupied point, garbage, sleeping past the limit, exiting,
// refusing START), each losing with the right recorded reason.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/net_api.h"
#include "common/match/engine_player.h"
#include "common/match/game.h"
#include "tests/engine/engine_test_util.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"

using namespace gz;

namespace {

// Made on first use, not at start-up: every ctest entry of tests/match runs
// this file's static initializers, and a fresh folder made there would be
// wiped under a test of this file running beside them.
const std::string& MatchEngineDir() {
  static const std::string dir = testing::FreshTestDir("match_engine");
  return dir;
}

std::string Script(const std::string& name, const std::string& body) {
  const std::string path = MatchEngineDir() + "/" + name;
  {
    std::ofstream out(path);
    out << "#!/bin/sh\n" << body;
  }
  ::chmod(path.c_str(), 0755);
  return path;
}

// A brain that plays correctly until `on_move` tells it otherwise: answers
// START with OK, ignores INFO, and on BEGIN / DONE / TURN runs `on_move`
// with $last = the opponent's last point ("" after BEGIN).
std::string Wrapper(const std::string& name, const std::string& on_move) {
  return Script(name, R"(last=""
while IFS= read -r line; do
  line=$(printf '%s' "$line" | tr -d '\r')
  case "$line" in
    START*) echo OK ;;
    INFO*) ;;
    BOARD) ;;
    END) exit 0 ;;
    BEGIN) last=""; )" + on_move + R"( ;;
    DONE) )" + on_move + R"( ;;
    TURN*) last="${line#TURN }"; )" + on_move + R"( ;;
    *,*,2) last="${line%,2}" ;;
    *) ;;
  esac
done
)");
}

std::string BaselineBrain() {
  return testing::EngineBinary() + " --settings " + testing::DefaultsOnlySettings() + " --max-simulations 30";
}

EngineLimits FastLimits() { return EngineLimits{300, 700}; }

struct Outcome2 {
  GameResult as_black, as_white;
};

// The engine plays black on an empty board (BEGIN) and white after a
// two-stone opening (BOARD), against an in-process rollout player.
Outcome2 PlayBothColours(const std::string& spec, EngineLimits limits = FastLimits()) {
  Config cfg;
  cfg.board.size = 7;
  EngineMatchPlayer engine(ParseEngineCommand(spec), limits, MatchEngineDir() + "/engines.stderr");
  auto rollout = MakeMatchPlayer("rollout:20", cfg, 20, PlayerOptions{});
  Outcome2 o;
  o.as_black = PlayGame(engine, *rollout, 7, Rule::kFreestyle, Opening{});
  o.as_white = PlayGame(*rollout, engine, 7, Rule::kFreestyle, Opening{24, 25});
  return o;
}

void CheckForfeit(const GameResult& g, const std::string& kind, const std::string& loser, int8_t loser_colour) {
  INFO("reason: " << g.reason);
  CHECK(g.end == "forfeit");
  CHECK(g.forfeit_kind == kind);
  CHECK(g.forfeit_by == loser);
  CHECK(g.winner == Opponent(loser_colour));
  CHECK(!g.reason.empty());
}

// Plays `spec` with both colours (PlayBothColours) and checks that it lost
// both games by a forfeit of `kind`; the outcome for further checks.
Outcome2 ForfeitsBothColours(const std::string& spec, const std::string& kind, EngineLimits limits = FastLimits()) {
  Outcome2 o = PlayBothColours(spec, limits);
  CheckForfeit(o.as_black, kind, spec, kBlack);
  CheckForfeit(o.as_white, kind, spec, kWhite);
  return o;
}

}  // namespace

TEST_CASE("pbrain-gomoku-zero as an external engine plays whole refereed games") {
  const std::string spec = "engine:" + BaselineBrain();
  Outcome2 o = PlayBothColours(spec, EngineLimits{1000, 4000});
  for (const GameResult* g : {&o.as_black, &o.as_white}) {
    INFO("reason: " << g->reason);
    CHECK((g->end == "five" || g->end == "full"));
    CHECK(g->forfeit_kind.empty());
    // Every point legal in order, ending in the recorded outcome.
    Board b(7, Rule::kFreestyle);
    for (int m : g->moves) b.Play(m);
    CHECK(b.terminal());
  }
  CHECK(std::vector<int>(o.as_white.moves.begin(), o.as_white.moves.begin() + 2) == std::vector<int>{24, 25});
}

TEST_CASE("pbrain-gomoku-zero with a tiny checkpoint as an external engine") {
  const std::string ckpt = MatchEngineDir() + "/tiny7.ckpt";
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, /*seed=*/5, /*iteration=*/2, /*model_generation=*/2);
  const std::string spec = "engine:" + BaselineBrain() + " --weights " + ckpt + " --set inference.device=cpu";
  Outcome2 o = PlayBothColours(spec, EngineLimits{1000, 4000});
  for (const GameResult* g : {&o.as_black, &o.as_white}) {
    INFO("reason: " << g->reason);
    CHECK((g->end == "five" || g->end == "full"));
  }
}

TEST_CASE("an engine that answers an occupied point loses: illegal") {
  // BEGIN: a legal centre stone; after that it repeats the opponent's move.
  const std::string spec =
      "engine:" + Wrapper("occupied.sh", R"(if [ -z "$last" ]; then echo 3,3; else echo "$last"; fi)");
  Outcome2 o = ForfeitsBothColours(spec, "illegal");
  CHECK(o.as_black.reason.find("occupied") != std::string::npos);
  CHECK(o.as_black.moves.size() == 2);  // its legal first stone and the opponent's reply
}

TEST_CASE("an engine that writes garbage loses: malformed") {
  const std::string spec = "engine:" + Wrapper("garbage.sh", "echo 'hello, world'");
  Outcome2 o = ForfeitsBothColours(spec, "malformed");
  CHECK(o.as_black.reason.find("hello, world") != std::string::npos);
  // Off the board is illegal, not malformed.
  const std::string off = "engine:" + Wrapper("offboard.sh", "echo 7,0");
  CheckForfeit(PlayBothColours(off).as_black, "illegal", off, kBlack);
}

TEST_CASE("an engine that sleeps past turn + grace loses: timeout") {
  const std::string spec = "engine:" + Wrapper("sleeper.sh", "sleep 3; echo 3,3");
  Outcome2 o = ForfeitsBothColours(spec, "timeout", EngineLimits{200, 300});
  CHECK(o.as_black.reason.find("500 ms") != std::string::npos);
}

TEST_CASE("an engine that exits loses: crash; the next game starts a fresh process") {
  const std::string spec = "engine:" + Wrapper("quitter.sh", "exit 3");
  // Both games forfeit by crash: the second needed a new process to answer START.
  Outcome2 o = ForfeitsBothColours(spec, "crash");
  CHECK(o.as_black.reason.find("status 3") != std::string::npos);
}

TEST_CASE("an engine that refuses START loses before any move: start") {
  const std::string spec = "engine:" + Script("refuser.sh", "read -r line; echo 'ERROR board size not supported'\n");
  Outcome2 o = PlayBothColours(spec);
  CheckForfeit(o.as_black, "start", spec, kBlack);
  CHECK(o.as_black.moves.empty());
  CHECK(o.as_black.reason.find("ERROR board size") != std::string::npos);
  CHECK(!ProbeEngine(ParseEngineCommand(spec), 7, Rule::kFreestyle).empty());
  CHECK(ProbeEngine(ParseEngineCommand("engine:" + BaselineBrain()), 7, Rule::kFreestyle).empty());
}

TEST_CASE("engine commands: PATH lookup, settings files with a working folder, errors naming the entry") {
  CHECK(ParseEngineCommand("engine:sh -c true").argv[0].find('/') != std::string::npos);
  try {
    ParseEngineCommand("engine:/no/such/brain --x");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("engine:/no/such/brain --x") != std::string::npos);
  }
  CHECK_THROWS_AS(ParseEngineCommand("engine:no-such-brain-in-path"), ConfigError);
  // A settings file: the command relative to its folder, run in that folder.
  MakeDirs(MatchEngineDir() + "/brain");
  Script("brain/here.sh", R"(read -r line; if [ -f ./marker ]; then echo OK; else echo ERROR wrong folder; fi
while read -r line; do case "$line" in END*) exit 0 ;; esac; done
)");
  WriteFileAtomic(MatchEngineDir() + "/brain/marker", "x");
  WriteFileAtomic(MatchEngineDir() + "/brain.json", R"({"command": ["./here.sh"], "dir": "brain", "name": "here"})");
  EngineCommand cmd = ParseEngineCommand("engine:" + MatchEngineDir() + "/brain.json");
  CHECK(cmd.name == "engine:here");
  CHECK(cmd.dir == MatchEngineDir() + "/brain");
  CHECK(cmd.argv[0] == MatchEngineDir() + "/brain/here.sh");
  CHECK(ProbeEngine(cmd, 7, Rule::kFreestyle) == "");
  WriteFileAtomic(MatchEngineDir() + "/bad.json", R"({"command": "./here.sh", "colour": 1})");
  CHECK_THROWS_AS(ParseEngineCommand("engine:" + MatchEngineDir() + "/bad.json"), ConfigError);
}
