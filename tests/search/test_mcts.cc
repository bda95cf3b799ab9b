#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "common/base/errors.h"
#include "common/search/mcts.h"
#include "common/search/simple_evaluators.h"
#include "tests/support/board_points.h"

using namespace gz;
using gz::testing::P;

namespace {
Board Play(int n, const std::vector<int>& moves) {
  Board b(n);
  for (int m : moves) b.Play(m);
  return b;
}
// Parameters with `sims` simulations, the rest default.
MctsParams WithSims(int sims) {
  MctsParams p;
  p.simulations = sims;
  return p;
}
// As WithSims, without Dirichlet noise (dirichlet_alpha 0).
MctsParams NoDirichlet(int sims) {
  MctsParams p = WithSims(sims);
  p.dirichlet_alpha = 0;
  return p;
}
// A tree for `b` searched once with the uniform evaluator (`noise`: root noise).
Mcts Searched(const MctsParams& p, uint64_t seed, const Board& b, bool noise) {
  Mcts m(p, seed);
  m.Reset(b);
  UniformEvaluator ev;
  m.Search(ev, noise);
  return m;
}
int BestMove(const Board& b, int sims, uint64_t seed = 1) {
  Mcts m = Searched(NoDirichlet(sims), seed, b, false);
  std::mt19937_64 rng(seed);
  return PickMove(m.VisitCounts(), 0.0f, rng);
}
}  // namespace

TEST_CASE("MCTS with the uniform evaluator plays the winning move") {
  const int n = 9;
  // Black has (4,2..5); white scattered.  Black to move; (4,1) or (4,6) wins.
  Board b = Play(n, {P(n, 4, 2), P(n, 0, 0), P(n, 4, 3), P(n, 0, 8), P(n, 4, 4), P(n, 8, 0), P(n, 4, 5), P(n, 8, 8)});
  REQUIRE(b.to_move() == kBlack);
  int m = BestMove(b, 800);
  CHECK((m == P(n, 4, 1) || m == P(n, 4, 6)));
}

TEST_CASE("MCTS with the uniform evaluator blocks the opponent's four") {
  const int n = 7;
  // White has (2,1..4); black holds (2,0), so only (2,5) stops five.
  Board b = Play(n, {P(n, 2, 0), P(n, 2, 1), P(n, 6, 6), P(n, 2, 2), P(n, 6, 0), P(n, 2, 3), P(n, 0, 6),
                     P(n, 2, 4)});
  REQUIRE(b.to_move() == kBlack);
  int m = BestMove(b, 4000);
  CHECK(m == P(n, 2, 5));
}

TEST_CASE("visit distribution sums to one and root value is in range") {
  Mcts m = Searched(WithSims(200), 3, Board(7), true);
  auto d = m.VisitDistribution();
  double s = 0;
  for (float x : d) s += x;
  CHECK(s == Approx(1.0).epsilon(1e-5));
  CHECK(m.RootVisits() == 200);
  CHECK(m.RootValue() >= -1.0f);
  CHECK(m.RootValue() <= 1.0f);
}

TEST_CASE("search is deterministic for a seed and depends on it (noise)") {
  auto run = [](uint64_t seed) { return Searched(WithSims(300), seed, Board(9), true).VisitCounts(); };
  CHECK(run(7) == run(7));
  CHECK(run(7) != run(8));
}

TEST_CASE("tree reuse keeps the chosen subtree's visits") {
  Board b(7);
  MctsParams p = NoDirichlet(400);
  Mcts m = Searched(p, 1, b, false);
  UniformEvaluator ev;
  auto counts = m.VisitCounts();
  std::mt19937_64 rng(1);
  int mv = PickMove(counts, 0.0f, rng);
  int child_visits = counts[mv];
  REQUIRE(child_visits > 1);
  m.Advance(mv);
  CHECK(m.RootVisits() == child_visits);
  m.Search(ev, false);
  CHECK(m.RootVisits() == child_visits + 400);
  // Without reuse the tree starts over.
  p.tree_reuse = false;
  Mcts f(p, 1);
  f.Reset(b);
  f.Search(ev, false);
  f.Advance(mv);
  CHECK(f.RootVisits() == 0);
}

