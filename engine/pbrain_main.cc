// pbrain-gomoku-zero: the Gomocup (Piskvork) protocol engine.
//
// Commands on stdin, replies on stdout (one flushed line each), logs on stderr
// and optionally a log file.  See docs/engine.md.
#include <cctype>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/base/logging.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"
#include "engine/line_input.h"
#include "common/match/shipped_nets.h"

namespace {

// Writes one reply line and flushes; exits when the manager is gone.
void Reply(const std::string& line) {
  std::string out = line + "\n";
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) std::_Exit(1);
}

// Without usable settings the engine still speaks the protocol and explains
// the problem at START instead of dying silently under a manager.
int RunBrokenSettings(const std::string& problem) {
  gz::StdinLineReader reader;
  for (;;) {
    gz::InputLine in = reader.Next();
    if (in.eof || gz::IsEndCommand(in.text)) return 0;
    std::string word = in.text.substr(0, in.text.find(' '));
    for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (word == "INFO") continue;
    Reply("ERROR engine settings: " + problem);
  }
}

}  // namespace

int main(int argc, char** argv) {
#if defined(SIGPIPE)  // Windows has none: a write to a closed pipe fails, and Reply exits then
  std::signal(SIGPIPE, SIG_IGN);
#endif
  gz::EngineCommandLine cl;
  try {
    const std::string usage = std::string("usage: pbrain-gomoku-zero [flags]  (Gomocup protocol on stdin/stdout)\n") +
                              gz::EngineFlagsHelp();
    gz::CliArgs args = gz::ParseCli(argc, argv, gz::CliSpec{usage, gz::EngineValueFlags(), {}});
    if (args.help) {
      std::cout << usage;
      return 0;
    }
    cl = gz::EngineCommandLineFrom(args);
  } catch (const gz::GomokuError& e) {
    std::cerr << "pbrain-gomoku-zero: " << e.what() << "\n" << gz::EngineFlagsHelp();
    return 2;
  }

  gz::EngineSettings settings;
  try {
    settings = gz::ResolveEngineSettings(cl, gz::ExecutableDir());
  } catch (const gz::GomokuError& e) {
    gz::InitLogging("pbrain");
    spdlog::error("engine: {}", e.what());
    std::string problem = e.what();
    for (char& c : problem)
      if (c == '\n' || c == '\r') c = ' ';
    return RunBrokenSettings(problem);
  }
  gz::InitLogging("pbrain", settings.log_file);
  if (!settings.source_file.empty()) spdlog::info("engine: settings from {}", settings.source_file);
  spdlog::info("engine: search settings {}", settings.config.DescribePlaySettings());

  gz::EnginePlayer engine = gz::MakeEnginePlayer(settings);
  gz::GomocupSession session(*engine.player, settings.max_simulations);
  gz::StdinLineReader reader;
  session.set_stop_flag(&reader.stop_flag());
  session.set_interrupt_flag(&reader.interrupt_flag());
  session.set_live_output(Reply);  // Yixin-Board's analysis lines while searching
  spdlog::info("engine: ready ({})", engine.player->Describe());

  std::vector<std::string> replies;
  for (;;) {
    gz::InputLine in = reader.Next();
    if (in.eof) {
      spdlog::info("engine: end of input");
      break;
    }
    replies.clear();
    bool keep_going = session.Handle(in.text, in.received, replies);
    for (const std::string& r : replies) Reply(r);
    if (!keep_going) {
      spdlog::info("engine: END received");
      break;
    }
  }
  std::fflush(stdout);
  return 0;
}
