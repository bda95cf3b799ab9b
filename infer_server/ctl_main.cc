// build/bin/infer_ctl: talk to a running inference server.
//
//   infer_ctl [--socket PATH | --run-dir DIR] [--timeout S] [--config F] [--set k=v]... ping|stats|reload PATH
//
// Without --socket/--run-dir the socket is the config's server.socket
// (GOMOKU_INFER_SOCK when set) or <run.dir>/sock/infer.sock.  Exit status: 0 success; 1 the server
// refused (message printed); 2 no server answered; 64 usage error.
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "common/base/cli.h"

#include "common/config/config.h"
#include "common/base/errors.h"
#include "common/data/run_layout.h"
#include "common/wire/wire_client.h"

namespace {

const char* kUsage =
    "usage: infer_ctl [--socket PATH | --run-dir DIR] [--timeout SECONDS] ping|stats|reload PATH\n";

int Usage(const std::string& why) {
  std::cerr << "infer_ctl: " << why << "\n" << kUsage;
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  std::string socket, command, path;
  double timeout = 60;
  try {
    gz::CliSpec spec{kUsage, {"--socket", "--run-dir", "--timeout"}, {}, /*allow_positional=*/true};
    gz::CliArgs args = gz::ParseCli(argc, argv, spec);
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    timeout = args.get_double("--timeout", 60);
    if (args.positional.empty()) return Usage("no command");
    command = args.positional[0];
    if (command != "ping" && command != "stats" && command != "reload") return Usage("unknown command '" + command + "'");
    if (command == "reload" && args.positional.size() < 2) return Usage("reload needs a checkpoint path");
    if (args.positional.size() > (command == "reload" ? 2u : 1u))
      return Usage("unexpected argument '" + args.positional.back() + "'");
    if (command == "reload") path = args.positional[1];
    socket = args.get("--socket");
    if (socket.empty()) {
      std::vector<std::string> sets = args.sets;
      if (args.has("--run-dir")) sets.push_back("run.dir=" + args.get("--run-dir"));
      gz::Config cfg = gz::Config::Load(args.config, sets);
      // --run-dir names the run's own socket, whatever the environment says.
      socket = args.has("--run-dir") ? gz::RunLayout(cfg.run.dir).default_socket(cfg.run.host) : gz::ResolveSocketPath(cfg);
    }
  } catch (const gz::ConfigError& e) {
    return Usage(e.what());
  }
  try {
    if (command == "ping") {
      gz::WireClient c(socket, timeout);
      int64_t gen = c.Ping(timeout);
      std::cout << "pong from " << socket << ": model generation " << gen << "\n";
    } else if (command == "stats") {
      std::cout << gz::FetchStats(socket, timeout).dump(2) << "\n";
    } else {
      std::string abs = std::filesystem::absolute(path).lexically_normal().string();
      std::cout << gz::RequestReload(socket, abs, timeout) << "\n";
    }
    return 0;
  } catch (const gz::ServerRefusedError& e) {
    std::cerr << "infer_ctl: " << e.what() << "\n";
    return 1;
  } catch (const gz::ServerUnavailableError& e) {
    std::cerr << "infer_ctl: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "infer_ctl: " << e.what() << "\n";
    return 1;
  }
}
