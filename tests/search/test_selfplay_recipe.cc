// The self-play recipe.  Each part off reproduces
// today's games bit for bit; on, each does what docs/search.md says.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/data/npz.h"
#include "common/game/even_openings.h"
#include "common/game/symmetry.h"
#include "common/search/mcts.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"
#include "tests/support/play_games.h"

using namespace gz;

namespace {

// Uniform policy; value `black` for black to move and `white` for white.
class SideValueEvaluator : public Evaluator {
 public:
  SideValueEvaluator(float black, float white) : black_(black), white_(white) {}
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    for (size_t i = 0; i < positions.size(); ++i) {
      const int pts = positions[i].size * positions[i].size;
      results[i].log_policy.assign(pts, 0.0f);
      results[i].value = positions[i].to_move == kBlack ? black_ : white_;
      results[i].model_generation = 0;
    }
  }
  std::string Describe() const override { return "side value"; }

 private:
  float black_, white_;
};

// Almost all prior on one point (the centre of the board), value 0.
class PeakedEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    for (size_t i = 0; i < positions.size(); ++i) {
      const int n = positions[i].size;
      results[i].log_policy.assign(n * n, -8.0f);
      results[i].log_policy[(n / 2) * n + n / 2] = 0.0f;
      results[i].value = 0.0f;
    }
  }
  std::string Describe() const override { return "peaked"; }
};

// Value 0 when every stone is in the centre 3x3, else 0.9 (uniform policy).
class CentreOpeningEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    for (size_t i = 0; i < positions.size(); ++i) {
      const Position& p = positions[i];
      const int n = p.size, c = n / 2;
      bool centred = true;
      for (int m = 0; m < n * n; ++m)
        if (p.cells[m] != kEmpty && (std::abs(m / n - c) > 1 || std::abs(m % n - c) > 1)) centred = false;
      results[i].log_policy.assign(n * n, 0.0f);
      results[i].value = centred ? 0.0f : 0.9f;
    }
  }
  std::string Describe() const override { return "centre opening"; }
};

SelfPlayParams Small() {
  SelfPlayParams p;
  p.mcts.simulations = 40;
  p.temperature_moves = 4;
  return p;
}

GameRecord Play(const SelfPlayParams& p, uint64_t seed, Evaluator& ev, int size = 7) {
  SelfPlayGame g(p, size, Rule::kFreestyle, seed, 1, 0);
  PlayToEnd(g, ev);
  REQUIRE(g.finished());
  return g.record();
}

bool IsMultiple(float share, int total) {
  const double x = share * total;
  return std::fabs(x - std::round(x)) < 1e-3;
}

}  // namespace

TEST_CASE("recipe off: every new key at its off value plays the default config's games, fields absent") {
  const nlohmann::json base = {{"mcts", {{"simulations", 30}}},
                               {"selfplay", {{"temperature_moves", 3}, {"random_opening_moves", 1}}}};
  nlohmann::json off = base;
  off["mcts"].update({{"forced_playouts_k", 0}, {"policy_target_pruning", false}, {"fpu_reduction_root", 0},
                      {"fpu_reduction", 0}, {"dirichlet_alpha_scaled", 0}});
  off["selfplay"].update({{"initial_temperature", 1.0}, {"temperature_halflife_moves", 0},
                          {"playout_cap_p_full", 1.0}, {"playout_cap_cheap_simulations", 5},
                          {"resign_threshold", -1.0}, {"resign_consecutive", 2}, {"resign_disabled_share", 0.5},
                          {"balanced_opening_moves", 0}, {"balanced_opening_max_value", 0.1},
                          {"balanced_opening_simulations", 8}, {"balanced_opening_tries", 3}});
  const SelfPlayParams a = Config::FromJson(base, "base").selfplay_params();
  const SelfPlayParams b = Config::FromJson(off, "off").selfplay_params();
  UniformEvaluator uniform;
  RolloutEvaluator rollout(Rule::kFreestyle, 2, 7);
  for (uint64_t seed : {3u, 4u, 5u}) {
    Evaluator& ev = seed == 4 ? static_cast<Evaluator&>(rollout) : uniform;
    const GameRecord ra = Play(a, seed, ev), rb = Play(b, seed, ev);
    CHECK(ra.ToNpzBytes() == rb.ToNpzBytes());
    CHECK(rb.full_search.empty());
    CHECK_FALSE(rb.resign_on);
    CHECK(rb.would_resign_move == -1);
    const auto arrays = ReadNpz(rb.ToNpzBytes(), "game");
    for (const char* k : {"full_search", "resigned", "resign_disabled", "would_resign_move"})
      CHECK(arrays.count(k) == 0);
  }
}

