// bench_mcts: MCTS simulations per second with the uniform evaluator (no
// network), one thread, on an empty and a mid-game 15x15 board.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

#include "common/base/cli.h"
#include "common/search/mcts.h"
#include "common/search/simple_evaluators.h"

using namespace gz;

namespace {
// Runs `searches` fresh searches of `sims` simulations each (the shape of a
// self-play move) and returns simulations per second.
double SimsPerSecond(const Board& b, int sims, int searches) {
  UniformEvaluator ev;
  MctsParams p;
  p.simulations = sims;
  Mcts m(p, 1);
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < searches; ++r) {
    m.Reset(b);
    m.Search(ev, true);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(sims) * searches / s;
}
}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: bench_mcts [--quick]\n";
  CliArgs args = ParseCli(argc, argv, CliSpec{usage, {}, {"--quick"}});
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
  return 0;
}
