// The batch API of Mcts (SelectLeaves / ExpandAndBackupBatch, virtual loss):
// batch 1 is the single-leaf search bit for bit, virtual loss is reverted
// exactly, no leaf is evaluated twice, collisions are handled, the solver
// still proves, and several threads sharing one tree leave it consistent.
// Deterministic evaluators only; nothing here depends on timing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "common/search/mcts.h"
#include "common/search/simple_evaluators.h"
#include "tests/search/search_test_util.h"
#include "tests/search/solver_positions.h"

using namespace gz;
using gz::testing::NoNoiseParams;
using gz::testing::P;
using gz::testing::Picture;
using gz::testing::kFourThree;

namespace {

// A deterministic evaluator whose priors and values differ from position to
// position (the uniform evaluator ties everything): both derived from the
// position's hash.  Stateless, so thread-safe.
class MixHashEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    for (size_t i = 0; i < positions.size(); ++i) {
      const Position& p = positions[i];
      const uint64_t h = p.Hash();
      EvalResult& r = results[i];
      const int pts = p.size * p.size;
      r.log_policy.assign(pts, 0.0f);
      for (int m = 0; m < pts; ++m) r.log_policy[m] = -3.0f * static_cast<float>(Mix(h ^ (0x9e37u * (m + 1))) % 1000) / 1000.0f;
      r.value = static_cast<float>(static_cast<int>(Mix(h) % 1801) - 900) / 1000.0f;
      r.model_generation = 7;
    }
  }
  std::string Describe() const override { return "hash evaluator (tests)"; }

 private:
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  }
};

// Counts positions and how often each was evaluated.
class CountingEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    inner_.Evaluate(positions, results);
    calls.push_back(static_cast<int>(positions.size()));
    for (const Position& p : positions) ++seen[p.Hash()];
  }
  std::string Describe() const override { return "counting"; }
  std::vector<int> calls;
  std::map<uint64_t, int> seen;

 private:
  MixHashEvaluator inner_;
};

Board Opening(int n) {
  Board b(n);
  b.Play(P(n, n / 2, n / 2));
  b.Play(P(n, n / 2, n / 2 + 1));
  b.Play(P(n, n / 2 + 1, n / 2));
  return b;
}

// A search of `sims` simulations (random seed `seed`), at the start of a
// move from `root` (no noise): ready for SelectLeaves.
Mcts StartedSearch(const Board& root, int sims, uint64_t seed) {
  Mcts m(NoNoiseParams(sims), seed);
  m.Reset(root);
  m.StartMove(false);
  return m;
}

// Everything observable of a search's result.
struct Snapshot {
  std::vector<int> visits;
  std::vector<float> priors;
  float value;
  double value_sum;
  int root_visits;
  int64_t evaluations;
  Proven proven;
  bool operator==(const Snapshot&) const = default;
};
Snapshot Snap(const Mcts& m) {
  return {m.VisitCounts(), m.RootPriors(), m.RootValue(), m.RootValueSum(), m.RootVisits(), m.evaluations(),
          m.RootProven()};
}

// Plays `moves` searches from `b` (the most visited move each time, tree
// reuse on) and returns the snapshots; batch 0 = the single-leaf Search.
std::vector<Snapshot> PlayOut(const MctsParams& p, Board b, int moves, int batch, bool noise) {
  Mcts m(p, 42);
  m.Reset(b);
  MixHashEvaluator ev;
  std::vector<Snapshot> out;
  for (int i = 0; i < moves && !m.root_board().terminal(); ++i) {
    if (batch == 0) m.Search(ev, noise);
    else m.SearchBatched(ev, noise, batch);
    REQUIRE(m.CheckTree() == "");
    out.push_back(Snap(m));
    std::mt19937_64 rng(1);
    m.Advance(PickMove(m.VisitCounts(), 0.0f, rng));
  }
  return out;
}