TEST_CASE("playout cap: p_full 0.25 marks the seed's draws full; cheap moves search the cheap count") {
  SelfPlayParams p = Small();
  p.mcts.tree_reuse = false;  // each move's visits are its own simulations
  p.playout_cap_p_full = 0.25;
  p.playout_cap_cheap_simulations = 8;
  UniformEvaluator ev;
  int full_total = 0, moves_total = 0;
  for (uint64_t seed : {21u, 22u, 23u}) {
    const GameRecord r = Play(p, seed, ev);
    REQUIRE(static_cast<int>(r.full_search.size()) == r.num_moves());
    std::mt19937_64 draws(seed ^ kPlayoutCapSalt);
    const int pts = r.board_size * r.board_size;
    for (int t = 0; t < r.num_moves(); ++t) {
      const bool full = UnitDraw(draws) < 0.25;
      CHECK(r.is_full_search(t) == full);
      full_total += full;
      ++moves_total;
      // Fresh root: the children hold simulations - 1 visits (the first one expands the root).
      const int child_visits = full ? p.mcts.simulations - 1 : p.playout_cap_cheap_simulations - 1;
      float smallest = 1.0f;
      for (int i = 0; i < pts; ++i) {
        const float x = r.policy[t * pts + i];
        CHECK(IsMultiple(x, child_visits));
        if (x > 0) smallest = std::min(smallest, x);
      }
      if (!full) CHECK(smallest >= 1.0f / child_visits - 1e-6f);  // never a 1/39 share
    }
    // The field survives the file.
    CHECK(GameRecord::FromNpzBytes(r.ToNpzBytes(), "game").full_search == r.full_search);
  }
  REQUIRE(moves_total > 20);
  CHECK(full_total > 0);
  CHECK(full_total < moves_total / 2);  // about a quarter
}

TEST_CASE("forced playouts: each root child gets floor(k*sqrt(p*total)) visits under noise") {
  MctsParams p;
  p.simulations = 300;
  p.tree_reuse = false;
  PeakedEvaluator ev;
  auto min_shortfall = [&](float k) {
    MctsParams q = p;
    q.forced_playouts_k = k;
    Mcts m(q, 99);
    m.Reset(Board(7));
    m.Search(ev, /*add_noise=*/true);
    CHECK(m.forced_playouts_active() == (k > 0));
    const std::vector<int> visits = m.VisitCounts();
    const std::vector<float> prior = m.RootPriors();
    int total = 0;
    for (int v : visits) total += v;
    CHECK(total == p.simulations - 1);
    int shortfall = 0;
    for (size_t i = 0; i < visits.size(); ++i) {
      const int need = static_cast<int>(std::floor(2.0 * std::sqrt(prior[i] * total)));
      shortfall = std::max(shortfall, need - visits[i]);
    }
    return shortfall;
  };
  CHECK(min_shortfall(2.0f) <= 0);
  CHECK(min_shortfall(0.0f) > 0);  // the peaked prior starves the other children without them
  // Without noise nothing is forced.
  MctsParams q = p;
  q.forced_playouts_k = 2.0f;
  Mcts a(q, 99), b(p, 99);
  a.Reset(Board(7));
  b.Reset(Board(7));
  a.Search(ev, false);
  b.Search(ev, false);
  CHECK_FALSE(a.forced_playouts_active());
  CHECK(a.VisitCounts() == b.VisitCounts());
  CHECK(a.PrunedVisitCounts() == a.VisitCounts());
}

