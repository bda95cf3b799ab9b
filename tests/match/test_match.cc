// The match module in process: the fixed opening set, refereed games between
// in-process players, forfeits of a player that answers an illegal point, and
// the arena binary on top of it.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/game/symmetry.h"
#include "common/game/tactics.h"
#include "common/net/net_api.h"
#include "common/search/simple_evaluators.h"
#include "common/match/game.h"
#include "common/match/head_to_head.h"
#include "common/match/openings.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"

using namespace gz;

namespace {

Config TinyConfig() {
  Config c;
  c.board.size = 7;
  c.inference.device = "cpu";
  c.inference.symmetry = "none";
  return c;
}

// Answers a fixed point every time (an occupied one after the first move).
class StubbornPlayer : public MatchPlayer {
 public:
  StubbornPlayer(int point) : MatchPlayer("stubborn"), point_(point) {}
  std::optional<Forfeit> NewGame(int, Rule) override { return std::nullopt; }
  MoveReply Move(const Board&, const std::vector<int>&) override { return {point_, std::nullopt}; }

 private:
  int point_;
};

// The smallest of the 8 symmetric images of the board's cells: two boards
// get the same key exactly when one is an image of the other.  (Built from
// the board, not from the stone list as common/match/openings.cc does, so that it
// checks that code rather than repeating it.)
std::vector<int8_t> CanonicalCells(const Board& b) {
  const int n = b.size();
  std::vector<int8_t> best;
  for (int s = 0; s < kNumSymmetries; ++s) {
    std::vector<int8_t> image(b.cells().size(), kEmpty);
    for (int p = 0; p < n * n; ++p) image[TransformPoint(s, p, n)] = b.at(p);
    if (best.empty() || image < best) best = image;
  }
  return best;
}

}  // namespace

TEST_CASE("opening set: deterministic, central, distinct under symmetry, no immediate tactics") {
  for (int size : {7, 9, 15}) {
    for (int length : {1, 2, 3, 4}) {
      INFO("size " << size << " length " << length);
      auto set = OpeningSet(size, Rule::kFreestyle, length);
      REQUIRE(!set.empty());
      CHECK(set.size() <= 64);
      CHECK(set == OpeningSet(size, Rule::kFreestyle, length));
      std::set<std::vector<int8_t>> keys;
      const int lo = (size - std::min(size, 5)) / 2;
      for (const Opening& o : set) {
        REQUIRE(static_cast<int>(o.size()) == length);
        Board b(size, Rule::kFreestyle);
        for (int m : o) {
          CHECK(m / size >= lo);
          CHECK(m / size < lo + 5);
          CHECK(m % size >= lo);
          CHECK(m % size < lo + 5);
          b.Play(m);  // throws on a repeated point
        }
        CHECK(FindWinningMove(b) == kNoMove);
        CHECK(FindForcedBlock(b) == kNoMove);
        keys.insert(CanonicalCells(b));
      }
      CHECK(keys.size() == set.size());
    }
  }
  // One stone in the central 5x5 square: 6 positions up to symmetry.
  CHECK(OpeningSet(15, Rule::kFreestyle, 1).size() == 6);
  CHECK(OpeningSet(7, Rule::kFreestyle, 0) == std::vector<Opening>{Opening{}});
  CHECK_THROWS_AS(OpeningSet(7, Rule::kFreestyle, 25), ConfigError);
  // Games 2k and 2k+1 share opening k.
  auto set = OpeningSet(9, Rule::kFreestyle, 2);
  CHECK(OpeningForGame(set, 0) == OpeningForGame(set, 1));
  CHECK(OpeningForGame(set, 2) == set[1]);
  CHECK(OpeningForGame(set, 2 * static_cast<int>(set.size())) == set[0]);
}

TEST_CASE("in-process players: a refereed game to the end, replayed identically") {
  Config cfg = TinyConfig();
  PlayerOptions opt;
  auto a = MakeMatchPlayer("rollout:30", cfg, 16, opt);
  auto b = MakeMatchPlayer("uniform:30", cfg, 16, opt);
  CHECK(a->name() == "rollout:30");
  const Opening opening = OpeningSet(7, Rule::kFreestyle, 2)[0];
  GameResult g = PlayGame(*a, *b, 7, Rule::kFreestyle, opening);
  CHECK((g.end == "five" || g.end == "full"));
  CHECK(g.forfeit_kind.empty());
  REQUIRE(g.moves.size() >= 9);
  CHECK(std::vector<int>(g.moves.begin(), g.moves.begin() + 2) == opening);
  // Replaying the moves gives the recorded outcome.
  Board board(7, Rule::kFreestyle);
  for (int m : g.moves) board.Play(m);
  REQUIRE(board.terminal());
  const int8_t winner = board.outcome() == Outcome::kBlackWins ? kBlack
                        : board.outcome() == Outcome::kWhiteWins ? kWhite : 0;
  CHECK(winner == g.winner);
  // Deterministic players: the same game again.
  GameResult again = PlayGame(*a, *b, 7, Rule::kFreestyle, opening);
  CHECK(again.moves == g.moves);
}