// Stones on the board of a position.
int Stones(const Position& p) {
  return static_cast<int>(std::count_if(p.cells.begin(), p.cells.end(), [](int8_t c) { return c != kEmpty; }));
}

}  // namespace

TEST_CASE("batch 1 is the single-leaf search bit for bit (plain, noise + forced playouts, FPU, solver, reuse)") {
  MctsParams plain = NoNoiseParams(200);
  MctsParams recipe = NoNoiseParams(200);
  recipe.dirichlet_alpha = 0.3f;
  recipe.dirichlet_alpha_scaled = 10.83f;
  recipe.forced_playouts_k = 1.4f;
  recipe.policy_target_pruning = true;
  recipe.fpu_reduction = 0.2f;
  recipe.fpu_reduction_root = 0.1f;
  MctsParams solver = recipe;
  solver.solver = true;
  struct Case {
    const char* name;
    MctsParams p;
    Board board;
    bool noise;
  };
  const std::vector<Case> cases = {
      {"plain 9x9", plain, Opening(9), false},
      {"recipe under noise 9x9", recipe, Opening(9), true},
      {"solver + recipe 11x11 four-three", solver, Picture(Rule::kFreestyle, kBlack, kFourThree), true},
      {"solver, white facing the four-three", solver, Picture(Rule::kFreestyle, kWhite, kFourThree), false},
      {"renju 9x9", plain, [] {
         Board b(9, Rule::kRenju);
         b.Play(P(9, 4, 4));
         return b;
       }(), false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::vector<Snapshot> single = PlayOut(c.p, c.board, 6, 0, c.noise);
    const std::vector<Snapshot> batched = PlayOut(c.p, c.board, 6, 1, c.noise);
    REQUIRE(single.size() == batched.size());
    for (size_t i = 0; i < single.size(); ++i) {
      INFO("move " << i);
      CHECK(single[i] == batched[i]);
    }
  }
  // The comparison can fail: a larger batch searches another tree.
  const std::vector<Snapshot> single = PlayOut(plain, Opening(9), 2, 0, false);
  const std::vector<Snapshot> batch8 = PlayOut(plain, Opening(9), 2, 8, false);
  CHECK_FALSE(single == batch8);
}

TEST_CASE("virtual loss is reverted exactly: the root gets the sum of the backups, nothing stays in flight") {
  Mcts m(NoNoiseParams(100000), 3);
  const Board root = Opening(9);
  m.Reset(root);
  m.StartMove(false);
  MixHashEvaluator ev;
  Mcts::LeafBatch batch;
  std::vector<EvalResult> results;
  // The first round expands the root only.
  m.SelectLeaves(batch, 8);
  REQUIRE(batch.size() == 1);
  results.resize(1);
  ev.Evaluate(batch.positions(), results);
  m.ExpandAndBackupBatch(batch, results);
  REQUIRE(m.RootVisits() == 1);
  for (int round = 0; round < 30; ++round) {
    const int visits_before = m.RootVisits();
    const double sum_before = m.RootValueSum();
    m.SelectLeaves(batch, 16);
    REQUIRE(batch.size() >= 1);
    CHECK(m.pending_leaves() == batch.size());
    CHECK(m.CheckTree() == "");  // in-flight counts conserved while pending
    CHECK(m.RootVisits() == visits_before + batch.exact());  // exact leaves only, so far
    REQUIRE(batch.exact() == 0);  // no terminal positions this early
    results.resize(batch.size());
    ev.Evaluate(batch.positions(), results);
    // The root's sum after the batch, in the order the backups add up: a
    // leaf d plies below the root adds (-1)^d * -value.
    double expected = sum_before;
    for (int i = 0; i < batch.size(); ++i) {
      const int depth = Stones(batch.positions()[i]) - root.move_count();
      REQUIRE(depth >= 1);
      expected += (depth % 2 == 0 ? 1.0 : -1.0) * -static_cast<double>(results[i].value);
    }
    const int leaves = batch.size();
    m.ExpandAndBackupBatch(batch, results);
    CHECK(batch.empty());
    CHECK(m.pending_leaves() == 0);
    CHECK(m.RootVisits() == visits_before + leaves);
    CHECK(m.RootValueSum() == expected);
    CHECK(m.CheckTree() == "");  // every in-flight count back to 0
  }
}

TEST_CASE("no leaf is evaluated twice, in one batch or in two batches pending together") {
  Mcts m(NoNoiseParams(100000), 5);
  m.Reset(Opening(11));
  m.StartMove(false);
  MixHashEvaluator ev;
  Mcts::LeafBatch first, second;
  std::vector<EvalResult> results(1);
  m.SelectLeaves(first, 4);
  ev.Evaluate(first.positions(), results);
  m.ExpandAndBackupBatch(first, results);
  for (int round = 0; round < 20; ++round) {
    m.SelectLeaves(first, 12);
    m.SelectLeaves(second, 12);
    REQUIRE(first.size() > 1);
    std::set<int> nodes;
    for (int i = 0; i < first.size(); ++i) nodes.insert(first.node(i));
    for (int i = 0; i < second.size(); ++i) nodes.insert(second.node(i));
    REQUIRE(nodes.size() == static_cast<size_t>(first.size() + second.size()));
    CHECK(m.pending_leaves() == first.size() + second.size());
    CHECK(m.CheckTree() == "");
    // Backed up in the other order than gathered.
    results.resize(second.size());
    ev.Evaluate(second.positions(), results);
    m.ExpandAndBackupBatch(second, results);
    results.resize(first.size());
    ev.Evaluate(first.positions(), results);
    m.ExpandAndBackupBatch(first, results);
    CHECK(m.CheckTree() == "");
  }
  // A whole batched search: batches of up to 8, every simulation counted.
  CountingEvaluator counting;
  Mcts s(NoNoiseParams(600), 5);
  s.Reset(Opening(9));
  s.SearchBatched(counting, false, 8);
  CHECK(s.RootVisits() == 600);
  CHECK(s.simulations_done() == 600);
  CHECK(*std::max_element(counting.calls.begin(), counting.calls.end()) == 8);
  CHECK(counting.calls.front() == 1);  // the fresh root alone
  CHECK(s.CheckTree() == "");
}

TEST_CASE("collisions: a pending root stops the gather; a narrow tree collides and reverts") {
  // A fresh root: the first descent makes the root the leaf; the next one
  // collides with it, and the gather stops there.
  Mcts m = StartedSearch(Opening(9), 1000, 1);
  Mcts::LeafBatch a, b;
  m.SelectLeaves(a, 8);
  CHECK(a.size() == 1);
  CHECK(a.collisions() == 1);
  m.SelectLeaves(b, 8);  // another caller while the root is pending
  CHECK(b.empty());
  CHECK(b.collisions() == 1);
  CHECK(b.exact() == 0);
  CHECK(m.pending_leaves() == 1);
  CHECK(m.CheckTree() == "");
  MixHashEvaluator ev;
  std::vector<EvalResult> results(1);
  ev.Evaluate(a.positions(), results);
  m.ExpandAndBackupBatch(a, results);
  CHECK(m.CheckTree() == "");

  // A nearly full 5x5 board: white has two moves, each leaving one reply.
  // A batch of 8 takes both children, then every descent collides.
  const std::vector<std::string> full = {"XOXOX", "XOXOX", "OXOXO", "OXOXO", "XOX.."};
  Mcts narrow = StartedSearch(Picture(Rule::kFreestyle, kWhite, full), 1000, 1);
  Mcts::LeafBatch batch;
  narrow.SelectLeaves(batch, 8);  // the root
  REQUIRE(batch.size() == 1);
  results.resize(1);
  ev.Evaluate(batch.positions(), results);
  narrow.ExpandAndBackupBatch(batch, results);
  narrow.SelectLeaves(batch, 8);
  CHECK(batch.size() == 2);
  CHECK(batch.exact() == 0);
  CHECK(batch.collisions() == 8);
  CHECK(narrow.pending_leaves() == 2);
  CHECK(narrow.CheckTree() == "");  // the collisions' virtual loss is reverted, the leaves' stays
  results.resize(batch.size());
  ev.Evaluate(batch.positions(), results);
  narrow.ExpandAndBackupBatch(batch, results);
  CHECK(narrow.RootVisits() == 3);
  CHECK(narrow.CheckTree() == "");
  // Then the replies fill the board: exact (drawn) leaves, no evaluation.
  narrow.SelectLeaves(batch, 8);
  CHECK(batch.empty());
  CHECK(batch.exact() == 8);
  CHECK(narrow.RootVisits() == 11);
  CHECK(narrow.CheckTree() == "");
}

TEST_CASE("a cancelled batch leaves nothing in flight; the search goes on") {
  Mcts m = StartedSearch(Opening(9), 300, 2);
  MixHashEvaluator ev;
  Mcts::LeafBatch batch;
  std::vector<EvalResult> results(1);
  m.SelectLeaves(batch, 8);
  ev.Evaluate(batch.positions(), results);
  m.ExpandAndBackupBatch(batch, results);
  m.SelectLeaves(batch, 8);
  REQUIRE(batch.size() > 1);
  const int visits = m.RootVisits();
  m.CancelBatch(batch);
  CHECK(batch.empty());
  CHECK(m.pending_leaves() == 0);
  CHECK(m.RootVisits() == visits);
  CHECK(m.CheckTree() == "");
  while (!m.MoveDone()) {
    m.SelectLeaves(batch, 8);
    results.resize(batch.size());
    ev.Evaluate(batch.positions(), results);
    m.ExpandAndBackupBatch(batch, results);
  }
  CHECK(m.RootVisits() == 300);
  CHECK(m.CheckTree() == "");
}

TEST_CASE("misuse of the batch API is an error, not a crash") {
  Mcts m = StartedSearch(Opening(9), 100, 1);
  Mcts::LeafBatch batch;
  REQUIRE_THROWS(m.SelectLeaves(batch, 0));
  m.SelectLeaves(batch, 4);
  REQUIRE_THROWS(m.SelectLeaves(batch, 4));  // still pending
  REQUIRE_THROWS(m.SelectLeaf());            // the two paths do not mix
  REQUIRE_THROWS(m.StartMove(false));
  std::vector<EvalResult> wrong(2);
  REQUIRE_THROWS(m.ExpandAndBackupBatch(batch, wrong));  // 2 results for 1 leaf
  wrong.resize(1);
  wrong[0].log_policy.assign(10, 0.0f);                 // wrong policy size
  REQUIRE_THROWS(m.ExpandAndBackupBatch(batch, wrong));
  CHECK(m.pending_leaves() == 1);
  // A reset tree refuses the old batch.
  m.Reset(Opening(9));
  UniformEvaluator ev;
  std::vector<EvalResult> results(1);
  ev.Evaluate(batch.positions(), results);
  REQUIRE_THROWS(m.ExpandAndBackupBatch(batch, results));
  m.CancelBatch(batch);
  CHECK(m.CheckTree() == "");
}

TEST_CASE("the solver still proves with batching") {
  auto searched = [](const MctsParams& p, const Board& b, int batch) {
    Mcts m(p, 1);
    m.Reset(b);
    UniformEvaluator ev;
    m.SearchBatched(ev, false, batch);
    REQUIRE(m.CheckTree() == "");
    return m;
  };
  for (int batch : {4, 16}) {
    INFO("batch " << batch);
    // A five point: proven won at the root's expansion.
    const Board four = Picture(Rule::kFreestyle, kBlack, gz::testing::kOpenFour);
    Mcts win = searched(gz::testing::SolverParams(500), four, batch);
    CHECK(win.RootProven() == Proven::kWin);
    CHECK(win.ProvenMove() == P(9, 4, 0));
    CHECK(win.RootVisits() == 1);
    // Facing the open four: proven lost, searched among the blocks only.
    const Board facing = Picture(Rule::kFreestyle, kWhite, gz::testing::kOpenFour);
    Mcts lost = searched(gz::testing::SolverParams(300), facing, batch);
    CHECK(lost.RootProven() == Proven::kLoss);
    CHECK(lost.RootVisits() == 300);
    for (int v : gz::testing::VisitedMoves(lost.VisitCounts())) CHECK((v == P(9, 4, 0) || v == P(9, 4, 5)));
    // Facing a four-three: refutations only.
    const Board w = Picture(Rule::kFreestyle, kWhite, kFourThree);
    NodeSolver s(1000);
    const NodeVerdict verdict = s.Analyse(w);
    REQUIRE(verdict.restricted);
    Mcts refute = searched(gz::testing::SolverParams(400), w, batch);
    for (int x : gz::testing::VisitedMoves(refute.VisitCounts()))
      CHECK(std::find(verdict.moves.begin(), verdict.moves.end(), x) != verdict.moves.end());
    // MCTS-solver backup: with VCF budget 1 the four-three is proven only
    // from below, up the tree.
    const Board four_three = Picture(Rule::kFreestyle, kBlack, kFourThree);
    Mcts deep = searched(gz::testing::SolverParams(5000, true, 1), four_three, batch);
    REQUIRE(deep.RootProven() == Proven::kWin);
    CHECK(deep.ProvenMove() == P(11, 5, 6));
    CHECK(deep.RootVisits() < 5000);
    CHECK(gz::testing::VisitedMoves(deep.VisitCounts()) == std::vector<int>{P(11, 5, 6)});
    deep.Advance(P(11, 5, 6));
    CHECK(deep.RootProven() == Proven::kLoss);
  }
}

TEST_CASE("several threads sharing one tree: consistent tree, every simulation counted, a legal move") {
  for (int threads : {2, 4}) {
    for (int batch : {1, 6}) {
      INFO(threads << " threads, batch " << batch);
      MctsParams p = NoNoiseParams(3000);
      p.solver = true;
      Mcts m(p, 9);
      Board b = Opening(11);
      m.Reset(b);
      MixHashEvaluator ev;  // stateless: evaluated outside the lock, concurrently
      // Keep some of the tree: a first search, then the reply's subtree.
      m.SearchBatched(ev, false, 4);
      std::mt19937_64 rng(1);
      const int own = PickMove(m.VisitCounts(), 0.0f, rng);
      m.Advance(own);
      b.Play(own);
      const int reused = m.RootVisits();
      m.StartMove(false);
      std::mutex tree;
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
          Mcts::LeafBatch mine;
          std::vector<EvalResult> results;
          std::unique_lock<std::mutex> lock(tree);
          while (!m.MoveDone()) {
            m.SelectLeaves(mine, batch);
            if (mine.empty()) {  // collided with another thread's leaves: let it finish
              lock.unlock();
              std::this_thread::yield();
              lock.lock();
              continue;
            }
            results.resize(mine.size());
            lock.unlock();
            ev.Evaluate(mine.positions(), results);
            lock.lock();
            m.ExpandAndBackupBatch(mine, results);
          }
        });
      for (auto& t : pool) t.join();
      CHECK(m.pending_leaves() == 0);
      CHECK(m.CheckTree() == "");
      CHECK(m.simulations_done() == 3000);
      CHECK(m.RootVisits() == reused + 3000);
      std::mt19937_64 pick(1);
      CHECK(b.IsLegal(PickMove(m.VisitCounts(), 0.0f, pick)));
    }
  }
}
