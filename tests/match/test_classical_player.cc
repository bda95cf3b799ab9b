// The `classical:N` player spec (common/match/game.h MakeMatchPlayer: a ClassicalPlayer
// through common/match/player.h InProcessMatchPlayer): parsed, refused by name when malformed, accepted on
// the evaluator's ladder, and whole refereed games that replay identically;
// the engine's ClassicalPlayer (common/match/classical_player.h).
#include <catch2/catch.hpp>

#include <atomic>
#include <string>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/game/even_openings.h"
#include "common/match/classical_player.h"
#include "common/match/game.h"
#include "common/match/openings.h"

using namespace gz;

TEST_CASE("classical:N: parsed with its name; malformed specs are ConfigErrors naming the spec") {
  Config cfg;
  auto p = MakeMatchPlayer("classical:250", cfg, 1, PlayerOptions{});
  CHECK(p->name() == "classical:250");
  auto* in_process = dynamic_cast<InProcessMatchPlayer*>(p.get());
  REQUIRE(in_process != nullptr);
  CHECK(dynamic_cast<const ClassicalPlayer*>(&in_process->player()) != nullptr);
  for (const std::string bad : {"classical:", "classical:0", "classical:-3", "classical:12x", "classical:abc",
                                "classical:1.5"}) {
    try {
      MakeMatchPlayer(bad, cfg, 1, PlayerOptions{});
      FAIL("no error for " << bad);
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()).find("'" + bad + "'") != std::string::npos);
    }
  }
  // The evaluator's ladder takes it, and refuses a bad count by kind.
  Config ok = Config::Load("", {"eval.ladder=classical:1000,rollout:100"});
  CHECK(ok.eval.ladder == std::vector<std::string>{"classical:1000", "rollout:100"});
  try {
    Config::Load("", {"eval.ladder=classical:0"});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("classical") != std::string::npos);
  }
}

TEST_CASE("classical:N: refereed games end by the rules and replay move for move (both rules)") {
  for (Rule rule : {Rule::kFreestyle, Rule::kRenju}) {
    const std::vector<Opening> openings = OpeningSet(15, rule, 3);
    for (int i = 0; i < 2; ++i) {
      auto black = MakeMatchPlayer("classical:200", Config{}, 1, PlayerOptions{});
      auto white = MakeMatchPlayer("classical:400", Config{}, 1, PlayerOptions{});
      const GameResult a = PlayGame(*black, *white, 15, rule, openings[static_cast<size_t>(i)]);
      const GameResult b = PlayGame(*black, *white, 15, rule, openings[static_cast<size_t>(i)]);
      CHECK((a.end == "five" || a.end == "full"));
      CHECK(a.moves == b.moves);
      CHECK(a.winner == b.winner);
      Board replay(15, rule);
      for (int m : a.moves) replay.Play(m);  // throws on an illegal or forbidden move
      CHECK(replay.terminal());
      auto* cb = dynamic_cast<InProcessMatchPlayer*>(black.get());
      CHECK(cb->moves() > 0);
      CHECK(cb->total_simulations() <= 200 * cb->moves());
    }
  }
}

TEST_CASE("ClassicalPlayer (the engine's classical:N): arena's move without a clock, reasons, report, sizes") {
  ClassicalPlayer player(1500);
  CHECK(player.Report().moves.empty());
  CHECK(player.CheckSize(15).empty());
  CHECK(player.CheckSize(20).empty());
  CHECK_THAT(player.CheckSize(4), Catch::Contains("board size 4"));
  CHECK_THAT(player.Describe(), Catch::Contains("classical:1500"));
  CHECK(player.threads() == 1);

  // No deadline: the same move as arena's classical:1500 on the even openings.
  for (const Opening& o : EvenOpenings(15, Rule::kFreestyle)) {
    Board b(15, Rule::kFreestyle);
    for (int m : o) b.Play(m);
    ClassicalSearch arena_search(ClassicalOptions{1500});
    const ClassicalResult want = arena_search.Search(b);
    const MoveDecision d = player.ChooseMove(b, SearchLimits{});
    CHECK(d.move == want.move);
    CHECK(d.simulations == want.nodes);
    const TreeReport r = player.Report();
    REQUIRE(r.moves.size() == 1);
    CHECK(r.moves.front().move == d.move);
    CHECK(r.moves.front().pv.front() == d.move);
    CHECK(d.value > -1.0f);
    CHECK(d.value < 1.0f);
  }

  // The empty board: the centre (15 and an even size).
  CHECK(player.ChooseMove(Board(15, Rule::kFreestyle), SearchLimits{}).move == 7 * 15 + 7);
  CHECK(player.ChooseMove(Board(20, Rule::kFreestyle), SearchLimits{}).move == 10 * 20 + 10);
  SearchLimits no_centre;
  no_centre.excluded = {7 * 15 + 7};
  CHECK(player.ChooseMove(Board(15, Rule::kFreestyle), no_centre).move != 7 * 15 + 7);

  // A five to make: reason "win", value 1, a one-ply proof in the report.
  Board win(15, Rule::kFreestyle);
  for (int m : {7 * 15 + 4, 0, 7 * 15 + 5, 14, 7 * 15 + 6, 14 * 15, 7 * 15 + 7, 14 * 15 + 14}) win.Play(m);
  const MoveDecision w = player.ChooseMove(win, SearchLimits{});
  CHECK((w.move == 7 * 15 + 3 || w.move == 7 * 15 + 8));
  CHECK(w.reason == MoveReason::kWin);
  CHECK(w.value == 1.0f);
  REQUIRE(player.Report().proof.has_value());
  CHECK(player.Report().proof->win);
  CHECK(player.Report().proof->plies == 1);
  // The opponent's closed four: reason "block".
  Board block(15, Rule::kFreestyle);
  for (int m : {7 * 15 + 4, 7 * 15 + 3, 7 * 15 + 5, 0, 7 * 15 + 6, 14, 7 * 15 + 7}) block.Play(m);
  const MoveDecision bl = player.ChooseMove(block, SearchLimits{});
  CHECK(bl.move == 7 * 15 + 8);
  CHECK(bl.reason == MoveReason::kBlock);

  // A raised stop flag: a legal move after at most 256 nodes.
  std::atomic<bool> stop{true};
  SearchLimits stopped;
  stopped.stop = &stop;
  ClassicalPlayer big(1000000);
  const std::vector<Opening> even = EvenOpenings(15, Rule::kFreestyle);
  Board b(15, Rule::kFreestyle);
  for (int m : even.front()) b.Play(m);
  const MoveDecision s = big.ChooseMove(b, stopped);
  CHECK(s.simulations <= 256);
  CHECK(b.IsLegal(s.move));
  // Every legal move excluded: an error, as for the net's search.
  SearchLimits all;
  all.excluded = b.LegalMoves();
  CHECK_THROWS_AS(player.ChooseMove(b, all), GomokuError);
}

TEST_CASE("ParseClassicalSpec: the one parser of classical:N") {
  CHECK(ParseClassicalSpec("classical:1", "x") == 1);
  CHECK(ParseClassicalSpec("classical:1000000000", "x") == 1000000000);
  CHECK(ParseClassicalSpec("net", "x") == 0);
  CHECK(ParseClassicalSpec("rollout:5", "x") == 0);
  for (const std::string bad : {"classical:", "classical:0", "classical:1000000001", "classical:7 ", "classical:+"}) {
    try {
      ParseClassicalSpec(bad, "the key");
      FAIL("no error for " << bad);
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("the key") && Catch::Contains("'" + bad + "'"));
    }
  }
}
