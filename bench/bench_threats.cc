// bench_threats: the threat solver's speed on random mid-game 15x15
// positions: the fast queries (five points, fours), VCF nodes/s and cost per
// query at the budgets MCTS would use, and the cost of the bundle an
// expansion would ask for (both sides' five points, VCF for the side to move
// and the null-move VCF for the opponent), and VCT (fours and threes,
// common/game/vct.h) beside VCF at the same budgets.  One thread.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/bench_positions.h"
#include "common/base/cli.h"
#include "common/game/threats.h"
#include "common/game/vct.h"

using namespace gz;

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<Board> Positions(int count, int stones, Rule rule, uint64_t seed) {
  return bench::RandomPositions(count, stones, seed, /*quiet=*/true, rule);
}

void FastQueries(const std::vector<Board>& set) {
  size_t sink = 0;
  const int reps = 20;
  auto t0 = Clock::now();
  for (int r = 0; r < reps; ++r)
    for (const Board& b : set) sink += FivePoints(b, b.to_move()).size();
  const double five_us = Seconds(t0) * 1e6 / (reps * set.size());
  t0 = Clock::now();
  for (int r = 0; r < reps; ++r)
    for (const Board& b : set) sink += FourMoves(b, b.to_move()).size();
  const double four_us = Seconds(t0) * 1e6 / (reps * set.size());
  std::printf("    FivePoints %.2f us/query, FourMoves %.2f us/query (checksum %zu)\n", five_us, four_us, sink);
}

// Times `solve(board, side)` for both sides of every board and hands each
// result and its seconds to `tally`; returns the slowest query's seconds.
template <class Solve, class Tally>
double TimeBothSides(const std::vector<Board>& set, Solve solve, Tally tally) {
  double worst = 0;
  for (const Board& b : set)
    for (int8_t side : {kBlack, kWhite}) {
      const auto q0 = Clock::now();
      const auto r = solve(b, side);
      const double qs = Seconds(q0);
      worst = std::max(worst, qs);
      tally(b, side, r, qs);
    }
  return worst;
}

void VcfAtBudget(const std::vector<Board>& set, int64_t budget) {
  ThreatSolver solver;  // one solver for the whole set, as one MCTS thread would keep
  int64_t nodes = 0;
  int win = 0, none = 0, unknown = 0;
  // Queries that really search (>= 20 nodes): their nodes/s is the search's
  // own speed, without the per-query board copy that dominates short ones.
  int64_t deep_nodes = 0;
  double deep_s = 0;
  auto t0 = Clock::now();
  const double worst = TimeBothSides(
      set, [&](const Board& b, int8_t side) { return solver.Vcf(b, side, budget); },
      [&](const Board&, int8_t, const VcfResult& r, double qs) {
        if (r.nodes >= 20) {
          deep_nodes += r.nodes;
          deep_s += qs;
        }
        nodes += r.nodes;
        if (r.status == VcfStatus::kWin) ++win;
        else if (r.status == VcfStatus::kNoVcf) ++none;
        else ++unknown;
      });
  const double s = Seconds(t0);
  const double q = 2.0 * set.size();
  std::printf("    budget %6lld: %9.0f nodes/s  %8.2f us/query (worst %8.1f us)  %6.1f nodes/query  "
              "win %4d  no_vcf %4d  unknown %4d  searching queries %9.0f nodes/s\n",
              static_cast<long long>(budget), nodes / s, s * 1e6 / q, worst * 1e6, nodes / q, win, none, unknown,
              deep_s > 0 ? deep_nodes / deep_s : 0.0);
}

void ExpansionBundle(const std::vector<Board>& set, int64_t budget) {
  ThreatSolver solver;
  size_t sink = 0;
  auto t0 = Clock::now();
  for (const Board& b : set) {
    sink += FivePoints(b, b.to_move()).size();
    sink += FivePoints(b, Opponent(b.to_move())).size();
    sink += solver.Vcf(b, b.to_move(), budget).line.size();
    sink += solver.Vcf(b, Opponent(b.to_move()), budget).line.size();
  }
  std::printf("    expansion bundle (2x FivePoints + VCF + null-move VCF, budget %lld): %.2f us/expansion (checksum %zu)\n",
              static_cast<long long>(budget), Seconds(t0) * 1e6 / set.size(), sink);
}

void VctAtBudget(const std::vector<Board>& set, int64_t budget) {
  VctSolver solver;  // one solver for the whole set, as one search keeps
  ThreatSolver vcf;
  int64_t nodes = 0;
  int win = 0, beyond_vcf = 0, none = 0, unknown = 0;
  auto t0 = Clock::now();
  double vcf_s = 0;
  const double worst = TimeBothSides(
      set, [&](const Board& b, int8_t side) { return solver.Vct(b, side, budget); },
      [&](const Board& b, int8_t side, const VctResult& r, double) {
        nodes += r.nodes;
        if (r.status == VctStatus::kWin) {
          ++win;
          auto v0 = Clock::now();
          if (!vcf.Vcf(b, side, budget).proven_win()) ++beyond_vcf;
          vcf_s += Seconds(v0);
        } else if (r.status == VctStatus::kNoVct) {
          ++none;
        } else {
          ++unknown;
        }
      });
  const double s = Seconds(t0) - vcf_s;
  const double q = 2.0 * set.size();
  std::printf("    VCT budget %6lld: %9.0f nodes/s  %9.2f us/query (worst %9.1f us)  %7.1f nodes/query  "
              "win %4d (not VCF %4d)  no_vct %4d  unknown %4d\n",
              static_cast<long long>(budget), nodes / s, s * 1e6 / q, worst * 1e6, nodes / q, win, beyond_vcf, none,
              unknown);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: bench_threats [--quick]\n";
  CliArgs args = ParseCli(argc, argv, CliSpec{usage, {}, {"--quick"}});
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const int count = args.has("--quick") ? 100 : 1000;
  std::printf("bench_threats: one thread, %d random 15x15 positions per row (stones in the central 11x11,\n"
              "no five point for either side); VCF queried for both sides of each\n", count);
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard})
    for (int stones : {30, 60}) {
      std::vector<Board> set = Positions(count, stones, rule, 16 + stones);
      std::printf("  %s, %d stones:\n", RuleName(rule), stones);
      FastQueries(set);
      for (int64_t budget : {100, 1000, 10000}) VcfAtBudget(set, budget);
      ExpansionBundle(set, 100);
      for (int64_t budget : {100, 1000, 10000}) VctAtBudget(set, budget);
    }
  // Renju (black's forbidden points make every VCT node dearer).
  for (int stones : {30, 60}) {
    std::vector<Board> set = Positions(count / 4, stones, Rule::kRenju, 160 + stones);
    std::printf("  renju, %d stones (%zu positions):\n", stones, set.size());
    for (int64_t budget : {100, 1000}) VcfAtBudget(set, budget);
    for (int64_t budget : {100, 1000}) VctAtBudget(set, budget);
  }
  return 0;
}