TEST_CASE("policy target pruning: a hand-computed case") {
  // c_puct 1, sqrt(parent visits 100) = 10, 99 child visits, k = 2.
  // c* = child 0: PUCT* = 0.1 + 10 * 0.45 / 61 = 0.17377.
  // child 1: forced floor(2 sqrt(0.3 * 99)) = 10; 3 / (1 + n) < PUCT* for n >= 17: 27 -> 17 (all 10 removed).
  // child 2: forced 8; -0.2 + 2 / (1 + n) < PUCT* for n >= 5: 9 -> 5 (4 removed, n = 4 would be 0.2 > PUCT*).
  // child 3: forced 4; -0.2 + 0.5 / (1 + n) < PUCT* for n >= 1: 3 -> 1, a single visit: dropped.
  std::vector<Mcts::ChildStats> c = {{60, 0.1, 0.45f, 10}, {27, 0.0, 0.3f, 11}, {9, -0.2, 0.2f, 12}, {3, -0.2, 0.05f, 13}};
  CHECK(Mcts::PruneForcedVisits(c, 1.0, 100, 99, 2.0f) == std::vector<int>{60, 17, 5, 0});
  // A child that earned its visits keeps them: child 1 with Q 0.2 is never below PUCT* when reduced.
  c[1].q = 0.2;
  CHECK(Mcts::PruneForcedVisits(c, 1.0, 100, 99, 2.0f) == std::vector<int>{60, 27, 5, 0});
  // k = 0: nothing removed.
  CHECK(Mcts::PruneForcedVisits(c, 1.0, 100, 99, 0.0f) == std::vector<int>{60, 27, 9, 3});
}

TEST_CASE("policy target pruning in a search: the best move keeps its visits, the others lose forced ones") {
  MctsParams p;
  p.simulations = 300;
  p.tree_reuse = false;
  p.forced_playouts_k = 2.0f;
  p.policy_target_pruning = true;
  PeakedEvaluator ev;
  Mcts m(p, 5);
  m.Reset(Board(7));
  m.Search(ev, true);
  const auto v = m.VisitCounts(), pr = m.PrunedVisitCounts();
  const int centre = 3 * 7 + 3;
  CHECK(pr[centre] == v[centre]);
  int removed = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    CHECK(pr[i] <= v[i]);
    removed += v[i] - pr[i];
  }
  CHECK(removed > 0);
  // Self-play with pruning: the policy target is the pruned distribution.
  SelfPlayParams sp = Small();
  sp.mcts = p;
  sp.mcts.simulations = 60;
  const GameRecord r = Play(sp, 8, ev);
  sp.mcts.policy_target_pruning = false;
  const GameRecord unpruned = Play(sp, 8, ev);
  CHECK(r.policy != unpruned.policy);
}

TEST_CASE("FPU reduction: an unvisited child's Q is the parent's Q less the reduction, root and below apart") {
  MctsParams p;
  p.simulations = 2;  // the root's expansion, then its first child's
  p.fpu_value = -0.7f;
  SideValueEvaluator ev(0.4f, 0.4f);
  {
    Mcts m(p, 1);  // off: fpu_value everywhere
    m.Reset(Board(7));
    m.Search(ev, false);
    CHECK(m.UnvisitedQ(0) == Approx(-0.7));
    CHECK(m.UnvisitedQ(1) == Approx(-0.7));
  }
  p.fpu_reduction_root = 0.3f;
  p.fpu_reduction = 0.1f;
  Mcts m(p, 1);
  m.Reset(Board(7));
  m.Search(ev, false);
  // Root: +0.4 (its own evaluation) and -0.4 (its child's, seen from the root) -> Q 0.
  CHECK(m.RootValue() == Approx(0.0));
  CHECK(m.UnvisitedQ(0) == Approx(0.0 - 0.3));
  // The child (node 1): its own evaluation, 0.4 for its side to move.
  CHECK(m.UnvisitedQ(1) == Approx(0.4 - 0.1));
}

