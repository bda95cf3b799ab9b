#include "bench/socket_floor.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {
namespace {

double NowUs() { return MonotonicSeconds() * 1e6; }

// Moves exactly n bytes through `io` (one recv or one send call), waiting
// for `events` when the socket would block; false at end of stream or on an
// error.  RecvAll and SendAll differ only in the call and the event.
template <class Ptr, class Io>
bool TransferAll(int fd, Ptr p, size_t n, short events, Io io) {
  while (n > 0) {
    const ssize_t r = io(fd, p, n);
    if (r > 0) {
      p += r;
      n -= static_cast<size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else if (r < 0 && errno == EAGAIN) {
      pollfd pf{fd, events, 0};
      ::poll(&pf, 1, -1);
    } else {
      return false;
    }
  }
  return true;
}

bool RecvAll(int fd, char* p, size_t n) {
  return TransferAll(fd, p, n, POLLIN, [](int f, char* q, size_t k) { return ::recv(f, q, k, 0); });
}

}  // namespace

bool SendAll(int fd, const char* p, size_t n) {
  return TransferAll(fd, p, n, POLLOUT, [](int f, const char* q, size_t k) { return ::send(f, q, k, MSG_NOSIGNAL); });
}

SocketFloor MeasureSocketFloor(int clients, double work_us, double seconds, size_t request_bytes,
                               size_t reply_bytes) {
  GOMOKU_CHECK(clients >= 1 && work_us >= 0 && seconds > 0 && request_bytes >= 1 && reply_bytes >= 1,
               "MeasureSocketFloor: bad arguments");
  std::vector<int> server_fd(clients, -1), client_fd(clients, -1);
  auto close_all = [&] {
    for (int fd : server_fd)
      if (fd >= 0) ::close(fd);
    for (int fd : client_fd)
      if (fd >= 0) ::close(fd);
  };
  for (int i = 0; i < clients; ++i) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) {
      close_all();
      GOMOKU_THROW(GomokuError, "socket floor: socketpair failed: " << std::strerror(errno));
    }
    server_fd[i] = sv[0];
    client_fd[i] = sv[1];
  }
  std::atomic<bool> stop{false}, measuring{false};
  std::vector<std::vector<double>> latency(clients);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      std::string request(request_bytes, 'q'), reply(reply_bytes, 0);
      while (!stop.load()) {
        const double t0 = NowUs();
        if (!SendAll(client_fd[i], request.data(), request.size())) return;
        if (!RecvAll(client_fd[i], reply.data(), reply.size())) return;
        if (measuring.load()) latency[i].push_back(NowUs() - t0);
      }
    });
  }
  SocketFloor f;
  std::string request(request_bytes, 0), reply(reply_bytes, 'r');
  std::vector<pollfd> pfd(clients);
  std::vector<char> have(clients);
  const double warm_until = NowUs() + 200e3, end = warm_until + seconds * 1e6;
  double start = 0, spun = 0;
  bool ok = true;
  while (ok) {
    const double now = NowUs();
    if (now >= end) break;
    if (!measuring.load() && now >= warm_until) {
      measuring = true;
      start = now;
    }
    std::fill(have.begin(), have.end(), 0);
    for (int got = 0; got < clients && ok;) {
      for (int i = 0; i < clients; ++i) pfd[i] = {server_fd[i], static_cast<short>(have[i] ? 0 : POLLIN), 0};
      if (::poll(pfd.data(), pfd.size(), -1) < 0 && errno != EINTR) ok = false;
      for (int i = 0; i < clients && ok; ++i) {
        if (have[i] || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ok = RecvAll(server_fd[i], request.data(), request.size());
        have[i] = 1;
        ++got;
      }
    }
    const double s0 = NowUs();
    while (NowUs() - s0 < work_us) {
    }
    if (measuring.load()) {
      spun += NowUs() - s0;
      ++f.rounds;
    }
    for (int i = 0; i < clients && ok; ++i) ok = SendAll(server_fd[i], reply.data(), reply.size());
  }
  const double wall = NowUs() - start;
  stop = true;
  for (int fd : server_fd) ::shutdown(fd, SHUT_RDWR);
  for (auto& t : threads) t.join();
  close_all();
  GOMOKU_CHECK(ok, "socket floor: a socket call failed");
  std::vector<double> all;
  for (auto& l : latency) all.insert(all.end(), l.begin(), l.end());
  GOMOKU_CHECK(f.rounds > 0 && !all.empty(), "socket floor: no round completed");
  std::sort(all.begin(), all.end());
  f.busy = spun / wall;
  f.turnaround_us = (wall - spun) / static_cast<double>(f.rounds);
  f.round_trip_p50_us = all[all.size() / 2];
  f.overhead_p50_us = f.round_trip_p50_us - work_us;
  return f;
}

}  // namespace gz
