// A loopback TCP port for tests and benches that start ranks or servers
// meeting on 127.0.0.1.
#pragma once

namespace gz::testing {

// A TCP port that was free a moment ago (bound to port 0, then closed), -1
// when none could be had.  Another process may take it before the caller
// binds it; callers that cannot retry accept that small race.
int FreePort();

}  // namespace gz::testing