TEST_CASE("Dirichlet alpha scaled to the legal moves: the noise is that of alpha = c / legal") {
  MctsParams scaled;
  scaled.simulations = 1;
  scaled.dirichlet_alpha_scaled = 10.83f;
  MctsParams fixed = scaled;
  fixed.dirichlet_alpha_scaled = 0.0f;
  fixed.dirichlet_alpha = 10.83f / 49.0f;
  UniformEvaluator ev;
  Mcts a(scaled, 17), b(fixed, 17), c(MctsParams{}, 17);
  CHECK(a.NoiseAlpha(49) == 10.83f / 49.0f);
  CHECK(a.NoiseAlpha(20) == 10.83f / 20.0f);
  for (Mcts* m : {&a, &b, &c}) {
    m->Reset(Board(7));
    m->Search(ev, true);
  }
  CHECK(a.RootPriors() == b.RootPriors());
  CHECK(a.RootPriors() != c.RootPriors());  // alpha 0.3 draws other noise
  CHECK(a.RootPriors() != a.RootPriors(/*raw=*/true));
}

TEST_CASE("temperature schedule: tau decays with the move number; halflife 0 is the hard switch") {
  SelfPlayParams p;
  p.temperature_moves = 8;
  p.final_temperature = 0.2f;
  CHECK(MoveTemperature(p, 0) == 1.0f);
  CHECK(MoveTemperature(p, 7) == 1.0f);
  CHECK(MoveTemperature(p, 8) == 0.2f);
  p.initial_temperature = 0.8f;
  p.temperature_halflife_moves = 10.0f;
  CHECK(MoveTemperature(p, 0) == Approx(0.8));
  CHECK(MoveTemperature(p, 10) == Approx(0.5));
  CHECK(MoveTemperature(p, 20) == Approx(0.35));
  CHECK(MoveTemperature(p, 5) == Approx(0.2 + 0.6 * std::pow(0.5, 0.5)));
  CHECK(MoveTemperature(p, 200) == Approx(0.2).margin(1e-5));
}

TEST_CASE("resignation: a hopeless side resigns after N of its own searches; disabled games play on") {
  SelfPlayParams p = Small();
  p.resign_threshold = -0.9f;
  p.resign_consecutive = 3;
  p.resign_disabled_share = 0.0;
  SideValueEvaluator ev(0.95f, -0.95f);  // white is lost
  const GameRecord r = Play(p, 31, ev);
  CHECK(r.resign_on);
  CHECK(r.resigned);
  CHECK_FALSE(r.resign_disabled);
  CHECK(r.would_resign_move == 5);  // white's third search (moves 1, 3, 5)
  CHECK(r.num_moves() == 6);
  CHECK(r.to_move[5] == kWhite);
  CHECK(int(r.winner) == kBlack);
  const GameRecord back = GameRecord::FromNpzBytes(r.ToNpzBytes(), "game");
  CHECK(back.resigned);
  CHECK(back.would_resign_move == 5);

  p.resign_disabled_share = 1.0;
  const GameRecord d = Play(p, 31, ev);
  CHECK(d.resign_disabled);
  CHECK_FALSE(d.resigned);
  CHECK(d.would_resign_move == 5);
  CHECK(d.num_moves() > 6);  // played on
  CHECK(std::vector<int16_t>(d.moves.begin(), d.moves.begin() + 6) == r.moves);

  // An even position never resigns.
  SideValueEvaluator even(0.0f, 0.0f);
  const GameRecord e = Play(p, 31, even);
  CHECK(e.would_resign_move == -1);
  // The disabled draw is the seed's.
  p.resign_disabled_share = 0.5;
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    std::mt19937_64 rng(seed ^ kResignSalt);
    const bool disabled = UnitDraw(rng) < 0.5;
    CHECK(Play(p, seed, even).resign_disabled == disabled);
  }
}

