// socket_floor: what a request/response server over Unix sockets cannot go
// below on this machine, measured with nothing of the inference server in it.
//
// K client threads each own one end of a socketpair; each sends a request of
// `request_bytes` and sleeps in poll() until its reply arrives, then sends the
// next.  One server thread waits (poll) until it holds one request from every
// client, spins for `work_us` (standing in for one forward on one core), then
// writes a reply of `reply_bytes` to each: a lockstep round, like a batch that
// closes when every client is in.  No encoding, no batch logic, no Asio: only
// the system calls and the thread wake-ups that every such server pays.
//
// Thread-safety: MeasureSocketFloor starts and joins its own threads; call it
// from one thread at a time (it uses the CPUs for `seconds`).
#pragma once

#include <cstddef>

namespace gz {

struct SocketFloor {
  double busy = 0;                // fraction of the run the server thread spent in the spin
  double turnaround_us = 0;       // per round: wall time outside the spin
  double round_trip_p50_us = 0;   // as the clients saw it
  double overhead_p50_us = 0;     // round_trip_p50_us - work_us
  long rounds = 0;
};

// Writes all n bytes to a stream socket (blocking or not: EAGAIN waits in
// poll); false if the peer is gone or the socket fails.  No SIGPIPE.
bool SendAll(int fd, const char* p, size_t n);

// clients >= 1, work_us >= 0, seconds > 0, request_bytes and reply_bytes >= 1.
// Throws GomokuError if a socket call fails.
SocketFloor MeasureSocketFloor(int clients, double work_us, double seconds, size_t request_bytes,
                               size_t reply_bytes);

}  // namespace gz
