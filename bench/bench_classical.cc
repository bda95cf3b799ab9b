// bench_classical: the classical player's speed (common/search/classical.h).
// For each node limit N, searches the same random quiet 15x15 positions and
// prints the alpha-beta nodes/s, the root threat solver's nodes, the depth
// reached and the time a move, over the searches the solver did not decide
// at the root (those run no alpha-beta: counted apart as "solved").  The
// limits are run interleaved position by position, so a busy machine slows
// them alike.
//
// Usage: bench_classical [--positions P] [--stones S] [--limits 100,1000,10000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_positions.h"
#include "common/search/classical.h"

int main(int argc, char** argv) {
  using namespace gz;
  int positions = 40, stones = 8;
  std::vector<int64_t> limits = {100, 1000, 10000};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--positions") {
      positions = std::atoi(v.c_str());
    } else if (a == "--stones") {
      stones = std::atoi(v.c_str());
    } else if (a == "--limits") {
      limits.clear();
      for (size_t s = 0; s < v.size();) {
        const size_t c = v.find(',', s);
        limits.push_back(std::atoll(v.substr(s, c - s).c_str()));
        s = c == std::string::npos ? v.size() : c + 1;
      }
    } else {
      std::fprintf(stderr, "bench_classical: unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  const std::vector<Board> boards = bench::RandomPositions(positions, stones, 52, /*quiet=*/true);
  struct Sum {
    int64_t nodes = 0, solver = 0, depth = 0, searched = 0, solved = 0;
    double seconds = 0;
  };
  std::vector<Sum> sums(limits.size());
  for (const Board& b : boards)
    for (size_t k = 0; k < limits.size(); ++k) {
      ClassicalSearch search(ClassicalOptions{limits[k]});
      const auto t0 = std::chrono::steady_clock::now();
      const ClassicalResult r = search.Search(b);
      if (r.reason != "search") {
        ++sums[k].solved;
        continue;
      }
      ++sums[k].searched;
      sums[k].seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sums[k].nodes += r.nodes;
      sums[k].solver += r.solver_nodes;
      sums[k].depth += r.depth;
    }
  std::printf("%d quiet positions of %d stones (15x15 freestyle), limits interleaved\n", positions, stones);
  std::printf("%8s %8s %8s %12s %12s %8s %12s %10s\n", "N", "searched", "solved", "nodes/move", "solver/move",
              "depth", "nodes/s", "ms/move");
  for (size_t k = 0; k < limits.size(); ++k) {
    const Sum& s = sums[k];
    const double n = s.searched > 0 ? double(s.searched) : 1.0;
    std::printf("%8lld %8lld %8lld %12.0f %12.0f %8.2f %12.0f %10.2f\n", static_cast<long long>(limits[k]),
                static_cast<long long>(s.searched), static_cast<long long>(s.solved), s.nodes / n, s.solver / n,
                s.depth / n, s.seconds > 0 ? s.nodes / s.seconds : 0.0, 1000 * s.seconds / n);
  }
  return 0;
}
