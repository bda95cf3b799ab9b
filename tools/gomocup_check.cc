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
// --format NAME runs one of the Gomocup manager's six pre-submission formats
// as the manager runs it instead (tools/gomocup_manager.h): its position
// checks, then games (against --opponent, by default the brain itself) driven
// as the manager drives them and judged move by move by the manager's referee
// (tools/manager_referee.h) under the exact rule value.
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
#include "tools/gomocup_manager.h"
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
    "  --no-protocol         skip the protocol script\n"
    "  --format NAME         a Gomocup manager pre-submission format: freestyle20, fastgame, freestyle15,\n"
    "                        standard, renju, caro (size, exact INFO rule, and its time controls unless\n"
    "                        --turn-ms / --match-ms say otherwise); runs its position checks, then --games\n"
    "                        games (default 1) against --opponent (default: the brain itself) driven as the\n"
    "                        manager drives them (BOARD first, CRLF, SIGSTOP between moves, the tree's USS\n"
    "                        after each move against --memory-limit-mb) and judged by the manager's referee\n"
    "  --opening MOVES       --format games: the opening in letters (default b2e2e3, the manager's self-play)\n"
    "  --no-position-checks  --format: skip the position checks\n";

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

// --format: the position checks, then the games; appends failures.
void RunFormat(const CliArgs& args, const EngineCommand& engine, EngineLimits limits, int64_t memory_limit,
               const std::string& stderr_path, std::vector<std::string>* failures) {
  const ManagerFormat& format = FindManagerFormat(args.get("--format"));
  const int64_t mb = 1 << 20;
  limits.turn_ms = static_cast<int>(args.get_int("--turn-ms", format.turn_ms));
  limits.match_ms = static_cast<int>(args.get_int("--match-ms", format.match_ms));
  limits.info_rule = format.rule;
  std::printf("format %s: %dx%d, INFO rule %d, turn %d ms, match %d ms, max_memory %lld MB, tolerance %d ms\n",
              format.title.c_str(), format.size, format.size, format.rule, limits.turn_ms, limits.match_ms,
              static_cast<long long>(limits.max_memory / mb), limits.grace_ms);
  if (!args.has("--no-position-checks")) {
    for (const PositionCheck& check : format.checks) {
      std::string reply;
      const std::string why = RunPositionCheck(engine, format, check, limits, stderr_path, &reply);
      std::printf("position check %s %s: %s (reply %s, expected %s)\n", format.name.c_str(), check.moves.c_str(),
                  why.empty() ? "PASSED" : "FAILED", reply.empty() ? "none" : reply.c_str(), check.Expected().c_str());
      if (!why.empty()) failures->push_back("position check " + format.name + " " + check.moves + ": " + why);
    }
  }
  const int games = static_cast<int>(args.get_int("--games", 1));
  if (games <= 0) return;
  const EngineCommand opponent_command = args.has("--opponent") ? ParseEngineCommand(args.get("--opponent")) : engine;
  EngineLimits opponent_limits = limits;
  opponent_limits.turn_ms = static_cast<int>(args.get_int("--opponent-turn-ms", limits.turn_ms));
  ManagedBrain brain("brain", engine, limits, memory_limit, stderr_path);
  ManagedBrain opponent("opponent", opponent_command, opponent_limits, 0, stderr_path);
  const auto opening = ParseLetterMoves(args.get("--opening", kManagerSelfPlayOpening));
  int wins = 0, losses = 0, draws = 0, forfeits = 0;
  for (int g = 0; g < games; ++g) {
    // Games 2k and 2k+1 swap colours: the brain takes the stones of the side
    // to move after the opening first.
    const bool brain_first = g % 2 == 0;
    const int first_colour = opening.size() % 2 == 0 ? 1 : 2;
    const int brain_colour = brain_first ? first_colour : 3 - first_colour;
    ManagedBrain& black = brain_colour == 1 ? brain : opponent;
    ManagedBrain& white = brain_colour == 1 ? opponent : brain;
    const auto start = std::chrono::steady_clock::now();
    const ManagerGame r = PlayManagerGame(black, white, format.size, format.rule, opening);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r.winner == 0) ++draws;
    else if (r.winner == brain_colour) ++wins;
    else ++losses;
    const bool brain_lost_by_rule = !r.loser_name.empty() && r.loser_name == brain.name();
    if (brain_lost_by_rule) {
      ++forfeits;
      failures->push_back("game " + std::to_string(g + 1) + ": " + r.reason);
    }
    const std::string by =
        r.reason.empty() ? "" : std::string(" by ") + (r.loser_name == brain.name() ? "brain" : "opponent") + ": ";
    std::printf("game %d (%s, brain %s): %s, %s%s%s, %zu stones, %.0f s; brain slowest move %lld ms, tree peak "
                "%.1f MB\n",
                g + 1, format.title.c_str(), brain_colour == 1 ? "black" : "white",
                r.winner == 0 ? "draw" : (r.winner == brain_colour ? "brain won" : "brain lost"), ManagerEndName(r.end),
                by.c_str(), r.reason.c_str(), r.moves.size(), seconds, static_cast<long long>(brain.slowest_ms()),
                brain.peak_memory() / double(mb));
    std::fflush(stdout);
  }
  std::printf("summary %s: %d games, brain +%d -%d =%d, forfeits %d, ERROR lines where a move was owed %d (skipped "
              "lines %d%s%s), slowest move %lld ms (turn %d), peak memory %.1f MB (%s of the process tree after each "
              "move), limit %.0f MB\n",
              format.name.c_str(), games, wins, losses, draws, forfeits, brain.error_lines(), brain.skipped_lines(),
              brain.error_lines() ? ", last: " : "", brain.last_error_line().c_str(),
              static_cast<long long>(brain.slowest_ms()), limits.turn_ms, brain.peak_memory() / double(mb),
              brain.memory_fell_back_to_rss() ? "USS, RSS where smaps_rollup is missing," : "USS",
              memory_limit / double(mb));
  if (brain.error_lines() > 0)
    failures->push_back(std::to_string(brain.error_lines()) + " ERROR lines where a move was owed (last: " +
                        brain.last_error_line() + ")");
  if (brain.peak_memory() > memory_limit)
    failures->push_back("peak memory " + std::to_string(brain.peak_memory() / mb) + " MB over the limit of " +
                        std::to_string(memory_limit / mb) + " MB");
}

