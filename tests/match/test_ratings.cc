// The Elo fit (common/match/ratings.h) on hand-computable cases.
#include <catch2/catch.hpp>

#include <cmath>

#include "common/base/errors.h"
#include "common/match/ratings.h"

using namespace gz;

namespace {

constexpr double kEloPerNat = 400.0 / 2.302585092994046;

// `wins` wins, `draws` draws and `losses` losses of a against b.
void AddGames(std::vector<RatedGame>& games, const std::string& a, const std::string& b, int wins, int draws,
              int losses) {
  for (int i = 0; i < wins; ++i) games.push_back({a, b, 1.0});
  for (int i = 0; i < draws; ++i) games.push_back({a, b, 0.5});
  for (int i = 0; i < losses; ++i) games.push_back({b, a, 1.0});  // recorded from the winner's side
}

double Elo(double s) { return 400.0 * std::log10(s / (1 - s)); }

}  // namespace

TEST_CASE("two players: the rating difference is 400 log10(s / (1 - s))") {
  std::vector<RatedGame> games;
  AddGames(games, "A", "B", 5, 2, 3);  // s = 0.6
  RatingTable t = FitRatings(games, "B");
  REQUIRE(t.anchor == "B");
  REQUIRE(t.rated.size() == 2);
  CHECK(t.rated["B"].elo == 0.0);
  CHECK(t.rated["A"].elo == Approx(Elo(0.6)).epsilon(1e-9));
  // sigma (natural units) = 1 / sqrt(n s (1 - s)) at the maximum.
  const double sigma = kEloPerNat / std::sqrt(10 * 0.6 * 0.4);
  CHECK(t.rated["A"].sigma == Approx(sigma).epsilon(1e-9));
  CHECK(t.rated["A"].low == Approx(Elo(0.6) - 1.96 * sigma).epsilon(1e-9));
  CHECK(t.rated["A"].high == Approx(Elo(0.6) + 1.96 * sigma).epsilon(1e-9));
  CHECK(t.rated["A"].games == 10);
  CHECK(t.rated["A"].score == Approx(6.0));
  CHECK(t.unrated.empty());

  // Anchored at the other player, the same fit is mirrored.
  RatingTable u = FitRatings(games, "A");
  CHECK(u.rated["A"].elo == 0.0);
  CHECK(u.rated["B"].elo == Approx(-Elo(0.6)).epsilon(1e-9));
  CHECK(u.rated["B"].sigma == Approx(sigma).epsilon(1e-9));
}

TEST_CASE("a chain of three players adds the pairwise differences") {
  std::vector<RatedGame> games;
  AddGames(games, "A", "B", 3, 0, 1);  // A - B = 400 log10 3
  AddGames(games, "B", "C", 6, 4, 2);  // s = 8/12
  RatingTable t = FitRatings(games, "C");
  CHECK(t.rated["C"].elo == 0.0);
  CHECK(t.rated["B"].elo == Approx(Elo(8.0 / 12)).epsilon(1e-9));
  CHECK(t.rated["A"].elo == Approx(Elo(8.0 / 12) + Elo(0.75)).epsilon(1e-9));
  // A's uncertainty relative to C adds both links' variances (a tree: no
  // other path between them).
  const double vab = 1 / (4 * 0.75 * 0.25), vbc = 1 / (12 * (8.0 / 12) * (4.0 / 12));
  CHECK(t.rated["A"].sigma == Approx(kEloPerNat * std::sqrt(vab + vbc)).epsilon(1e-9));
  CHECK(t.rated["B"].sigma == Approx(kEloPerNat * std::sqrt(vbc)).epsilon(1e-9));
}

TEST_CASE("a cycle: at the maximum every player's expected score equals its score") {
  std::vector<RatedGame> games;
  AddGames(games, "A", "B", 7, 1, 2);
  AddGames(games, "B", "C", 4, 2, 4);
  AddGames(games, "C", "A", 3, 0, 5);
  AddGames(games, "D", "A", 1, 1, 6);
  RatingTable t = FitRatings(games, "C");
  REQUIRE(t.rated.size() == 4);
  // The likelihood equations: sum over a player's games of (score - E) = 0.
  std::map<std::string, double> surplus;
  for (const RatedGame& g : games) {
    const double e = ExpectedScore(t.rated[g.a].elo - t.rated[g.b].elo);
    surplus[g.a] += g.score_a - e;
    surplus[g.b] -= g.score_a - e;
  }
  for (auto& [name, s] : surplus) {
    INFO(name);
    CHECK(std::abs(s) < 1e-6);
  }
  // And the fit is not trivial: A is above C, D below A.
  CHECK(t.rated["A"].elo > 0);
  CHECK(t.rated["D"].elo < t.rated["A"].elo);
  for (auto& [name, r] : t.rated)
    if (name != "C") CHECK(r.low < r.elo);
}

TEST_CASE("only wins: the pair's score is clamped half a game from perfect") {
  std::vector<RatedGame> games;
  AddGames(games, "net", "rollout:1000", 10, 0, 0);
  RatingTable t = FitRatings(games, "rollout:1000");
  REQUIRE(std::isfinite(t.rated["net"].elo));
  CHECK(t.rated["net"].elo == Approx(Elo(9.5 / 10)).epsilon(1e-9));  // +511.5
  CHECK(std::isfinite(t.rated["net"].low));
  CHECK(std::isfinite(t.rated["net"].high));
  // A single win counts as a draw.
  std::vector<RatedGame> one{{"x", "y", 1.0}};
  CHECK(FitRatings(one, "y").rated["x"].elo == Approx(0.0).margin(1e-9));
  // Only losses mirror only wins.
  std::vector<RatedGame> lost;
  AddGames(lost, "weak", "rollout:1000", 0, 0, 10);
  CHECK(FitRatings(lost, "rollout:1000").rated["weak"].elo == Approx(-Elo(0.95)).epsilon(1e-9));
}

TEST_CASE("the anchor: missing anchors fall back, disconnected players are unrated") {
  std::vector<RatedGame> games;
  AddGames(games, "b", "c", 3, 0, 1);
  AddGames(games, "c", "d", 1, 0, 1);
  AddGames(games, "x", "y", 2, 0, 2);  // a separate group
  RatingTable t = FitRatings(games, "rollout:1000");  // never played
  CHECK(t.anchor == "b");                            // first name of the largest group
  CHECK(t.rated["b"].elo == 0.0);
  CHECK(t.rated["b"].low == 0.0);
  CHECK(t.rated["b"].high == 0.0);
  CHECK(t.rated["c"].elo == Approx(-Elo(0.75)).epsilon(1e-9));
  CHECK(t.unrated == std::vector<std::string>{"x", "y"});
  CHECK(t.rated.count("x") == 0);
  // Anchored in the small group instead, the big one is unrated.
  RatingTable u = FitRatings(games, "y");
  CHECK(u.anchor == "y");
  CHECK(u.rated.size() == 2);
  CHECK(u.unrated == std::vector<std::string>{"b", "c", "d"});
  // No games at all.
  RatingTable empty = FitRatings({}, "rollout:1000");
  CHECK(empty.anchor.empty());
  CHECK(empty.rated.empty());
}

TEST_CASE("bad games are rejected") {
  CHECK_THROWS_AS(FitRatings({{"a", "a", 1.0}}, "a"), GomokuError);
  CHECK_THROWS_AS(FitRatings({{"a", "b", 1.5}}, "a"), GomokuError);
}