TEST_CASE("tactics: an in-process player takes a win in one and blocks a loss in one") {
  Config cfg = TinyConfig();
  auto p = MakeMatchPlayer("uniform:1", cfg, 1, PlayerOptions{});
  // Black: four in row 0 (0..3); white: three in row 6.
  Board b(7, Rule::kFreestyle);
  for (int m : {0, 42, 1, 43, 2, 44, 3}) b.Play(m);
  // White to move, black threatens 4: white has no win, must block at 4.
  std::vector<int> h{0, 42, 1, 43, 2, 44, 3};
  CHECK(p->Move(b, h).move == 4);
  b.Play(45);  // white makes four instead; black to move wins at 4
  h.push_back(45);
  CHECK(p->Move(b, h).move == 4);
}

TEST_CASE("a player that answers an occupied point forfeits") {
  Config cfg = TinyConfig();
  auto good = MakeMatchPlayer("uniform:4", cfg, 4, PlayerOptions{});
  StubbornPlayer bad(24);  // the centre: occupied by the opening below
  GameResult g = PlayGame(*good, bad, 7, Rule::kFreestyle, Opening{24});
  CHECK(g.end == "forfeit");
  CHECK(g.forfeit_kind == "illegal");
  CHECK(g.forfeit_by == "stubborn");
  CHECK(g.winner == kBlack);
  CHECK(g.moves == std::vector<int>{24});
}

namespace {
// Plays a fixed script of points, then asks an inner player.
class ScriptedPlayer : public MatchPlayer {
 public:
  ScriptedPlayer(std::vector<int> script, MatchPlayer& rest) : MatchPlayer("scripted"), script_(std::move(script)), rest_(rest) {}
  std::optional<Forfeit> NewGame(int, Rule) override { return std::nullopt; }
  MoveReply Move(const Board& b, const std::vector<int>& h) override {
    if (next_ < script_.size()) return {script_[next_++], std::nullopt};
    return rest_.Move(b, h);
  }

 private:
  std::vector<int> script_;
  size_t next_ = 0;
  MatchPlayer& rest_;
};
}  // namespace

TEST_CASE("renju: the referee refuses black's forbidden point (black loses); in-process players never play one") {
  Config cfg = TinyConfig();
  cfg.board.size = 9;
  cfg.board.rule = "renju";
  auto white = MakeMatchPlayer("uniform:4", cfg, 4, PlayerOptions{});
  // Black X X X . X X on row 0, then the gap (0,3): an overline point.
  std::vector<int> white_script = {80, 78, 76, 74, 60};
  ScriptedPlayer w(white_script, *white);
  StubbornPlayer never(3);
  ScriptedPlayer b({0, 1, 2, 4, 5, 3}, never);
  GameResult g = PlayGame(b, w, 9, Rule::kRenju, Opening{});
  CHECK(g.end == "forfeit");
  CHECK(g.forfeit_kind == "illegal");
  CHECK(g.forfeit_by == "scripted");
  CHECK(g.winner == kWhite);
  CHECK(g.reason.find("forbidden for black under renju: overline") != std::string::npos);
  // Under freestyle the same point is a five and wins.
  ScriptedPlayer w2(white_script, *white);
  ScriptedPlayer b2({0, 1, 2, 4, 5, 3}, never);
  GameResult f = PlayGame(b2, w2, 9, Rule::kFreestyle, Opening{});
  CHECK(f.end == "five");
  CHECK(f.winner == kBlack);
  // Whole renju games between in-process searchers end by the rules, never by a forfeit.
  auto rb = MakeMatchPlayer("rollout:40", cfg, 40, PlayerOptions{});
  auto rw = MakeMatchPlayer("rollout:40", cfg, 40, PlayerOptions{});
  const std::vector<Opening> openings = OpeningSet(9, Rule::kRenju, 2);
  for (size_t i = 0; i < 2 && i < openings.size(); ++i) {
    const Opening& o = openings[i];
    GameResult r = PlayGame(*rb, *rw, 9, Rule::kRenju, o);
    CHECK((r.end == "five" || r.end == "full"));
    Board replay(9, Rule::kRenju);
    for (int m : r.moves) replay.Play(m);  // throws on a forbidden black move
    CHECK(replay.terminal());
  }
}

TEST_CASE("player specs: malformed ones are ConfigErrors naming the spec") {
  Config cfg = TinyConfig();
  try {
    MakeMatchPlayer("rollout:x", cfg, 1, PlayerOptions{});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("rollout:x") != std::string::npos);
  }
  CHECK_THROWS_AS(MakeMatchPlayer("magic:3", cfg, 1, PlayerOptions{}), ConfigError);
  CHECK_THROWS_AS(MakeMatchPlayer("engine:/no/such/brain", cfg, 1, PlayerOptions{}), ConfigError);
  CHECK_THROWS_AS(MakeMatchPlayer("net:", cfg, 1, PlayerOptions{}), ConfigError);
}

