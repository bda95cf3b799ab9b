// bench_engine_search: the engine's search (SearchPlayer, as pbrain-gomoku-zero
// runs it) with a randomly initialised configs/cpu.json-sized network (15x15,
// 32x4) on the CPU, at a fixed time a move: simulations per second (each one
// network evaluation unless its leaf was terminal or solver-proven) for
// engine.batch x engine.threads, printed as ratios to batch 1 on
// one thread measured in the same run.  The settings are interleaved round
// by round so that a change in machine load hits every setting alike.
// --net plays a given checkpoint instead of the random net; --backends runs
// every setting with each inference.backend (torch: LibTorch, native: the
// native CPU forward), the first setting's first backend
// being the ratios' base.
//
// usage: bench_engine_search [--ms 500] [--rounds 2] [--positions 4]
//                            [--symmetry random|none|all8] [--inference-threads 1]
//                            [--settings 1x1,4x1,8x1,16x1,32x1,8x2,16x2] [--solver]
//                            [--net PATH] [--backends auto|torch,native]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_positions.h"
#include "common/base/cli.h"
#include "common/net/net_api.h"
#include "engine/engine_settings.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"

using namespace gz;

namespace {

using Clock = std::chrono::steady_clock;

struct Setting {
  int batch, threads;
  std::string symmetry;  // "" = --symmetry
};

// BATCHxTHREADS[:SYMMETRY],...
std::vector<Setting> ParseSettings(const std::string& s) {
  std::vector<Setting> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto x = item.find('x');
    if (x == std::string::npos)
      throw std::runtime_error("--settings: expected BATCHxTHREADS[:SYMMETRY], got '" + item + "'");
    const auto colon = item.find(':');
    out.push_back({std::stoi(item.substr(0, x)), std::stoi(item.substr(x + 1, colon - x - 1)),
                   colon == std::string::npos ? "" : item.substr(colon + 1)});
  }
  return out;
}

struct Totals {
  double seconds = 0;
  int64_t sims = 0;
  int moves = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: bench_engine_search [--ms 500] [--rounds 2] [--positions 4] [--symmetry random|none|all8]\n"
      "                           [--inference-threads 1] [--settings 1x1,4x1,8x1,16x1,32x1,8x2,16x2] [--solver]\n"
      "                           [--net PATH] [--backends auto|torch,native]\n"
      "  a setting is BATCHxTHREADS[:SYMMETRY] (e.g. 1x1:all8,16x1:random); ratios are to the first\n";
  CliArgs args = ParseCli(argc, argv,
                          CliSpec{usage,
                                  {"--ms", "--rounds", "--positions", "--symmetry", "--inference-threads", "--settings", "--net",
                                   "--backends"},
                                  {"--solver"}});
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const int ms = static_cast<int>(args.get_int("--ms", 500));
  const int rounds = static_cast<int>(args.get_int("--rounds", 2));
  const int positions = static_cast<int>(args.get_int("--positions", 4));
  const std::string symmetry = args.get("--symmetry", "random");
  const int inference_threads = static_cast<int>(args.get_int("--inference-threads", 1));
  const bool solver = args.has("--solver");
  const auto settings = ParseSettings(args.get("--settings", "1x1,4x1,8x1,16x1,32x1,8x2,16x2"));
  std::vector<std::string> backends;
  {
    std::stringstream in(args.get("--backends", "auto"));
    std::string b;
    while (std::getline(in, b, ',')) backends.push_back(b);
  }

  const bool own_net = !args.has("--net");
  const std::string path =
      own_net ? "/tmp/bench_engine_search_" + std::to_string(::getpid()) + ".pt" : args.get("--net");
  if (own_net)
    CreateRandomCheckpoint(path, 15, Rule::kFreestyle, 32, 4, /*seed=*/7, /*iteration=*/0, /*model_generation=*/1);
  // One player (and network) per setting, made before any timing.
  struct Setup {
    int batch, threads;
    std::string symmetry;
    std::string backend;
    EngineSettings es;
    std::unique_ptr<EvaluatorSource> source;
    std::unique_ptr<SearchPlayer> player;
  };
  std::vector<Setup> setups;
  for (size_t k = 0; k < settings.size() * backends.size(); ++k) {
    const Setting& setting = settings[k / backends.size()];
    const std::string& backend = backends[k % backends.size()];
    const int batch = setting.batch, threads = setting.threads;
    Setup s{batch, threads, setting.symmetry.empty() ? symmetry : setting.symmetry, backend, {}, nullptr, nullptr};
    s.es.config.inference.backend = backend;
    s.es.weights = path;
    s.es.config.inference.device = "cpu";
    s.es.config.inference.threads = inference_threads;
    s.es.config.inference.symmetry = s.symmetry;
    s.es.config.mcts.solver = solver;
    s.es.config.engine.batch = batch;
    s.es.config.engine.threads = threads;
    s.source = std::make_unique<EvaluatorSource>(s.es.weights, s.es.config);
    if (const std::string why = s.source->CheckSize(15); !why.empty()) {
      std::fprintf(stderr, "bench_engine_search: %s\n", why.c_str());
      return 1;
    }
    s.player = std::make_unique<SearchPlayer>(*s.source, s.es.config);
    setups.push_back(std::move(s));
  }
  if (own_net) std::remove(path.c_str());
  const std::vector<Board> boards = bench::RandomPositions(positions, 10, /*seed=*/11, /*quiet=*/true);
  std::printf("engine search, %s, 15x15, CPU, default symmetry %s, inference.threads %d, solver %s, "
              "%d ms a move, %d positions x %d rounds (fresh tree each move)\n",
              own_net ? "random 32x4 net" : path.c_str(), symmetry.c_str(), inference_threads, solver ? "on" : "off", ms,
              positions, rounds);
  // Warm-up: one short search per setting (first forwards allocate).
  for (Setup& s : setups) {
    SearchLimits warm;
    warm.deadline = Clock::now() + std::chrono::milliseconds(100);
    s.player->ClearTree();
    s.player->ChooseMove(boards[0], warm);
  }
  std::vector<Totals> totals(setups.size());
  for (int r = 0; r < rounds; ++r)
    for (const Board& b : boards)
      for (size_t i = 0; i < setups.size(); ++i) {
        SearchLimits limits;
        limits.max_simulations = 1 << 30;
        const auto t0 = Clock::now();
        limits.deadline = t0 + std::chrono::milliseconds(ms);
        setups[i].player->ClearTree();
        const MoveDecision d = setups[i].player->ChooseMove(b, limits);
        totals[i].seconds += std::chrono::duration<double>(Clock::now() - t0).count();
        totals[i].sims += d.simulations;
        ++totals[i].moves;
      }
  const double base = totals[0].sims / totals[0].seconds;
  std::printf("  %-6s %-8s %-9s %-8s %12s %12s %8s\n", "batch", "threads", "symmetry", "backend", "sims/s", "sims/move",
              "ratio");
  for (size_t i = 0; i < setups.size(); ++i) {
    const double rate = totals[i].sims / totals[i].seconds;
    std::printf("  %-6d %-8d %-9s %-8s %12.0f %12.0f %7.2fx\n", setups[i].batch, setups[i].threads,
                setups[i].symmetry.c_str(), setups[i].backend.c_str(), rate, static_cast<double>(totals[i].sims) / totals[i].moves, rate / base);
  }
  return 0;
}
