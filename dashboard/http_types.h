// What the transport (http_server.h) hands the service layer and gets back:
// plain values, no Beast types, so the service (dashboard_service.h) is
// testable and knows nothing about sockets.
#pragma once

#include <string>

#include "common/base/errors.h"

namespace gz {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path plus query, as sent ("/api/game?iteration=3&file=w0_g1.npz")
  std::string host;    // the Host header ("" when absent)
  std::string body;    // bounded by HttpServerOptions::body_limit
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string cache_control = "no-store";  // live data: the browser must re-ask
  // "" = the dashboard's own policy (http_server.cc); the browser board's
  // files need one that lets the engine compile its WebAssembly.
  std::string content_security_policy;
  std::string location;  // a redirect's target ("" = none)
};

// A request the service refuses: `status` is the 4xx (or 5xx) to send and
// what() the one-line reason shown to the client.
class HttpError : public GomokuError {
 public:
  HttpError(int status, const std::string& message) : GomokuError(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace gz
