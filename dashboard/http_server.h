// The dashboard's HTTP/1.1 transport on Boost.Beast: accepts connections,
// reads bounded requests, hands each to the handler on a separate thread
// pool, writes the answer.  It knows nothing of what a request means.
//
// Bounds (each one answers or closes, and the server keeps serving others):
//   - request line + headers over header_limit: 431, connection closed;
//     a body over body_limit: 413; any other malformed request: 400;
//   - a client that sends nothing (idle keep-alive, slowloris) is closed after
//     read_timeout_s; one that never reads its answers after write_timeout_s;
//   - beyond max_connections, new connections get 503 and are closed;
//   - all I/O is asynchronous on `io_threads`, and handlers (file reads,
//     engine searches) run on `handler_threads`, so a slow handler never
//     stalls the sockets and idle connections cost no thread.
// Thread-safety: Run() once, from one thread; Stop() and port() from any.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "dashboard/http_types.h"

namespace gz {

struct HttpServerOptions {
  std::string bind = "127.0.0.1";
  int port = 8765;                 // 0 = any free port (see port())
  int io_threads = 2;
  int handler_threads = 4;
  size_t header_limit = 8 * 1024;  // request line + all headers, bytes
  size_t body_limit = 16 * 1024;   // the POST bodies of the page are tiny JSON
  double read_timeout_s = 30;      // for one whole request, from the first byte waited for
  double write_timeout_s = 30;     // for one whole answer
  int max_connections = 1024;
};

// Must not throw; whatever it returns is sent.  Called concurrently from the
// handler threads.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  // Binds and listens now (so port() is known); throws IoError naming the
  // address when that fails.
  HttpServer(const HttpServerOptions& options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;
  // Serves until Stop().
  void Run();
  void Stop();

  struct Impl;  // implementation detail (the sessions in http_server.cc use it)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gz
