// play: a human against the engine in a terminal.  A thin client of the same
// settings and player (MakeEnginePlayer) as pbrain-gomoku-zero.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "common/base/errors.h"
#include "common/base/logging.h"
#include "engine/engine_settings.h"
#include "engine/terminal_game.h"
#include "common/match/shipped_nets.h"

namespace {

const char* kUsage =
    "usage: play [--weights PATH|none] [--size N] [--simulations N] [--human black|white]\n"
    "            [--time SECONDS] [--rule freestyle|standard|renju|caro|caro-overline] [engine flags]\n"
    "  --weights PATH     checkpoint to play against (default: the newest shipped net of the rule in nets/;\n"
    "                     none = the pure-MCTS baseline)\n"
    "  --size N           board size (default: the checkpoint's, else 15)\n"
    "  --simulations N    simulations per engine move (then no time limit unless --time is given)\n"
    "  --human COLOUR     your colour; black moves first (default black)\n"
    "  --time SECONDS     thinking time per engine move (default 3)\n"
    "  --rule RULE        freestyle (five or more), standard (exactly five), renju, caro (exactly five,\n"
    "                     not closed at both ends) or caro-overline (six or more also wins); default freestyle\n"
    "engine flags:\n";

double ParseSeconds(const std::string& text) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && v >= 0 && v <= 86400) return v;
  } catch (const std::exception&) {
  }
  GOMOKU_THROW(gz::ConfigError, "--time expects seconds in [0, 86400], got '" << text << "'");
}

int ParsePositive(const std::string& flag, const std::string& text, int lo, int hi) {
  try {
    size_t used = 0;
    int v = std::stoi(text, &used);
    if (used == text.size() && v >= lo && v <= hi) return v;
  } catch (const std::exception&) {
  }
  GOMOKU_THROW(gz::ConfigError, flag << " expects an integer in [" << lo << ", " << hi << "], got '" << text << "'");
}

}  // namespace

int main(int argc, char** argv) {
  gz::EngineCommandLine cl;
  gz::TerminalGameOptions options;
  int size = 0;
  int simulations = 0;
  double seconds = -1;
  try {
    const std::string usage = std::string(kUsage) + gz::EngineFlagsHelp();
    const std::optional<gz::CliArgs> parsed =
        gz::ParseEngineArgs(argc, argv, usage, {"--size", "--simulations", "--time", "--human", "--rule"});
    if (!parsed) return 0;
    const gz::CliArgs& args = *parsed;
    cl = gz::EngineCommandLineFrom(args);
    const bool baseline = cl.weights == "none";
    if (baseline) cl.weights.clear();
    if (args.has("--size")) size = ParsePositive("--size", args.get("--size"), gz::kMinBoardSize, gz::kMaxBoardSize);
    if (args.has("--simulations")) simulations = ParsePositive("--simulations", args.get("--simulations"), 2, 100000000);
    if (args.has("--time")) seconds = ParseSeconds(args.get("--time"));
    if (args.has("--human")) {
      const std::string c = args.get("--human");
      if (c != "black" && c != "white") GOMOKU_THROW(gz::ConfigError, "--human expects black or white, got '" << c << "'");
      options.human = c == "black" ? gz::kBlack : gz::kWhite;
    }
    if (args.has("--rule")) options.rule = gz::ParseRule(args.get("--rule"));
    if (cl.weights.empty() && !baseline && cl.settings_file.empty() && cl.player.empty()) {
      // No checkpoint asked for: the newest shipped net of the rule for --size,
      // else for the default board (15), else for any size.
      const auto dirs = gz::ShippedNetDirs(gz::ExecutableDir());
      const std::string rule = gz::RuleName(options.rule);
      cl.weights = gz::NewestShippedNet(dirs, size == 0 ? 15 : size, rule);
      if (cl.weights.empty() && size == 0) cl.weights = gz::NewestShippedNet(dirs, 0, rule);
      if (cl.weights.empty())
        std::cerr << "play: no shipped net for " << gz::RuleName(options.rule)
                  << " in nets/; playing the pure-MCTS baseline\n";
    }
    gz::EngineSettings settings = gz::ResolveEngineSettings(cl, gz::ExecutableDir());
    gz::InitLogging("play", settings.log_file);
    if (!std::getenv("GOMOKU_LOG_LEVEL")) spdlog::set_level(spdlog::level::warn);  // keep the board readable

    gz::EnginePlayer engine = gz::MakeEnginePlayer(settings);
    gz::MovePlayer& player = *engine.player;
    if (size == 0) {  // default: 15 when the player plays it (conv heads play every size), else the net's size
      size = 15;
      if (!player.CheckSize(15).empty())
        for (int s = gz::kMinBoardSize; s <= gz::kMaxBoardSize && size == 15; ++s)
          if (player.CheckSize(s).empty()) size = s;
    }
    if (std::string why = player.CheckSize(size); !why.empty()) GOMOKU_THROW(gz::ConfigError, why);
    options.size = size;
    options.max_simulations = simulations > 0 ? simulations : settings.max_simulations;
    if (seconds >= 0) options.time_per_move = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    else if (simulations > 0) options.time_per_move = std::chrono::milliseconds(0);
    std::cout << "engine: " << player.Describe() << "\n";
    if (settings.classical_nodes == 0) std::cout << "search: " << settings.config.DescribePlaySettings() << "\n";

    gz::TerminalGame game(player, options);
    game.Run(std::cin, std::cout);
  } catch (const gz::GomokuError& e) {
    std::cerr << "play: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
