// bench_mcts: MCTS simulations per second with the uniform evaluator (no
// network), one thread, on an empty and a mid-game 15x15 board; with
// --solver also the threat solver (mcts.solver) on vs off in the same run:
// simulations/s, the cost of one node analysis (the solver's work at an
// expansion) and its VCF nodes/s, and self-play games/min (plain, solver,
// solver + adjudication; with --net also with a random 32x4 CPU network).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include <unistd.h>
#include <utility>
#include <vector>

#include "bench/bench_positions.h"
#include "common/base/cli.h"
#include "common/game/threats.h"
#include "common/net/net_api.h"
#include "common/search/mcts.h"
#include "common/search/node_solver.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"

using namespace gz;

namespace {
// Runs `searches` fresh searches of `sims` simulations each (the shape of a
// self-play move) and returns simulations per second.
double SimsPerSecond(const Board& b, int sims, int searches, bool solver = false, int vcf_nodes = 1000,
                     int64_t* evaluations = nullptr) {
  UniformEvaluator ev;
  MctsParams p;
  p.simulations = sims;
  p.solver = solver;
  p.solver_vcf_nodes = vcf_nodes;
  Mcts m(p, 1);
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < searches; ++r) {
    m.Reset(b);
    m.Search(ev, true);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (evaluations) *evaluations = m.evaluations();
  return static_cast<double>(sims) * searches / s;
}

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

using bench::RandomPositions;

void AnalysisCost(const std::vector<Board>& set, int vcf_nodes, const char* what) {
  NodeSolver solver(vcf_nodes);  // one per search, as in Mcts
  int64_t restricted = 0, proven = 0;
  const auto t0 = Clock::now();
  for (const Board& b : set) {
    NodeVerdict v = solver.Analyse(b);
    proven += v.proven != Proven::kNone;
    restricted += v.restricted;
  }
  const double s = Since(t0);
  const NodeSolverStats& st = solver.stats();
  std::printf("  %-26s budget %5d: %8.2f us/analysis  %5.2f VCF queries and %7.1f nodes per analysis  "
              "%9.0f nodes/s  proven %4.1f%%  restricted %4.1f%%  null-move threats %4.1f%%\n",
              what, vcf_nodes, s * 1e6 / set.size(), static_cast<double>(st.vcf_queries) / set.size(),
              static_cast<double>(st.vcf_nodes) / set.size(), st.vcf_nodes / s, 100.0 * proven / set.size(),
              100.0 * restricted / set.size(), 100.0 * st.null_move_threats / set.size());
}

struct SelfPlayRate {
  double seconds = 0, games = 0, moves = 0, adjudicated = 0, sims = 0;
};
SelfPlayRate PlaySelfPlay(Evaluator& ev, int board, int sims, int games, int slots, bool solver, bool adjudicate,
                          int vcf_nodes) {
  SelfPlayParams p;
  p.mcts.simulations = sims;
  p.mcts.solver = solver;
  p.mcts.solver_vcf_nodes = vcf_nodes;
  p.adjudicate_proven = adjudicate;
  p.random_opening_moves = 2;
  SelfPlayRate r;
  int next = 0;
  const auto t0 = Clock::now();
  PlayGamesStreaming(
      slots,
      [&]() -> std::unique_ptr<SelfPlayGame> {
        if (next >= games) return nullptr;
        return std::make_unique<SelfPlayGame>(p, board, Rule::kFreestyle, GameSeed(5, 0, 0, next++), 0, 0);
      },
      [&](std::unique_ptr<SelfPlayGame> g) {
        r.games += 1;
        r.moves += g->record().num_moves();
        r.adjudicated += g->record().adjudicated;
      },
      ev);
  r.seconds = Since(t0);
  return r;
}

void SelfPlayModes(Evaluator& ev, const char* what, int board, int sims, int games);

void SolverBench(bool quick, const Board& empty) {
  const int sims = 800, searches = quick ? 20 : 100;
  // A 40-stone position where the solver proves and restricts nothing at the
  // root (a proven root would end every search at once).
  Board mid(15);
  for (const Board& b : RandomPositions(200, 40, 9, true)) {
    NodeSolver probe(1000);
    const NodeVerdict v = probe.Analyse(b);
    if (v.proven == Proven::kNone && !v.restricted) {
      mid = b;
      break;
    }
  }
  std::printf("\nsolver (mcts.solver) on vs off, same run, uniform evaluator, one thread:\n");
  std::printf("  simulations/s (%d searches of %d):\n", searches, sims);
  for (const auto& [name, b] : {std::pair<const char*, const Board*>{"empty 15x15", &empty}, {"mid-game 15x15 (quiet)", &mid}}) {
    int64_t evals_off = 0, evals_on = 0;
    // Interleaved halves (off, on, off, on), harmonic mean per mode.
    double off_s = 0, on_s = 0;
    for (int half = 0; half < 2; ++half) {
      off_s += 1.0 / SimsPerSecond(*b, sims, searches / 2, false, 1000, &evals_off);
      int64_t e = 0;
      on_s += 1.0 / SimsPerSecond(*b, sims, searches / 2, true, 1000, &e);
      evals_on += e;
    }
    const double off = 2.0 / off_s, on = 2.0 / on_s;
    // Extra time per simulation with the solver, spread over its expansions.
    const double per_expansion_us =
        evals_on > 0 ? (1.0 / on - 1.0 / off) * sims * searches / static_cast<double>(evals_on) * 1e6 : 0.0;
    std::printf("    %-22s off %9.0f  on %9.0f  (on/off %.3f; %.1f us more per expansion)\n", name, off, on, on / off,
                per_expansion_us);
  }
  const int count = quick ? 200 : 1000;
  std::printf("  one node analysis (what an expansion asks), %d random 15x15 positions per row:\n", count);
  for (bool quiet : {false, true})
    for (int stones : {20, 40}) {
      const std::vector<Board> set = RandomPositions(count, stones, 40 + stones, quiet);
      char what[64];
      std::snprintf(what, sizeof what, "%d stones%s", stones, quiet ? ", quiet" : "");
      for (int budget : {100, 1000, 10000}) AnalysisCost(set, budget, what);
    }
  const int board = 15, sp_sims = quick ? 100 : 200, games = quick ? 4 : 8;
  UniformEvaluator uniform;
  SelfPlayModes(uniform, "uniform evaluator", board, sp_sims, games);
}

void SelfPlayModes(Evaluator& ev, const char* what, int board, int sims, int games) {
  std::printf("  self-play, %s, %dx%d, %d simulations, %d games x 2 interleaved rounds, 4 in flight "
              "(PlayGamesStreaming):\n", what, board, board, sims, games);
  struct Mode {
    const char* name;
    bool solver, adjudicate;
  };
  const Mode modes[] = {{"solver off", false, false}, {"solver on", true, false}, {"solver on + adjudicate", true, true}};
  // Two interleaved rounds (off, on, adj, off, on, adj): a machine whose load
  // changes during the run biases no mode.
  SelfPlayRate sum[3];
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 3; ++i) {
      const SelfPlayRate r = PlaySelfPlay(ev, board, sims, games, 4, modes[i].solver, modes[i].adjudicate, 1000);
      sum[i].seconds += r.seconds;
      sum[i].games += r.games;
      sum[i].moves += r.moves;
      sum[i].adjudicated += r.adjudicated;
    }
  const double base = sum[0].games / sum[0].seconds;
  for (int i = 0; i < 3; ++i) {
    const SelfPlayRate& r = sum[i];
    std::printf("    %-24s %8.1f games/min  %6.1f searched moves/game  %3.0f%% adjudicated  (x%.2f)\n", modes[i].name,
                r.games / r.seconds * 60.0, r.moves / r.games, 100.0 * r.adjudicated / r.games,
                r.games / r.seconds / base);
  }
}