int Run(int argc, char** argv) {
  CliArgs args = ParseCli(argc, argv,
                          CliSpec{kUsage,
                                  {"--engine", "--opponent", "--games", "--turn-ms", "--match-ms", "--opponent-turn-ms",
                                   "--max-memory-mb", "--memory-limit-mb", "--grace-ms", "--rules", "--size",
                                   "--opening-length", "--stderr", "--format", "--opening"},
                                  {"--no-protocol", "--no-position-checks"}});
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
    p.size = args.has("--format") ? FindManagerFormat(args.get("--format")).size : size;
    p.turn_ms = std::min(limits.turn_ms, 2000);
    p.grace_ms = limits.grace_ms;
    p.max_memory = limits.max_memory;
    p.stderr_path = stderr_path;
    for (const std::string& f : RunProtocolChecks(engine, p, std::cout)) failures.push_back("protocol: " + f);
  }

  if (args.has("--format"))
    RunFormat(args, engine, limits, memory_limit, stderr_path, &failures);
  else if (args.has("--opponent") && games > 0)
    PlayMatch(args, engine, limits, games, leagues, memory_limit, stderr_path, &failures);
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("%s\n", failures.empty() ? "gomocup_check: passed" : "gomocup_check: FAILED");
  return failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) { return gz::GuardedMain("gomocup_check", 2, [&] { return gz::Run(argc, argv); }); }
