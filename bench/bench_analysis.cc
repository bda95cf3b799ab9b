// bench_analysis: throughput of the JSON analysis engine (common/match/analysis_engine.h)
// with 1 and with N concurrent queries.  The same set of positions (short
// openings, one query each, --visits simulations) is analysed once with one
// search at a time (--max-searches 1) and once with N at a time, round by
// round interleaved so that machine load hits both alike; with N trees the
// leaves of all of them go through one evaluation per round (one batched
// forward), which is what the concurrency buys.  Prints positions/s,
// visits/s, positions per forward and the ratio N / 1 of the same run.
//
// usage: bench_analysis [--net PATH (default: the newest shipped 15x15 net; "" = rollout baseline)]
//                       [--positions 16] [--visits 200] [--concurrent 8] [--leaves 8] [--rounds 2]
//                       [--set key=value ...] (engine settings, e.g. inference.backend=torch)
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/match/analysis_engine.h"
#include "engine/engine_settings.h"
#include "common/match/evaluator_source.h"
#include "common/match/shipped_nets.h"

using namespace gz;

namespace {

using Clock = std::chrono::steady_clock;

// Query i: a short opening around the centre, different for each i.
std::string Query(int i, int visits) {
  const int c = 7, dx = i % 5 - 2, dy = (i / 5) % 5 - 2;
  std::string moves = R"([["B","7,7"],["W",")" + std::to_string(c + dx) + "," + std::to_string(c + 1 + (dy == 0 ? 1 : 0)) +
                      R"("]])";
  if (i >= 25) moves = R"([["B","7,7"],["W","8,8"],["B",")" + std::to_string(4 + i % 7) + "," + std::to_string(4 + i / 7 % 7) + R"("]])";
  return R"({"id":"p)" + std::to_string(i) + R"(","moves":)" + moves + R"(,"maxVisits":)" + std::to_string(visits) + "}";
}

struct Result {
  double seconds = 0;
  AnalysisEngine::Stats stats;
  int answered = 0;
};

Result RunOnce(EvaluatorSource& source, const EngineSettings& es, int positions, int visits, int concurrent,
               int leaves) {
  AnalysisEngineOptions options;
  options.max_searches = concurrent;
  options.leaves_per_search = leaves;
  Result r;
  AnalysisEngine engine(
      source, es.config.mcts, es.config.run.seed,
      [&r](const std::string& line) {
        if (line.find("\"isDuringSearch\":false") != std::string::npos) ++r.answered;
      },
      options);
  for (int i = 0; i < positions; ++i) engine.Submit(Query(i, visits));
  engine.CloseInput();
  const auto t0 = Clock::now();
  engine.Run();
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.stats = engine.stats();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: bench_analysis [--net PATH] [--positions 16] [--visits 200] [--concurrent 8] [--leaves 8] [--rounds 2]\n"
      "                      [--set key=value ...]\n";
  CliArgs args;
  try {
    args = ParseCli(argc, argv,
                    CliSpec{usage, {"--net", "--positions", "--visits", "--concurrent", "--leaves", "--rounds"}, {}});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n%s", e.what(), usage);
    return 2;
  }
  if (args.help) {
    std::printf("%s", usage);
    return 0;
  }
  const int positions = static_cast<int>(args.get_int("--positions", 16));
  const int visits = static_cast<int>(args.get_int("--visits", 200));
  const int concurrent = static_cast<int>(args.get_int("--concurrent", 8));
  const int leaves = static_cast<int>(args.get_int("--leaves", 8));
  const int rounds = static_cast<int>(args.get_int("--rounds", 2));
  // The engine's settings resolution (play settings from the checkpoint);
  // --set key=value as in the engine (e.g. inference.backend=torch).
  EngineCommandLine cl;
  cl.weights = args.has("--net") ? args.get("--net")
                                 : NewestShippedNet(ShippedNetDirs(ExecutableDir()), 15, "freestyle");
  cl.overrides = args.sets;
  EngineSettings es;
  try {
    es = ResolveEngineSettings(cl, ExecutableDir());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_analysis: %s\n", e.what());
    return 2;
  }
  if (cl.weights.empty()) es.weights.clear();
  EvaluatorSource source(es.weights, es.config);
  if (const std::string why = source.CheckSize(15); !why.empty()) {
    std::fprintf(stderr, "bench_analysis: %s\n", why.c_str());
    return 1;
  }
  std::printf("bench_analysis: %s\n  %d positions x %d visits, %d leaves a tree a round, %d rounds, solver %s\n",
              source.Describe().c_str(), positions, visits, leaves, rounds, es.config.mcts.solver ? "on" : "off");
  Result one, many;
  for (int round = 0; round < rounds; ++round) {
    for (int conc : {1, concurrent}) {
      const Result r = RunOnce(source, es, positions, visits, conc, leaves);
      if (r.answered != positions) {
        std::fprintf(stderr, "bench_analysis: %d of %d queries answered\n", r.answered, positions);
        return 1;
      }
      Result& t = conc == 1 ? one : many;
      t.seconds += r.seconds;
      t.stats.positions += r.stats.positions;
      t.stats.forwards += r.stats.forwards;
      std::printf("  round %d, %2d concurrent: %.2f s, %.2f positions/s\n", round + 1, conc, r.seconds,
                  positions / r.seconds);
    }
  }
  auto line = [&](const char* name, const Result& t) {
    const double pos_s = positions * rounds / t.seconds;
    std::printf("%-14s %8.2f positions/s %9.0f visits/s %7.1f evaluated positions per forward\n", name, pos_s,
                pos_s * visits, static_cast<double>(t.stats.positions) / static_cast<double>(t.stats.forwards));
    return pos_s;
  };
  const double a = line("1 query", one);
  char name[32];
  std::snprintf(name, sizeof(name), "%d queries", concurrent);
  const double b = line(name, many);
  std::printf("ratio %d / 1: %.2f\n", concurrent, b / a);
  return 0;
}
