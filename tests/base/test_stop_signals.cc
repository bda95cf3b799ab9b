// common/base/stop_signals: SIGTERM and SIGINT raise the stop flag instead of
// killing the process; SIGPIPE is ignored, so a write to a closed pipe fails
// with EPIPE.  (This binary installs the handlers for its whole process.)
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "common/base/stop_signals.h"

namespace gz {

TEST_CASE("stop signals: SIGTERM and SIGINT raise the flag; SIGPIPE becomes EPIPE") {
  const std::atomic<bool>& stop = InstallStopSignals(/*restart_syscalls=*/false);
  CHECK_FALSE(stop.load());
  REQUIRE(::raise(SIGTERM) == 0);  // handled synchronously in this thread
  CHECK(stop.load());
  // A second install returns the same flag (one per process).
  CHECK(&InstallStopSignals(false) == &stop);
  REQUIRE(::raise(SIGINT) == 0);
  CHECK(stop.load());

  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);
  errno = 0;
  const ssize_t w = ::write(fds[1], "x", 1);  // would kill the process without SIG_IGN
  const int e = errno;
  ::close(fds[1]);
  CHECK(w == -1);
  CHECK(e == EPIPE);
}

TEST_CASE("stop signals: restart_syscalls sets SA_RESTART, its absence does not") {
  InstallStopSignals(/*restart_syscalls=*/true);
  struct sigaction sa {};
  REQUIRE(::sigaction(SIGTERM, nullptr, &sa) == 0);
  CHECK((sa.sa_flags & SA_RESTART) != 0);
  InstallStopSignals(/*restart_syscalls=*/false);
  REQUIRE(::sigaction(SIGINT, nullptr, &sa) == 0);
  CHECK((sa.sa_flags & SA_RESTART) == 0);
}

}  // namespace gz
