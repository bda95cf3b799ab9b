#include "common/base/stop_signals.h"

#include <csignal>

namespace gz {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void RaiseStopFlag(int) { g_stop.store(true); }

}  // namespace

const std::atomic<bool>& InstallStopSignals(bool restart_syscalls) {
  struct sigaction sa {};
  sa.sa_handler = RaiseStopFlag;
  sa.sa_flags = restart_syscalls ? SA_RESTART : 0;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return g_stop;
}

}  // namespace gz