TEST_CASE("balanced openings: candidates are valued by a small search and kept when balanced") {
  SelfPlayParams p = Small();
  p.balanced_opening_moves = 2;
  p.balanced_opening_max_value = 0.5f;
  p.balanced_opening_simulations = 1;  // the candidate's own evaluation
  p.balanced_opening_tries = 1000;
  CentreOpeningEvaluator ev;
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    const GameRecord r = Play(p, seed, ev);
    REQUIRE(r.opening.size() == 2);
    for (int m : r.opening) {
      CHECK(std::abs(m / 7 - 3) <= 1);
      CHECK(std::abs(m % 7 - 3) <= 1);
    }
    Board b(7);
    for (int m : r.opening) b.Play(m);
    CHECK(std::equal(b.cells().begin(), b.cells().end(), r.boards.begin()));
  }
  // Never balanced: the last of the tries is kept.
  p.balanced_opening_max_value = 0.0f;
  p.balanced_opening_tries = 3;
  const GameRecord r = Play(p, 1, ev);
  CHECK(r.opening.size() == 2);
  CHECK(r.num_moves() > 0);
}

TEST_CASE("open openings: a share of games starts from 0..max stones near the centre, the rest as before") {
  SelfPlayParams p = Small();
  p.open_opening_share = 0.5;
  p.open_opening_max_stones = 3;
  p.open_opening_radius = 1;
  SelfPlayParams off = p;
  off.open_opening_share = 0.0;
  UniformEvaluator ev;
  std::map<size_t, int> open_by_stones;
  int closed = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const GameRecord r = Play(p, seed, ev);
    // Whether a game is open is its seed's own draw (kOpenOpeningSalt).
    std::mt19937_64 coin(seed ^ kOpenOpeningSalt);
    if (UnitDraw(coin) >= p.open_opening_share) {
      // Not open: exactly the game the seed plays with the share off.
      CHECK(r.ToNpzBytes() == Play(off, seed, ev).ToNpzBytes());
      ++closed;
      continue;
    }
    ++open_by_stones[r.opening.size()];
    for (int m : r.opening) {
      CHECK(std::abs(m / 7 - 3) <= 1);
      CHECK(std::abs(m % 7 - 3) <= 1);
    }
    Board b(7);
    for (int m : r.opening) b.Play(m);
    CHECK(std::equal(b.cells().begin(), b.cells().end(), r.boards.begin()));  // the first sample follows them
    CHECK(r.num_moves() > 0);
  }
  CHECK(closed > 10);
  for (size_t k = 0; k <= 3; ++k) {
    INFO("open games with " << k << " stones");
    CHECK(open_by_stones[k] > 0);  // the empty board included: the net sees the first move
  }
  CHECK(open_by_stones.size() == 4);
}

TEST_CASE("open openings with balanced openings on: near the centre and valued, the empty board taken as it is") {
  SelfPlayParams p = Small();
  p.open_opening_share = 1.0;
  p.open_opening_radius = 2;
  p.balanced_opening_moves = 4;
  p.balanced_opening_max_value = 0.5f;
  p.balanced_opening_simulations = 1;
  p.balanced_opening_tries = 1000;
  CentreOpeningEvaluator ev;  // balanced only when every stone is within 1 of the centre
  std::map<size_t, int> by_stones;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    const GameRecord r = Play(p, seed, ev);
    ++by_stones[r.opening.size()];
    CHECK(r.opening.size() <= 3);  // never the balanced openings' 4 stones
    for (int m : r.opening) {
      CHECK(std::abs(m / 7 - 3) <= 1);  // drawn within 2, kept only when balanced: within 1
      CHECK(std::abs(m % 7 - 3) <= 1);
    }
  }
  CHECK(by_stones[0] > 0);
  CHECK(by_stones[0] < 24);
}