TEST_CASE("terminal leaves are scored exactly") {
  const int n = 7;
  // Black to move can win immediately; after search the root value must be high.
  Board b = Play(n, {P(n, 0, 0), P(n, 6, 6), P(n, 0, 1), P(n, 6, 4), P(n, 0, 2), P(n, 4, 6), P(n, 0, 3), P(n, 3, 3)});
  Mcts m = Searched(NoDirichlet(2000), 1, b, false);
  CHECK(m.RootValue() > 0.8f);
}

TEST_CASE("misuse of the step API is an error, not a crash") {
  MctsParams p;
  p.simulations = 10;
  Mcts m(p, 1);
  m.Reset(Board(7));
  EvalResult r;
  CHECK_THROWS_AS(m.ExpandAndBackup(r), GomokuError);
  m.StartMove(false);
  REQUIRE(m.SelectLeaf() != nullptr);
  CHECK_THROWS_AS(m.SelectLeaf(), GomokuError);
  r.log_policy.assign(10, 0.0f);  // wrong size
  CHECK_THROWS_AS(m.ExpandAndBackup(r), GomokuError);
  CHECK_THROWS_AS(PickMove(std::vector<int>(9, 0), 0.0f, *new std::mt19937_64(1)), GomokuError);
}

TEST_CASE("PickMove: argmax at low temperature, samples only visited moves at tau 1") {
  std::vector<int> v = {0, 5, 9, 0, 1};
  std::mt19937_64 rng(5);
  CHECK(PickMove(v, 0.0f, rng) == 2);
  for (int i = 0; i < 200; ++i) {
    int m = PickMove(v, 1.0f, rng);
    CHECK(v[m] > 0);
  }
}

namespace {
// Deterministic, non-uniform "network": priors and values from the position hash.
class HashEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    for (size_t i = 0; i < positions.size(); ++i) {
      const uint64_t h = positions[i].Hash();
      const int pts = positions[i].size * positions[i].size;
      results[i].log_policy.resize(pts);
      for (int m = 0; m < pts; ++m) {
        // A few strong moves, many weak ones, and some exact ties.
        const uint64_t x = (h ^ (0x9E3779B97F4A7C15ull * (m + 1))) >> 40;
        results[i].log_policy[m] = static_cast<float>(x % 7) * -0.5f;
      }
      results[i].value = static_cast<float>(static_cast<int>(h % 181) - 90) / 100.0f;
      results[i].model_generation = 1;
    }
  }
  std::string Describe() const override { return "hash"; }
};

// The textbook search: every child materialised at expansion, selection scans
// all of them (ties to the lowest move).  Mcts must choose exactly as this does.
class ReferenceSearch {
 public:
  ReferenceSearch(const MctsParams& p, uint64_t seed) : p_(p), rng_(seed) {}
  void Reset(const Board& b) {
    root_board_ = b;
    nodes_.assign(1, N{});
  }
  void Advance(int move) {
    root_board_.Play(move);
    int child = -1;
    for (int c : nodes_[0].children)
      if (nodes_[c].move == move) child = c;
    if (child < 0 || root_board_.terminal() || nodes_[child].visits == 0) {
      nodes_.assign(1, N{});
      return;
    }
    std::vector<N> fresh;
    Copy(child, fresh);
    nodes_.swap(fresh);
  }
  void Search(Evaluator& ev, bool noise) {
    bool noise_pending = noise;
    if (nodes_[0].expanded) {
      for (int c : nodes_[0].children) nodes_[c].prior = nodes_[c].raw;
      if (noise) Noise();
      noise_pending = false;
    }
    for (int s = 0; s < p_.simulations; ++s) {
      std::vector<int> path{0};
      Board b = root_board_;
      int node = 0;
      while (nodes_[node].expanded) {
        const double sq = std::sqrt(static_cast<double>(std::max(nodes_[node].visits, 1)));
        int best = -1;
        double bs = -1e300;
        for (int c : nodes_[node].children) {
          const N& n = nodes_[c];
          double sc = n.visits > 0 ? n.w / n.visits + p_.c_puct * sq * n.prior / (1.0 + n.visits)
                                   : p_.fpu_value + p_.c_puct * sq * n.prior;
          if (sc > bs) bs = sc, best = c;
        }
        node = best;
        b.Play(nodes_[node].move);
        path.push_back(node);
      }
      double v;
      if (b.terminal()) {
        v = b.outcome() == Outcome::kDraw ? 0.0 : 1.0;
      } else {
        Position pos = b.ToPosition();
        EvalResult r;
        ev.Evaluate({&pos, 1}, {&r, 1});
        std::vector<int> legal = b.LegalMoves();
        float mx = -1e30f;
        for (int m : legal) mx = std::max(mx, r.log_policy[m]);
        std::vector<float> pr(legal.size());
        double sum = 0;
        for (size_t i = 0; i < legal.size(); ++i) sum += (pr[i] = std::exp(r.log_policy[legal[i]] - mx));
        for (size_t i = 0; i < legal.size(); ++i) {
          N c;
          c.move = legal[i];
          c.raw = c.prior = static_cast<float>(pr[i] * (1.0 / sum));
          nodes_[node].children.push_back(static_cast<int>(nodes_.size()));
          nodes_.push_back(c);
        }
        nodes_[node].expanded = true;
        if (node == 0 && noise_pending) Noise(), noise_pending = false;
        v = -static_cast<double>(r.value);
      }
      for (int i = static_cast<int>(path.size()) - 1; i >= 0; --i, v = -v) {
        nodes_[path[i]].visits += 1;
        nodes_[path[i]].w += v;
      }
    }
  }
  std::vector<int> VisitCounts() const {
    std::vector<int> v(root_board_.num_points(), 0);
    for (int c : nodes_[0].children) v[nodes_[c].move] = nodes_[c].visits;
    return v;
  }

