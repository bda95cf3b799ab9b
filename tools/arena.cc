// build/bin/arena: plays two players against each other and reports
// wins/draws/losses and an Elo difference with a 95% interval.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/guarded_main.h"
#include "common/base/logging.h"
#include "common/game/even_openings.h"
#include "common/match/head_to_head.h"
#include "common/match/openings.h"

namespace {
const char* kUsage = R"(arena: strength of one player against another.

Usage:
  arena --player-a SPEC --player-b SPEC [--games G] [--openings K] [--seed S]
        [--record FILE] [--config FILE] [--set key=value]... [--json]

SPEC:  net:PATH[:SIMS]   checkpoint + MCTS (SIMS default: mcts.simulations)
       rollout:N         pure MCTS baseline, N playouts per move
       classical:N       the classical alpha-beta player, N nodes per move, no net
       uniform:N         MCTS with a uniform evaluator
       engine:COMMAND    a Gomocup brain (or engine:SETTINGS.json), docs/ratings.md;
                         limits eval.engine_turn_ms + eval.engine_grace_ms
In-process players take immediate wins, block immediate losses and search
with fixed simulations, no noise.  Board size and rule come from the config
(board.size, board.rule).  Colours alternate; games 2k and 2k+1 start from
opening k of the default set: the even set where the board has one (3 stones
each: 24 on 15x15 freestyle, 48 on 20x20 freestyle and on 15x15 renju), else
the fixed random set of 2 stones;
--openings K plays the fixed random set of K stones instead (docs/ratings.md).
--seed seeds the rollout evaluators.  Prints W/D/L from A's view (also by A's
colour), the score and Elo(A - B) with a 95% interval; --json prints one JSON
object instead.  --record FILE writes the match as a data file (atomically):
players, settings, the openings, and each game's moves and result.  A net
player runs the forward inference.backend/device/threads pick (on the CPU by
default the native one, on inference.threads threads); --json and the
record's result name it ("forward_a", "forward_b": native | torch).
)";

int Run(int argc, char** argv) {
  using namespace gz;
  CliSpec spec{kUsage, {"--player-a", "--player-b", "--games", "--openings", "--seed", "--record"}, {"--json"}};
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
  const int openings = static_cast<int>(args.get_int("--openings", 2));  // only read when given
  const uint64_t seed = static_cast<uint64_t>(args.get_int("--seed", 1));
  if (games < 1) GOMOKU_THROW(ConfigError, "--games must be >= 1");
  if (openings < 0 || openings >= std::min(cfg.board.size, 5) * std::min(cfg.board.size, 5))
    GOMOKU_THROW(ConfigError, "--openings out of range (0 .. " << std::min(cfg.board.size, 5) * std::min(cfg.board.size, 5) - 1 << ")");
  const std::string spec_a = args.get("--player-a"), spec_b = args.get("--player-b");
  auto a = MakeMatchPlayer(spec_a, cfg, cfg.mcts.simulations, ArenaPlayerOptions(cfg, seed * 2 + 1));
  auto b = MakeMatchPlayer(spec_b, cfg, cfg.mcts.simulations, ArenaPlayerOptions(cfg, seed * 2 + 2));
  const bool random_set = args.has("--openings");
  const std::vector<Opening> set =
      random_set ? OpeningSet(cfg.board.size, cfg.rule(), openings) : DefaultOpeningSet(cfg.board.size, cfg.rule());
  const std::string set_name = random_set ? "random:" + std::to_string(openings)
                               : EvenOpenings(cfg.board.size, cfg.rule()).empty() ? "random:2"
                                                                                     : "even";
  ArenaResult r = PlayMatch(*a, *b, cfg, games, set);
  nlohmann::json j = r.ToJson();
  j["player_a"] = spec_a;
  j["player_b"] = spec_b;
  // The network forward each net player ran (records made before lack it).
  if (!a->forward().empty()) j["forward_a"] = a->forward();
  if (!b->forward().empty()) j["forward_b"] = b->forward();
  j["board_size"] = cfg.board.size;
  j["rule"] = RuleName(cfg.rule());
  j["openings"] = set_name;
  if (args.has("--record")) {
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    nlohmann::json rec = {{"command", command},
                          {"player_a", spec_a},
                          {"player_b", spec_b},
                          {"settings",
                           {{"board_size", cfg.board.size},
                            {"rule", RuleName(cfg.rule())},
                            {"seed", seed},
                            {"games", games},
                            {"openings", set_name},
                            {"config_set_by", cfg.DescribeOrigins()}}},
                          {"opening_set", set},
                          {"result", j},
                          {"games", r.GamesJson(spec_a, spec_b)}};
    WriteFileAtomic(args.get("--record"), rec.dump(1) + "\n");
  }
  if (args.has("--json")) {
    std::cout << j.dump() << std::endl;
  } else {
    std::printf("A = %s\nB = %s\ngames %d: A wins %d, draws %d, losses %d; score %.3f\n", spec_a.c_str(),
                spec_b.c_str(), r.games, r.wins, r.draws, r.losses, r.score);
    std::printf("A as black: +%d =%d -%d; A as white: +%d =%d -%d; openings %s\n", r.by_colour[0][0],
                r.by_colour[0][1], r.by_colour[0][2], r.by_colour[1][0], r.by_colour[1][1], r.by_colour[1][2],
                set_name.c_str());
    std::printf("Elo(A - B) = %+.0f  (95%% interval %+.0f .. %+.0f)\n", r.elo, r.elo_low, r.elo_high);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return gz::GuardedToolMain<gz::ConfigError>("arena", [&] { return Run(argc, argv); });
}
