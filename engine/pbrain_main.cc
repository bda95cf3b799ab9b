// pbrain-gomoku-zero: the Gomocup (Piskvork) protocol engine.
//
// Commands on stdin, replies on stdout (one flushed line each).  Logs go to a
// file with --log-file (or the settings' log_file), and to stderr only when
// GOMOKU_LOG_LEVEL is set: the GUIs never read a brain's stderr, and a full
// pipe would block the engine mid-game.  See docs/engine.md.
#include <cctype>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/base/logging.h"
#include "common/match/classical_player.h"
#include "common/match/shipped_nets.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"
#include "engine/line_input.h"
#include "engine/protocol_text.h"

namespace {

// Writes one reply line and flushes; exits when the manager is gone.
void Reply(const std::string& line) {
  std::string out = line + "\n";
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) std::_Exit(1);
}

// The classical player's nodes a move when it stands in for a net that
// cannot play (a broken settings file or net): about 0.1 s a move here.
constexpr int64_t kBackupClassicalNodes = 10000;

// The command line, or the exit code when there is nothing to serve (--help:
// 0, a bad flag: 2).  `ignored`: flags of the GUI's own, logged later.
std::optional<int> ParseCommandLine(int argc, char** argv, gz::EngineCommandLine& cl, std::vector<std::string>& ignored) {
  try {
    const std::string usage = std::string("usage: pbrain-gomoku-zero [flags]  (Gomocup protocol on stdin/stdout)\n") +
                              gz::EngineFlagsHelp();
    // GUIs pass flags of their own (Yixin-Board: --force-utf8).
    const std::optional<gz::CliArgs> args = gz::ParseEngineArgs(argc, argv, usage, {}, /*ignore_unknown=*/true);
    if (!args) return 0;
    ignored = args->ignored;
    cl = gz::EngineCommandLineFrom(*args);
  } catch (const gz::GomokuError& e) {
    std::cerr << "pbrain-gomoku-zero: " << e.what() << "\n" << gz::EngineFlagsHelp();
    return 2;
  }
  cl.shipped_nets_by_default = true;
  return std::nullopt;
}

// The engine's settings; a broken settings file or net is no reason to stop:
// *problem says it (the GUI gets it as a MESSAGE) and play goes on with the
// built-in settings.
gz::EngineSettings LoadSettings(const gz::EngineCommandLine& cl, std::string* problem) {
  gz::EngineSettings settings;
  try {
    settings = gz::ResolveEngineSettings(cl, gz::ExecutableDir());
  } catch (const gz::GomokuError& e) {
    *problem = gz::OneLine(e.what());
    // The built-in settings: the shipped nets (else the classical backup
    // plays every game, see GomocupSession), no settings file.
    settings = gz::EngineSettings{};
    settings.log_file = cl.log_file;
    try {
      settings.league_nets = gz::ShippedLeagueNets(gz::ShippedNetDirs(gz::ExecutableDir()));
      gz::AdoptEnginePlaySettings(settings);
      settings.config.Validate();
    } catch (const gz::GomokuError&) {
      settings = gz::EngineSettings{};
      settings.log_file = cl.log_file;
    }
  }
  // No net anywhere and none asked for: the classical player, not the
  // rollout baseline (that plays only with --weights none).
  if (settings.weights.empty() && settings.league_nets.empty() && settings.classical_nodes == 0 && !settings.baseline)
    settings.classical_nodes = kBackupClassicalNodes;
  return settings;
}

// Reads commands until END or the end of the input, replying to each.
void Serve(gz::GomocupSession& session, gz::StdinLineReader& reader) {
  std::vector<std::string> replies;
  for (;;) {
    gz::InputLine in = reader.Next();
    if (in.eof) {
      spdlog::info("engine: end of input");
      return;
    }
    replies.clear();
    bool keep_going = session.Handle(in.text, in.received, replies);
    // END arrived while this command searched: the search stopped at once,
    // and its move is owed to nobody (the manager reads nothing after END).
    if (!keep_going || (reader.stop_flag().load() && session.searched())) {
      spdlog::info("engine: END received");
      return;
    }
    for (const std::string& r : replies) Reply(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
#if defined(SIGPIPE)  // Windows has none: a write to a closed pipe fails, and Reply exits then
  std::signal(SIGPIPE, SIG_IGN);
#endif
#if defined(SIGHUP)
  // A manager suspends the engine (SIGSTOP) between moves; when its process
  // group is orphaned (a manager started from a script that has exited) and
  // another member exits, Linux sends the stopped members SIGHUP, which would
  // kill a brain in the middle of a game.  The engine ends on END or at the
  // end of its input instead.
  std::signal(SIGHUP, SIG_IGN);
#endif
  // Before anything may log: spdlog's built-in logger writes to stdout, where
  // the manager reads moves.
  gz::InitLogging("pbrain", "", gz::LogConsole::kWhenAsked);
  gz::EngineCommandLine cl;
  std::vector<std::string> ignored;
  if (const std::optional<int> exit_code = ParseCommandLine(argc, argv, cl, ignored)) return *exit_code;

  // The reader runs from here on, so a GUI's first commands wait in its queue
  // (not in a pipe) while the nets load.
  gz::StdinLineReader reader;
  std::string settings_problem;  // shown to the GUI as a MESSAGE: play goes on with the defaults
  const gz::EngineSettings settings = LoadSettings(cl, &settings_problem);
  if (!settings.log_file.empty()) gz::InitLogging("pbrain", settings.log_file, gz::LogConsole::kWhenAsked);
  for (const std::string& a : ignored) spdlog::warn("engine: ignoring unknown argument '{}'", a);
  if (!settings_problem.empty()) spdlog::error("engine: {}; playing with the built-in settings", settings_problem);
  if (!settings.source_file.empty()) spdlog::info("engine: settings from {}", settings.source_file);
  spdlog::info("engine: search settings {}", settings.config.DescribePlaySettings());

  gz::EnginePlayer engine = gz::MakeEnginePlayer(settings);
  gz::ClassicalPlayer backup(kBackupClassicalNodes);
  gz::GomocupSession session(*engine.player, settings.max_simulations, &backup);
  session.set_stop_flag(&reader.stop_flag());
  session.set_interrupt_flag(&reader.interrupt_flag());
  session.set_live_output(Reply);  // Yixin-Board's analysis lines while searching
  spdlog::info("engine: ready ({})", engine.player->Describe());
  if (!settings_problem.empty()) Reply("MESSAGE engine settings: " + settings_problem + "; playing with the built-in settings");
  Serve(session, reader);
  std::fflush(stdout);
  return 0;
}