 private:
  struct N {
    double w = 0;
    int visits = 0, move = -1;
    float prior = 0, raw = 0;
    bool expanded = false;
    std::vector<int> children;
  };
  void Noise() {
    auto& ch = nodes_[0].children;
    std::gamma_distribution<double> gamma(p_.dirichlet_alpha, 1.0);
    std::vector<double> x(ch.size());
    double sum = 0;
    for (auto& e : x) sum += (e = gamma(rng_));
    for (size_t k = 0; k < ch.size(); ++k) {
      N& n = nodes_[ch[k]];
      n.prior = static_cast<float>((1 - p_.dirichlet_epsilon) * n.raw + p_.dirichlet_epsilon * x[k] / sum);
    }
  }
  int Copy(int idx, std::vector<N>& dst) const {
    const int me = static_cast<int>(dst.size());
    dst.push_back(nodes_[idx]);
    dst[me].children.clear();
    for (int c : nodes_[idx].children) {
      const int copied = Copy(c, dst);
      dst[me].children.push_back(copied);
    }
    return me;
  }
  MctsParams p_;
  std::mt19937_64 rng_;
  Board root_board_{9};
  std::vector<N> nodes_;
};

void ExpectSameAsReference(Evaluator& ev, int size, int sims, bool noise, uint64_t seed) {
  MctsParams p;
  p.simulations = sims;
  Mcts fast(p, seed);
  ReferenceSearch ref(p, seed);
  Board b(size);
  fast.Reset(b);
  ref.Reset(b);
  std::mt19937_64 rng(seed);
  for (int move = 0; move < 6 && !b.terminal(); ++move) {
    fast.Search(ev, noise);
    ref.Search(ev, noise);
    const std::vector<int> counts = fast.VisitCounts();
    REQUIRE(counts == ref.VisitCounts());
    const int m = PickMove(counts, 1.0f, rng);
    b.Play(m);
    fast.Advance(m);
    ref.Advance(m);
  }
}
}  // namespace

TEST_CASE("lazy children choose exactly what a full scan of every child chooses") {
  HashEvaluator hash;
  UniformEvaluator uniform;  // all priors equal, values 0: ties everywhere
  for (uint64_t seed : {1u, 2u, 3u}) {
    ExpectSameAsReference(hash, 9, 300, true, seed);
    ExpectSameAsReference(hash, 15, 200, false, seed);
    ExpectSameAsReference(uniform, 9, 300, true, seed);
    ExpectSameAsReference(uniform, 7, 400, false, seed);
  }
}

TEST_CASE("MCTS with one simulation per move still visits a move to play (the root's best prior)") {
  const int n = 9;
  Board b = Play(n, {P(n, 4, 4)});
  for (int sims : {1, 2}) {
    Mcts m = Searched(NoDirichlet(sims), 7, b, false);
    const std::vector<int> counts = m.VisitCounts();
    int visited = 0;
    for (int c : counts) visited += c > 0;
    CHECK(visited == 1);
    std::mt19937_64 rng(1);
    const int mv = PickMove(counts, 0.0f, rng);
    CHECK(b.IsLegal(mv));
  }
}
