// The `classical:N` player spec (common/match/game.h MakeMatchPlayer, common/match/player.h
// ClassicalMatchPlayer): parsed, refused by name when malformed, accepted on
// the evaluator's ladder, and whole refereed games that replay identically.
#include <catch2/catch.hpp>

#include <string>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/match/game.h"
#include "common/match/openings.h"

using namespace gz;

TEST_CASE("classical:N: parsed with its name; malformed specs are ConfigErrors naming the spec") {
  Config cfg;
  auto p = MakeMatchPlayer("classical:250", cfg, 1, PlayerOptions{});
  CHECK(p->name() == "classical:250");
  REQUIRE(dynamic_cast<ClassicalMatchPlayer*>(p.get()) != nullptr);
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
      auto* cb = dynamic_cast<ClassicalMatchPlayer*>(black.get());
      CHECK(cb->moves() > 0);
      CHECK(cb->total_nodes() <= 200 * cb->moves());
    }
  }
}