TEST_CASE("even openings: a share of games starts from the even set under a symmetry, the rest as before") {
  const std::vector<std::vector<int>> set = EvenOpenings(15, Rule::kFreestyle);
  REQUIRE(set.size() == 24);
  std::set<std::vector<int>> images;  // every opening of the set under every symmetry, as played
  for (const auto& o : set)
    for (int sym = 0; sym < kNumSymmetries; ++sym) {
      std::vector<int> image;
      for (int m : o) image.push_back(TransformPoint(sym, m, 15));
      images.insert(image);
    }
  SelfPlayParams p = Small();
  p.open_opening_share = 0.5;  // the games not drawn for the even set: the open openings' own draws
  p.even_opening_share = 0.5;
  SelfPlayParams off = p;
  off.even_opening_share = 0.0;
  int even = 0, other = 0, turned = 0;
  std::set<std::vector<int>> seen;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    SelfPlayGame g(p, 15, Rule::kFreestyle, seed, 1, 0);
    SelfPlayGame h(off, 15, Rule::kFreestyle, seed, 1, 0);
    std::mt19937_64 coin(seed ^ kEvenOpeningSalt);
    if (UnitDraw(coin) >= p.even_opening_share) {
      ++other;
      CHECK(g.record().opening == h.record().opening);  // exactly the game of the share 0
      CHECK(g.board().cells() == h.board().cells());
      continue;
    }
    ++even;
    const std::vector<int> opening(g.record().opening.begin(), g.record().opening.end());
    INFO("seed " << seed);
    CHECK(images.count(opening) == 1);
    CHECK(g.board().to_move() == kWhite);  // black, white, black: white to move
    CHECK(g.board().move_count() == 3);
    seen.insert(opening);
    if (std::find(set.begin(), set.end(), opening) == set.end()) ++turned;
  }
  CHECK(even > 20);
  CHECK(turned > 10);  // under the symmetries too, not only as the set lists them
  CHECK(other > 20);
  CHECK(seen.size() > 20);  // drawn across openings and symmetries, not one opening again and again
}

TEST_CASE("even openings on a board without an even set: the games of the share 0") {
  SelfPlayParams p = Small();
  p.even_opening_share = 1.0;
  SelfPlayParams off = p;
  off.even_opening_share = 0.0;
  UniformEvaluator ev;
  for (uint64_t seed = 1; seed <= 4; ++seed) CHECK(Play(p, seed, ev).ToNpzBytes() == Play(off, seed, ev).ToNpzBytes());
}

TEST_CASE("recipe keys are validated with errors naming the key") {
  auto fails = [](const nlohmann::json& j, const std::string& key) {
    try {
      Config::FromJson(j, "test");
    } catch (const ConfigError& e) {
      return std::string(e.what()).find(key) != std::string::npos;
    }
    return false;
  };
  CHECK(fails({{"selfplay", {{"playout_cap_p_full", 0.25}}}}, "selfplay.playout_cap_cheap_simulations"));
  CHECK(fails({{"selfplay", {{"playout_cap_p_full", 0.25}, {"playout_cap_cheap_simulations", 900}}}},
              "selfplay.playout_cap_cheap_simulations"));
  CHECK(fails({{"selfplay", {{"playout_cap_p_full", 1.5}}}}, "selfplay.playout_cap_p_full"));
  CHECK(fails({{"mcts", {{"policy_target_pruning", true}}}}, "mcts.policy_target_pruning"));
  CHECK(fails({{"mcts", {{"fpu_reduction", -0.1}}}}, "mcts.fpu_reduction"));
  CHECK(fails({{"selfplay", {{"resign_threshold", -1.5}}}}, "selfplay.resign_threshold"));
  CHECK(fails({{"selfplay", {{"resign_consecutive", 0}}}}, "selfplay.resign_consecutive"));
  CHECK(fails({{"selfplay", {{"balanced_opening_moves", 2}, {"random_opening_moves", 2}}}},
              "selfplay.balanced_opening_moves"));
  CHECK(fails({{"board", {{"size", 15}}}, {"selfplay", {{"even_opening_share", 0.5}, {"random_opening_moves", 2}}}},
              "selfplay.even_opening_share"));
  CHECK(fails({{"selfplay", {{"open_opening_share", 0.5}, {"random_opening_moves", 2}}}},
              "selfplay.open_opening_share"));
  // A board without an even set is not an error (its games start as with share
  // 0: the test case above): a config made for 15x15 freestyle with the share
  // on must still start a run of another size or rule (league runs change
  // only the board).
  CHECK_NOTHROW(Config::FromJson({{"board", {{"size", 9}}}, {"selfplay", {{"even_opening_share", 0.5}}}}, "test"));
  CHECK_NOTHROW(Config::FromJson({{"board", {{"size", 15}, {"rule", "renju"}}}, {"selfplay", {{"even_opening_share", 0.5}}}},
                                 "test"));
  CHECK(fails({{"board", {{"size", 15}}}, {"selfplay", {{"even_opening_share", 1.5}}}}, "selfplay.even_opening_share"));
  CHECK_NOTHROW(Config::FromJson({{"board", {{"size", 15}, {"rule", "freestyle"}}}, {"selfplay", {{"even_opening_share", 0.5}}}},
                                 "test"));
  CHECK(fails({{"train", {{"value_target_q_weight", 1.5}}}}, "train.value_target_q_weight"));
  CHECK(fails({{"train", {{"window_power_alpha", -1}}}}, "train.window_power_alpha"));
  CHECK(fails({{"train", {{"max_samples_per_new_sample", -1}}}}, "train.max_samples_per_new_sample"));
  CHECK_NOTHROW(Config::FromJson({{"selfplay", {{"playout_cap_p_full", 0.25}, {"playout_cap_cheap_simulations", 100}}},
                                  {"mcts", {{"forced_playouts_k", 1.4}, {"policy_target_pruning", true}}}},
                                 "test"));
}

