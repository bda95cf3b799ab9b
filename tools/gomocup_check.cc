// gomocup_check: a brain under tournament conditions, through our own Gomocup
// manager (common/match/engine_player.h over ChildProcess).  First the protocol
// script (tools/gomocup_protocol.h), then full games against an opponent
// brain with Gomocup's time controls (INFO timeout_turn, timeout_match and
// time_left before every move, max_memory), colours alternating, the rules
// taking turns; each game's result, the brain's slowest move, its match
// clock and the peak resident memory of its process tree (tools/
// process_memory.h).  Exit status 0 only when the protocol script passed,
// the brain forfeited nothing (time, crash, illegal move) and its peak stayed
// under --memory-limit-mb.  tools/test_windows_engine.sh runs it on the
// Windows build under wine (docs/engine.md, "Builds without LibTorch").
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/guarded_main.h"
#include "common/base/logging.h"
#include "common/match/engine_player.h"
#include "common/match/game.h"
#include "common/match/openings.h"
#include "tools/gomocup_protocol.h"
#include "tools/process_memory.h"

namespace gz {
namespace {

const char* kUsage =
    "usage: gomocup_check --engine CMD [--opponent CMD] [--games N] [--turn-ms MS] [--match-ms MS]\n"
    "                     [--opponent-turn-ms MS] [--max-memory-mb MB] [--memory-limit-mb MB] [--grace-ms MS]\n"
    "                     [--rules freestyle,renju] [--size N] [--opening-length N] [--stderr PATH] [--no-protocol]\n"
    "  --engine CMD          the brain under test: a command line (wine64 DIR/pbrain-gomoku-zero.exe) or .json\n"
    "  --opponent CMD        the brain it plays (default: none, protocol script only)\n"
    "  --games N             games against the opponent, colours alternating (default 2)\n"
    "  --turn-ms MS          INFO timeout_turn (default 5000, Gomocup fastgame)\n"
    "  --match-ms MS         INFO timeout_match, the clock for a whole game (default 120000; 0 = none)\n"
    "  --opponent-turn-ms MS the opponent's turn limit (default: --turn-ms; no match clock)\n"
    "  --max-memory-mb MB    INFO max_memory (default 350)\n"
    "  --memory-limit-mb MB  fail when the brain's process tree peaks above it (default 350)\n"
    "  --grace-ms MS         lateness tolerated past a move's limit before it forfeits (default 1000)\n"
    "  --rules LIST          the games' rules in turn, RULE or RULE:SIZE each (default freestyle;\n"
    "                        e.g. freestyle:15,freestyle:20,standard,renju,caro)\n"
    "  --size N              board size of the protocol script and of --rules entries without one (default 15)\n"
    "  --opening-length N    stones of the opening set's openings (default 2)\n"
    "  --stderr PATH         the brains' stderr, appended (default: inherited)\n"
    "  --no-protocol         skip the protocol script\n";

// An engine player whose process the memory sampler watches and whose moves
// are timed; everything else is the EngineMatchPlayer's.
class MeasuredPlayer : public MatchPlayer {
 public:
  MeasuredPlayer(std::unique_ptr<EngineMatchPlayer> inner, TreeMemoryPeak& memory)
      : MatchPlayer(inner->name()), inner_(std::move(inner)), memory_(memory) {}
  std::optional<Forfeit> NewGame(int size, Rule rule) override {
    auto f = inner_->NewGame(size, rule);
    memory_.Watch(inner_->pid());
    return f;
  }
  MoveReply Move(const Board& board, const std::vector<int>& history) override {
    const auto start = std::chrono::steady_clock::now();
    MoveReply r = inner_->Move(board, history);
    slowest_ms_ = std::max<int64_t>(
        slowest_ms_, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
                         .count());
    ++moves_;
    return r;
  }
  void EndGame() noexcept override {
    process_peak_ = std::max(process_peak_, ProcessPeakRssBytes(inner_->pid()));
    used_ms_ = inner_->used().count();
    memory_.Watch(-1);
    inner_->EndGame();
  }
  int64_t slowest_ms() const { return slowest_ms_; }
  int64_t used_ms() const { return used_ms_; }  // the last game's match clock
  int64_t process_peak() const { return process_peak_; }
  int moves() const { return moves_; }

