// The inference server's I/O side: accepts connections on the listening Unix
// socket, owns the sessions, publishes stats every stats_interval_s (log line
// "stats: ...", and <run>/status/server.json written atomically), and shuts
// down on SIGTERM/SIGINT: stop accepting, remove the socket, let every Batcher
// (one per board size served) finish the batch in flight and answer every waiting request with an ERROR,
// flush the replies, then stop the io_context (bounded by a few seconds).
//
// Connections from another uid (SO_PEERCRED) and connections beyond
// max_clients are refused with one log line.
// Thread-safety: construct, Start and run the io_context on one thread; the
// session registry is mutex-guarded because sessions close on their strands.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>

#include "infer_server/batcher.h"
#include "infer_server/session.h"
#include "infer_server/socket_setup.h"

namespace gz {

struct ServerOptions {
  int max_clients = 512;
  double stats_interval_s = 30;
  std::string status_file;  // "" = do not write a status file
};

class InferServer {
 public:
  // Takes ownership of listening.fd (not of the lock).  `batchers` (not
  // owned; the lanes behind ctx.service, one per board size) are stopped at
  // shutdown.
  InferServer(asio::io_context& io, const ListeningSocket& listening, ServerOptions options, SessionContext ctx,
              std::vector<Batcher*> batchers);
  void Start();
  // Runs the shutdown sequence (on the io thread).  Idempotent.
  void Shutdown(const std::string& why);
  // Writes one stats snapshot now (log line + status file).
  void PublishStats(bool reset_interval, const char* state);

 private:
  void Accept();
  void ScheduleStats();
  void OnSessionClosed(uint64_t id);

  asio::io_context& io_;
  ListeningSocket listening_;
  ServerOptions options_;
  SessionContext ctx_;
  std::vector<Batcher*> batchers_;
  asio::local::stream_protocol::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer stats_timer_;
  asio::steady_timer stop_timer_;
  bool shutting_down_ = false;
  uint64_t next_id_ = 1;

  std::mutex mu_;
  std::map<uint64_t, std::weak_ptr<Session>> sessions_;  // guarded by mu_
};

}  // namespace gz
