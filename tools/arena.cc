// build/bin/arena: plays two players against each other and reports
// wins/draws/losses and an Elo difference with a 95% interval.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/logging.h"
#include "match/head_to_head.h"

namespace {
const char* kUsage = R"(arena: strength of one player against another.

Usage:
  arena --player-a SPEC --player-b SPEC [--games G] [--openings K] [--seed S]
        [--config FILE] [--set key=value]... [--json]

SPEC:  net:PATH[:SIMS]   checkpoint + MCTS (SIMS default: mcts.simulations)
       rollout:N         pure MCTS baseline, N playouts per move
       uniform:N         MCTS with a uniform evaluator
       engine:COMMAND    a Gomocup brain (or engine:SETTINGS.json), docs/ratings.md;
                         limits eval.engine_turn_ms + eval.engine_grace_ms
In-process players take immediate wins, block immediate losses and search
with fixed simulations, no noise.  Board size and rule come from the config
(board.size, board.rule).  Colours alternate; games 2k and 2k+1 start from
opening k of the fixed opening set of K moves (default 2; docs/ratings.md).
--seed seeds the rollout evaluators.  Prints W/D/L from A's view, the score
and Elo(A - B) with a 95% interval; --json prints one JSON object instead.
)";
}

int main(int argc, char** argv) {
  using namespace gz;
  try {
    CliSpec spec{kUsage, {"--player-a", "--player-b", "--games", "--openings", "--seed"}, {"--json"}};
    CliArgs args = ParseCli(argc, argv, spec);
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    if (!args.has("--player-a") || !args.has("--player-b"))
      GOMOKU_THROW(ConfigError, "--player-a and --player-b are required (see --help)");
    Config cfg = Config::Load(args.config, args.sets);
    InitLogging("arena");
    if (args.has("--json")) spdlog::set_level(spdlog::level::warn);
    const int games = static_cast<int>(args.get_int("--games", 20));
    const int openings = static_cast<int>(args.get_int("--openings", 2));
    const uint64_t seed = static_cast<uint64_t>(args.get_int("--seed", 1));
    if (games < 1) GOMOKU_THROW(ConfigError, "--games must be >= 1");
    if (openings < 0 || openings >= std::min(cfg.board.size, 5) * std::min(cfg.board.size, 5))
      GOMOKU_THROW(ConfigError, "--openings out of range (0 .. " << std::min(cfg.board.size, 5) * std::min(cfg.board.size, 5) - 1 << ")");
    const std::string spec_a = args.get("--player-a"), spec_b = args.get("--player-b");
    auto a = MakeMatchPlayer(spec_a, cfg, cfg.mcts.simulations, ArenaPlayerOptions(cfg, seed * 2 + 1));
    auto b = MakeMatchPlayer(spec_b, cfg, cfg.mcts.simulations, ArenaPlayerOptions(cfg, seed * 2 + 2));
    ArenaResult r = PlayMatch(*a, *b, cfg, games, openings);
    nlohmann::json j = r.ToJson();
    j["player_a"] = spec_a;
    j["player_b"] = spec_b;
    j["board_size"] = cfg.board.size;
    if (args.has("--json")) {
      std::cout << j.dump() << std::endl;
    } else {
      std::printf("A = %s\nB = %s\ngames %d: A wins %d, draws %d, losses %d; score %.3f\n", spec_a.c_str(),
                  spec_b.c_str(), r.games, r.wins, r.draws, r.losses, r.score);
      std::printf("Elo(A - B) = %+.0f  (95%% interval %+.0f .. %+.0f)\n", r.elo, r.elo_low, r.elo_high);
    }
    return 0;
  } catch (const ConfigError& e) {
    std::cerr << "arena: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "arena: fatal: " << e.what() << "\n";
    return 1;
  }
}