 private:
  std::unique_ptr<EngineMatchPlayer> inner_;
  TreeMemoryPeak& memory_;
  int64_t slowest_ms_ = 0;
  int64_t used_ms_ = 0;
  int64_t process_peak_ = 0;
  int moves_ = 0;
};

// A game's rule and board size.
struct League {
  Rule rule;
  int size;
};

// --rules LIST: RULE or RULE:SIZE entries (SIZE default `size`), one per game in turn.
std::vector<League> ParseLeagues(const std::string& list, int size) {
  std::vector<League> leagues;
  std::istringstream in(list);
  for (std::string entry; std::getline(in, entry, ',');) {
    const auto colon = entry.find(':');
    League l{ParseRule(entry.substr(0, colon)), size};
    if (colon != std::string::npos) {
      const std::string text = entry.substr(colon + 1);
      size_t used = 0;
      try {
        l.size = std::stoi(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size() || l.size < kMinBoardSize || l.size > kMaxBoardSize)
        GOMOKU_THROW(ConfigError, "--rules: entry '" << entry << "' needs a board size in [" << kMinBoardSize << ", "
                                                     << kMaxBoardSize << "] after the colon");
    }
    leagues.push_back(l);
  }
  if (leagues.empty()) GOMOKU_THROW(ConfigError, "--rules: no rule in '" << list << "'");
  return leagues;
}

// The games against the opponent; appends the brain's failures (forfeits,
// memory over memory_limit) to *failures and prints a line a game and a summary.
void PlayMatch(const CliArgs& args, const EngineCommand& engine, const EngineLimits& limits, int games,
               const std::vector<League>& leagues, int64_t memory_limit, const std::string& stderr_path,
               std::vector<std::string>* failures_out) {
  std::vector<std::string>& failures = *failures_out;
  const int64_t mb = 1 << 20;
  EngineLimits opponent_limits;
  opponent_limits.turn_ms = static_cast<int>(args.get_int("--opponent-turn-ms", limits.turn_ms));
  opponent_limits.grace_ms = limits.grace_ms;
  TreeMemoryPeak memory;
  MeasuredPlayer brain(std::make_unique<EngineMatchPlayer>(engine, limits, stderr_path), memory);
  EngineMatchPlayer opponent(ParseEngineCommand(args.get("--opponent")), opponent_limits, stderr_path);
  brain.set_name("brain");  // forfeits name their player; the two commands may read alike
  opponent.set_name("opponent");
  std::printf("games: %d, turn %d ms, match %d ms, max_memory %lld MB, grace %d ms\n", games, limits.turn_ms,
              limits.match_ms, static_cast<long long>(limits.max_memory / mb), limits.grace_ms);
  int wins = 0, losses = 0, draws = 0, forfeits = 0;
  int64_t max_used = 0;
  for (int g = 0; g < games; ++g) {
    const Rule rule = leagues[g % leagues.size()].rule;
    const int size = leagues[g % leagues.size()].size;
    const std::vector<Opening> openings = OpeningSet(size, rule, static_cast<int>(args.get_int("--opening-length", 2)));
    const bool brain_black = g % 2 == 0;
    GameResult r = PlayGame(brain_black ? static_cast<MatchPlayer&>(brain) : opponent,
                            brain_black ? static_cast<MatchPlayer&>(opponent) : brain, size, rule,
                            OpeningForGame(openings, g));  // games 2k and 2k+1: one opening, colours swapped
    const int8_t brain_colour = brain_black ? kBlack : kWhite;
    if (r.winner == 0) ++draws;
    else if (r.winner == brain_colour) ++wins;
    else ++losses;
    const bool brain_forfeit = r.end == "forfeit" && r.forfeit_by == brain.name();
    if (brain_forfeit) {
      ++forfeits;
      failures.push_back("game " + std::to_string(g + 1) + ": forfeit (" + r.forfeit_kind + "): " + r.reason);
    }
    max_used = std::max(max_used, brain.used_ms());
    std::printf("game %d (%s %dx%d, brain %s): %s by %s, %zu moves, %.0f s; brain clock %lld ms, slowest move so "
                "far %lld ms, tree peak so far %.1f MB\n",
                g + 1, RuleName(rule), size, size, brain_black ? "black" : "white",
                r.winner == 0 ? "draw" : (r.winner == brain_colour ? "brain won" : "brain lost"), r.end.c_str(),
                r.moves.size(), r.seconds, static_cast<long long>(brain.used_ms()),
                static_cast<long long>(brain.slowest_ms()), memory.peak() / double(mb));
    std::fflush(stdout);
  }
  const int64_t peak = std::max(memory.peak(), brain.process_peak());
  std::printf("summary: %d games, brain +%d -%d =%d, forfeits %d (time losses included), slowest move %lld ms "
              "(turn limit %d), largest game clock %lld ms (match limit %d), peak memory %.1f MB (process tree, "
              "sampled every 100 ms; the main process's own peak %.1f MB), limit %.0f MB\n",
              games, wins, losses, draws, forfeits, static_cast<long long>(brain.slowest_ms()), limits.turn_ms,
              static_cast<long long>(max_used), limits.match_ms, peak / double(mb), brain.process_peak() / double(mb),
              memory_limit / double(mb));
  if (peak > memory_limit)
    failures.push_back("peak memory " + std::to_string(peak / mb) + " MB over the limit of " +
                       std::to_string(memory_limit / mb) + " MB");
}

int Run(int argc, char** argv) {
  CliArgs args = ParseCli(argc, argv,
                          CliSpec{kUsage,
                                  {"--engine", "--opponent", "--games", "--turn-ms", "--match-ms", "--opponent-turn-ms",
                                   "--max-memory-mb", "--memory-limit-mb", "--grace-ms", "--rules", "--size",
                                   "--opening-length", "--stderr"},
                                  {"--no-protocol"}});
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  if (!args.has("--engine")) GOMOKU_THROW(ConfigError, "--engine is required\n" << kUsage);
  InitLogging("gomocup_check");
  const EngineCommand engine = ParseEngineCommand(args.get("--engine"));
  const int games = static_cast<int>(args.get_int("--games", 2));
  const int size = static_cast<int>(args.get_int("--size", 15));
  const std::string stderr_path = args.get("--stderr");
  const int64_t mb = 1 << 20;
  EngineLimits limits;
  limits.turn_ms = static_cast<int>(args.get_int("--turn-ms", 5000));
  limits.match_ms = static_cast<int>(args.get_int("--match-ms", 120000));
  limits.grace_ms = static_cast<int>(args.get_int("--grace-ms", 1000));
  limits.max_memory = args.get_int("--max-memory-mb", 350) * mb;
  const int64_t memory_limit = args.get_int("--memory-limit-mb", 350) * mb;
  const std::vector<League> leagues = ParseLeagues(args.get("--rules", "freestyle"), size);
  std::vector<std::string> failures;

  if (!args.has("--no-protocol")) {
    ProtocolCheckOptions p;
    p.size = size;
    p.turn_ms = std::min(limits.turn_ms, 2000);
    p.grace_ms = limits.grace_ms;
    p.max_memory = limits.max_memory;
    p.stderr_path = stderr_path;
    for (const std::string& f : RunProtocolChecks(engine, p, std::cout)) failures.push_back("protocol: " + f);
  }

  if (args.has("--opponent") && games > 0)
    PlayMatch(args, engine, limits, games, leagues, memory_limit, stderr_path, &failures);
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("%s\n", failures.empty() ? "gomocup_check: passed" : "gomocup_check: FAILED");
  return failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) { return gz::GuardedMain("gomocup_check", 2, [&] { return gz::Run(argc, argv); }); }
