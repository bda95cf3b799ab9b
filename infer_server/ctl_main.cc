// build/bin/infer_ctl: talk to a running inference server.
//
//   infer_ctl [--socket PATH | --run-dir DIR] [--timeout S] ping|stats|reload PATH
//
// Without --socket/--run-dir the socket is GOMOKU_INFER_SOCK or the default
// config's <run.dir>/sock/infer.sock.  Exit status: 0 success; 1 the server
// refused (message printed); 2 no server answered; 64 usage error.
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <string>

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
  std::string socket, run_dir, command, path;
  double timeout = 60;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    if (a == "--socket") {
      if (!value(&socket)) return Usage("--socket needs a path");
    } else if (a == "--run-dir") {
      if (!value(&run_dir)) return Usage("--run-dir needs a directory");
    } else if (a == "--timeout") {
      std::string t;
      if (!value(&t)) return Usage("--timeout needs seconds");
      try {
        timeout = std::stod(t);
      } catch (...) {
        return Usage("bad --timeout '" + t + "'");
      }
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (command.empty()) {
      command = a;
    } else if (command == "reload" && path.empty()) {
      path = a;
    } else {
      return Usage("unexpected argument '" + a + "'");
    }
  }
  if (command.empty()) return Usage("no command");
  if (command == "reload" && path.empty()) return Usage("reload needs a checkpoint path");
  if (command != "ping" && command != "stats" && command != "reload") return Usage("unknown command '" + command + "'");
  if (socket.empty()) {
    if (!run_dir.empty()) {
      socket = gz::RunLayout(run_dir).default_socket();
    } else {
      socket = gz::ResolveSocketPath(gz::Config{});
    }
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