TEST_CASE("configs/recipe-11x11.json switches the recipe on; configs/baseline-11x11.json is the same run with it off") {
  const Config recipe = Config::Load(std::string(GZ_SOURCE_DIR) + "/configs/recipe-11x11.json", {});
  const Config base = Config::Load(std::string(GZ_SOURCE_DIR) + "/configs/baseline-11x11.json", {});
  CHECK(recipe.board.size == 11);
  CHECK(base.board.size == 11);
  CHECK(recipe.net.channels == base.net.channels);
  CHECK(recipe.net.blocks == base.net.blocks);
  const SelfPlayParams r = recipe.selfplay_params(), b = base.selfplay_params();
  CHECK(r.playout_cap_on());
  CHECK(r.resign_on());
  CHECK(r.mcts.forced_playouts_k > 0);
  CHECK(r.balanced_opening_moves > 0);
  CHECK(recipe.train.value_target_q_weight > 0);
  CHECK(recipe.train.window_power_alpha > 0);
  CHECK(recipe.train.max_samples_per_new_sample > 0);
  CHECK_FALSE(b.playout_cap_on());
  CHECK_FALSE(b.resign_on());
  CHECK(b.mcts.forced_playouts_k == 0);
  CHECK(base.train.value_target_q_weight == 0);
  // About the same search effort per move: p_full * full + (1 - p_full) * cheap = the baseline's.
  CHECK(r.playout_cap_p_full * r.mcts.simulations + (1 - r.playout_cap_p_full) * r.playout_cap_cheap_simulations ==
        Approx(b.mcts.simulations));
}

TEST_CASE("the whole recipe together: games are complete, consistent and survive their files") {
  SelfPlayParams p = Config::Load(std::string(GZ_SOURCE_DIR) + "/configs/recipe-11x11.json", {}).selfplay_params();
  p.mcts.simulations = 40;
  p.playout_cap_cheap_simulations = 8;
  p.balanced_opening_simulations = 4;
  RolloutEvaluator ev(Rule::kFreestyle, 1, 3);
  for (uint64_t seed : {1u, 2u, 3u}) {
    const GameRecord r = Play(p, seed, ev, 9);
    CHECK(r.opening.size() == 4);
    CHECK(static_cast<int>(r.full_search.size()) == r.num_moves());
    CHECK(r.resign_on);
    const GameRecord back = GameRecord::FromNpzBytes(r.ToNpzBytes(), "game");
    CHECK(back.ToNpzBytes() == r.ToNpzBytes());
    Board b(9);
    for (int m : r.opening) b.Play(m);
    for (int t = 0; t < r.num_moves(); ++t) {
      CHECK(std::equal(b.cells().begin(), b.cells().end(), r.boards.begin() + t * 81));
      CHECK(r.policy[t * 81 + r.moves[t]] > 0.0f);  // the move chosen was in the (pruned) target
      if (t + 1 < r.num_moves() || !r.resigned) b.Play(r.moves[t]);
    }
    if (!r.resigned) CHECK((b.terminal() || b.move_count() == 81));
  }
}