TEST_CASE("net players at another size than the checkpoint's: conv heads play, fc heads are refused") {
  const std::string dir = testing::FreshTestDir("match_heads");
  const std::string conv = dir + "/conv7.gzck", fc = dir + "/fc7.gzck";
  CreateRandomCheckpoint(conv, 7, Rule::kFreestyle, 8, 1, /*seed=*/5, 1, 1, "conv");
  CreateRandomCheckpoint(fc, 7, Rule::kFreestyle, 8, 1, /*seed=*/5, 1, 1);
  Config cfg = TinyConfig();
  cfg.board.size = 11;
  PlayerOptions opt;
  opt.net_threads = 1;
  auto net = MakeMatchPlayer("net:" + conv + ":8", cfg, 8, opt);
  auto uniform = MakeMatchPlayer("uniform:4", cfg, 4, opt);
  const Opening opening = OpeningSet(11, Rule::kFreestyle, 2)[0];
  for (int colour = 0; colour < 2; ++colour) {
    GameResult g = colour == 0 ? PlayGame(*net, *uniform, 11, Rule::kFreestyle, opening)
                               : PlayGame(*uniform, *net, 11, Rule::kFreestyle, opening);
    CHECK(g.forfeit_kind.empty());
    CHECK((g.end == "five" || g.end == "full"));
    for (int m : g.moves) CHECK((m >= 0 && m < 121));
  }
  CHECK_THROWS_WITH(MakeMatchPlayer("net:" + fc + ":8", cfg, 8, opt),
                    Catch::Contains("has board size 7 but 11 was expected") && Catch::Contains("fc heads"));
  // The arena binary, a 13x13 match of the 7x7 conv checkpoint.
  testing::TestProcess p(testing::BinPath("arena"),
                         {"--player-a", "net:" + conv + ":8", "--player-b", "uniform:2", "--games", "2", "--set",
                          "board.size=13", "--set", "inference.threads=1", "--json"},
                         dir + "/arena.out");
  REQUIRE(p.Wait() == 0);
  const std::string out = p.Log();
  auto line = out.substr(out.find('{'));
  nlohmann::json j = nlohmann::json::parse(line.substr(0, line.find('\n')));
  CHECK(j["games"] == 2);
  CHECK(j["board_size"] == 13);
  CHECK(j["forfeits"].empty());
  CHECK(j["forward_a"] == "native");  // the net player's forward (inference.device cpu, backend auto)
  CHECK_FALSE(j.contains("forward_b"));  // uniform:2 has none
}

TEST_CASE("head-to-head Elo from match results (common/match/head_to_head.h ComputeElo)") {
  ArenaResult even;
  even.games = 10;
  even.wins = 5;
  even.losses = 5;
  ComputeElo(&even);
  CHECK(even.score == Approx(0.5));
  CHECK(even.elo == Approx(0.0).margin(1e-9));
  CHECK(even.elo_low < 0);
  CHECK(even.elo_high > 0);
  ArenaResult strong;
  strong.games = 50;
  strong.wins = 45;
  strong.draws = 2;
  strong.losses = 3;
  ComputeElo(&strong);
  CHECK(strong.score == Approx(0.92));
  CHECK(strong.elo > 300);
  CHECK(strong.elo_low < strong.elo);
  CHECK(strong.elo_high > strong.elo);
  ArenaResult perfect;
  perfect.games = 20;
  perfect.wins = 20;
  ComputeElo(&perfect);
  CHECK(std::isfinite(perfect.elo));
  CHECK(perfect.elo > 400);
}

TEST_CASE("arena binary: W/D/L and Elo as JSON, on the match module") {
  const std::string dir = testing::FreshTestDir("match_arena");
  testing::TestProcess p(testing::BinPath("arena"),
                         {"--player-a", "rollout:40", "--player-b", "uniform:2", "--games", "4", "--set",
                          "board.size=7", "--json"},
                         dir + "/arena.out");
  REQUIRE(p.Wait() == 0);
  std::string out = p.Log();
  auto line = out.substr(out.find('{'));
  nlohmann::json j = nlohmann::json::parse(line.substr(0, line.find('\n')));
  CHECK(j["games"] == 4);
  CHECK(j["wins"].get<int>() + j["draws"].get<int>() + j["losses"].get<int>() == 4);
  CHECK(j["player_a"] == "rollout:40");
  CHECK(j["player_b"] == "uniform:2");
  CHECK(j["board_size"] == 7);
  CHECK(j.contains("elo_low"));
  CHECK(j["forfeits"].empty());
}