// Self-play with a randomly initialised configs/cpu.json-sized net (32x4) on
// the CPU, one thread: what the solver costs next to real evaluations.
void NetSelfPlay(bool quick) {
  const std::string path = "/tmp/bench_mcts_net_" + std::to_string(::getpid()) + ".pt";
  CreateRandomCheckpoint(path, 15, Rule::kFreestyle, 32, 4, 7, 0, 1);
  SymmetricEvaluator ev(LoadForward(path, "cpu", 1), SymmetryMode::kNone);
  std::remove(path.c_str());
  SelfPlayModes(ev, "random 32x4 net on the CPU (1 thread)", 15, quick ? 32 : 64, quick ? 4 : 8);
}
}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: bench_mcts [--quick] [--solver [--net]]\n";
  CliArgs args = ParseCli(argc, argv, CliSpec{usage, {}, {"--quick", "--solver", "--net"}});
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const bool quick = args.has("--quick");
  const int sims = 800;  // the seed's simulations per move
  const int searches = quick ? 50 : 300;
  Board empty(15);
  Board mid(15);
  std::mt19937_64 rng(3);
  // A mid-game position: 40 stones placed around the centre, no five.
  while (mid.move_count() < 40) {
    int r = 7 + static_cast<int>(rng() % 9) - 4, c = 7 + static_cast<int>(rng() % 9) - 4;
    int m = r * 15 + c;
    if (!mid.IsLegal(m)) continue;
    Board t = mid;
    t.Play(m);
    if (t.terminal()) continue;
    mid = t;
  }
  double e = SimsPerSecond(empty, sims, searches);
  double m = SimsPerSecond(mid, sims, searches);
  std::printf("bench_mcts: uniform evaluator, one thread, %d searches of %d simulations\n", searches, sims);
  std::printf("  empty 15x15:           %10.0f simulations/s\n", e);
  std::printf("  mid-game 15x15 (40 stones): %10.0f simulations/s\n", m);
  std::printf("  ratio mid/empty: %.2f; target >= 200000/s: %s\n", m / e, std::min(e, m) >= 200000 ? "met" : "NOT met");
  if (args.has("--solver")) SolverBench(quick, empty);
  if (args.has("--solver") && args.has("--net")) NetSelfPlay(quick);
  return 0;
}
