#include "dashboard/http_server.h"

#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/errors.h"

namespace gz {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::chrono::steady_clock::duration Seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

HttpResponse ErrorAnswer(int status, const std::string& message) {
  HttpResponse r;
  r.status = status;
  r.body = nlohmann::json({{"error", message}}).dump() + "\n";
  return r;
}

}  // namespace

struct HttpServer::Impl {
  // Declaration order is destruction order reversed: sessions still queued in
  // `ioc` die with it and touch `live` and `opt`, so those outlive it.
  HttpServerOptions opt;
  HttpHandler handler;
  std::atomic<int> live{0};
  std::atomic<bool> stopped{false};
  asio::thread_pool handlers;
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};

  Impl(const HttpServerOptions& o, HttpHandler h)
      : opt(o), handler(std::move(h)), handlers(static_cast<size_t>(std::max(1, o.handler_threads))) {}

  void Accept();
};

namespace {

// One connection: read a request, run the handler off the I/O threads, write,
// repeat while keep-alive.  Every step is bounded by a deadline on the stream.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl& server)
      : stream_(std::move(socket)), server_(server) {
    ++server_.live;
  }
  ~Session() { --server_.live; }

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Read(); });
  }
  // Over the connection limit: one 503 and close.
  void Reject() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      self->Write(ErrorAnswer(503, "too many connections"), /*keep_alive=*/false);
    });
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(server_.opt.header_limit));
    parser_->body_limit(server_.opt.body_limit);
    stream_.expires_after(Seconds(server_.opt.read_timeout_s));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::operation_aborted ||
        ec == asio::error::connection_reset || ec == asio::error::eof)
      return Close();
    if (ec == http::error::header_limit)
      return Write(ErrorAnswer(431, "request line and headers exceed " + std::to_string(server_.opt.header_limit) +
                                        " bytes"),
                   false);
    if (ec == http::error::body_limit)
      return Write(ErrorAnswer(413, "request body exceeds " + std::to_string(server_.opt.body_limit) + " bytes"),
                   false);
    if (ec) return Write(ErrorAnswer(400, "malformed HTTP request: " + ec.message()), false);

    const auto& msg = parser_->get();
    HttpRequest req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    req.host = std::string(msg[http::field::host]);
    req.body = msg.body();
    const bool keep_alive = msg.keep_alive();
    stream_.expires_never();  // the handler's time is not the client's
    asio::post(server_.handlers, [self = shared_from_this(), req = std::move(req), keep_alive] {
      HttpResponse res;
      try {
        res = self->server_.handler(req);
      } catch (const std::exception& e) {  // the contract says "must not throw"; stay up anyway
        spdlog::error("dashboard: handler failed on {} {}: {}", req.method, req.target, e.what());
        res = ErrorAnswer(500, "internal error");
      }
      asio::post(self->stream_.get_executor(),
                 [self, res = std::move(res), keep_alive]() mutable { self->Write(std::move(res), keep_alive); });
    });
  }

  void Write(HttpResponse r, bool keep_alive) {
    res_.emplace();
    res_->version(11);
    res_->result(static_cast<unsigned>(r.status));
    res_->set(http::field::server, "gz_dashboard");
    res_->set(http::field::content_type, r.content_type);
    res_->set(http::field::cache_control, r.cache_control);
    res_->set("X-Content-Type-Options", "nosniff");
    // The page and everything it uses come from this server; nothing else loads.
    res_->set("Content-Security-Policy", r.content_security_policy.empty()
                                             ? "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
                                             : r.content_security_policy);
    if (!r.location.empty()) res_->set(http::field::location, r.location);
    res_->keep_alive(keep_alive);
    res_->body() = std::move(r.body);
    res_->prepare_payload();
    stream_.expires_after(Seconds(server_.opt.write_timeout_s));
    http::async_write(stream_, *res_, [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
      if (ec || !keep_alive) return self->Close();
      self->Read();
    });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> res_;
};

}  // namespace

void HttpServer::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (stopped) return;
    if (ec) {
      // Out of descriptors and the like: log, keep accepting.
      spdlog::warn("dashboard: accept failed: {}", ec.message());
    } else {
      auto s = std::make_shared<Session>(std::move(socket), *this);
      if (live > opt.max_connections) s->Reject();
      else s->Start();
    }
    Accept();
  });
}

HttpServer::HttpServer(const HttpServerOptions& options, HttpHandler handler)
    : impl_(std::make_unique<Impl>(options, std::move(handler))) {
  beast::error_code ec;
  auto addr = asio::ip::make_address(options.bind, ec);
  if (ec) GOMOKU_THROW(ConfigError, "dashboard: bad bind address '" << options.bind << "': " << ec.message());
  if (options.port < 0 || options.port > 65535) GOMOKU_THROW(ConfigError, "dashboard: bad port " << options.port);
  tcp::endpoint ep(addr, static_cast<unsigned short>(options.port));
  auto& a = impl_->acceptor;
  a.open(ep.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(ep, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) GOMOKU_THROW(IoError, "dashboard: cannot listen on " << options.bind << ":" << options.port << ": " << ec.message());
}

HttpServer::~HttpServer() {
  Stop();
  impl_->handlers.join();
}

int HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::Run() {
  impl_->Accept();
  std::vector<std::thread> extra;
  for (int i = 1; i < impl_->opt.io_threads; ++i) extra.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : extra) t.join();
}

void HttpServer::Stop() {
  impl_->stopped = true;
  impl_->ioc.stop();
}

}  // namespace gz
