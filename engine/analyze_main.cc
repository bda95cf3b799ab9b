// analyze: the JSON analysis engine (common/match/analysis_engine.h,
// docs/engine.md "Analysis").  Queries on stdin, one JSON object a line;
// responses on stdout, one JSON object a line (flushed); logs on stderr.
// At end of input the searches already queued finish, then it exits.
// Search settings and the net: exactly as pbrain-gomoku-zero's
// (engine/engine_settings.h), so the analysis is the engine's search.
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "common/base/errors.h"
#include "common/base/logging.h"
#include "common/match/analysis_engine.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"
#include "common/match/evaluator_source.h"
#include "common/match/shipped_nets.h"

namespace {

void Reply(const std::string& line) {
  std::string out = line + "\n";
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) std::_Exit(1);
}

constexpr const char* kAnalyzeFlags =
    "  --max-visits N     simulations of a query without maxVisits (400)\n"
    "  --leaves N         leaves gathered from each tree per round, virtual loss (8)\n"
    "  --max-searches N   trees searched at once; later turns wait (64)\n"
    "  --max-memory-mb N  memory for the search trees of all queries together, in MB (1536; lowered to fit\n"
    "                     an address-space limit such as ulimit -v); a search that reaches it answers\n"
    "                     with the visits it has and \"memoryLimited\": true\n"
    "  --search-memory-mb N  the same for one search (default: --max-memory-mb)\n";

}  // namespace

int main(int argc, char** argv) {
#if defined(SIGPIPE)
  std::signal(SIGPIPE, SIG_IGN);
#endif
  gz::EngineCommandLine cl;
  gz::AnalysisEngineOptions options;
  int64_t memory_mb = 0, search_memory_mb = 0;
  try {
    const std::string usage = std::string("usage: analyze [flags]  (JSON analysis queries on stdin, responses on stdout)\n") +
                              gz::EngineFlagsHelp() + kAnalyzeFlags;
    const std::optional<gz::CliArgs> parsed = gz::ParseEngineArgs(
        argc, argv, usage, {"--max-visits", "--leaves", "--max-searches", "--max-memory-mb", "--search-memory-mb"});
    if (!parsed) return 0;
    const gz::CliArgs& args = *parsed;
    cl = gz::EngineCommandLineFrom(args);
    options.limits.default_max_visits = static_cast<int>(args.get_int("--max-visits", 400));
    options.leaves_per_search = static_cast<int>(args.get_int("--leaves", 8));
    options.max_searches = static_cast<int>(args.get_int("--max-searches", 64));
    memory_mb = args.get_int("--max-memory-mb", 1536);
    search_memory_mb = args.get_int("--search-memory-mb", 0);
    GOMOKU_CHECK(options.limits.default_max_visits >= 1 && options.leaves_per_search >= 1 &&
                     options.leaves_per_search <= 256 && options.max_searches >= 1,
                 "--max-visits, --leaves (<= 256) and --max-searches must be >= 1");
    GOMOKU_CHECK(memory_mb >= 1 && memory_mb <= (int64_t{1} << 30) && search_memory_mb >= 0 &&
                     search_memory_mb <= memory_mb,
                 "--max-memory-mb must be >= 1 and --search-memory-mb between 0 (the total) and --max-memory-mb");
  } catch (const gz::GomokuError& e) {
    std::cerr << "analyze: " << e.what() << "\n" << gz::EngineFlagsHelp() << kAnalyzeFlags;
    return 2;
  }
  gz::EngineSettings settings;
  try {
    settings = gz::ResolveEngineSettings(cl, gz::ExecutableDir());
  } catch (const gz::GomokuError& e) {
    std::cerr << "analyze: engine settings: " << e.what() << "\n";
    return 2;
  }
  if (settings.classical_nodes > 0) {
    std::cerr << "analyze: player classical:" << settings.classical_nodes
              << ": the analysis engine reads a net's search tree; the classical player has none (use --player net)\n";
    return 2;
  }
  gz::InitLogging("analyze", settings.log_file);
  spdlog::info("analyze: search settings {}", settings.config.DescribePlaySettings());
  gz::EvaluatorSource source(settings.weights, settings.config, settings.league_nets);
  if (const std::string problem = source.CheckSize(15); problem.starts_with("cannot load weights")) {
    spdlog::error("analyze: {}", problem);  // the net did not load: every query would fail
    return 1;
  }
  options.version = gz::kEngineVersion;
  // Memory: measured once the net is loaded, so an address-space limit
  // (ulimit -v) leaves room for what is already mapped.
  const int64_t memory = gz::AnalysisMemoryBudget(memory_mb << 20);
  options.total_tree_bytes = std::max(gz::AnalysisEngineOptions::kMinTreeBytes, gz::TreeBytesForMemory(memory));
  options.search_tree_bytes =
      search_memory_mb > 0 ? std::min(options.total_tree_bytes, gz::TreeBytesForMemory(search_memory_mb << 20)) : 0;
  options.search_tree_bytes = options.search_tree_bytes > 0
                                  ? std::max(gz::AnalysisEngineOptions::kMinTreeBytes, options.search_tree_bytes)
                                  : 0;
  spdlog::info("analyze: memory budget {} MB (requested {} MB): trees {} MB in all, {} MB a search", memory >> 20,
               memory_mb, options.total_tree_bytes >> 20,
               (options.search_tree_bytes > 0 ? options.search_tree_bytes : options.total_tree_bytes) >> 20);
  gz::AnalysisEngine engine(source, settings.config.mcts, settings.config.run.seed, Reply, options);
  spdlog::info("analyze: ready ({})", source.Describe());
  std::thread reader([&engine] {
    std::string line;
    while (std::getline(std::cin, line)) engine.Submit(line);
    engine.CloseInput();
  });
  engine.Run();
  reader.join();
  const auto st = engine.stats();
  spdlog::info("analyze: {} searches, {} positions in {} forwards ({} rounds)", st.searches, st.positions, st.forwards,
               st.rounds);
  return 0;
}
