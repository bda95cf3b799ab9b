// Hostile and broken clients against the real server while a well-behaved
// client keeps getting correct answers: bad magic/version, lengths 0, 3, 2^31,
// 2^32-1, header then EOF, a 1 byte/s drip, garbage payloads, a client that
// never reads, a client that disconnects mid-batch.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>

#include "common/wire/remote_evaluator.h"
#include "tests/infer_server/server_test_util.h"
#include "tests/support/stop_and_join.h"
#include "tests/wire/wire_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

class RawConn {
 public:
  explicit RawConn(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path.c_str());
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  }
  ~RawConn() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool Send(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // Reads until the server closes the connection (true) or timeout (false).
  bool WaitClosed(double timeout_s, std::string* got = nullptr) {
    const double end = MonotonicSeconds() + timeout_s;
    char buf[65536];
    for (;;) {
      int ms = static_cast<int>((end - MonotonicSeconds()) * 1000);
      if (ms <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, ms) <= 0) continue;
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET || errno == EPIPE;
      if (got) got->append(buf, static_cast<size_t>(n));
    }
  }
  void Close() {
    ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

std::string HelloFrame() {
  wire::Hello h;
  h.encoder_version = kEncoderVersion;
  h.board_size = kTestBoard;
  h.symmetry = SymmetryMode::kAll8;
  h.client_name = "hostile";
  return wire::BuildFrame(wire::MsgType::kHello, 1, wire::EncodeHello(h));
}

// The first ERROR frame in `bytes`, if any.
bool FirstError(const std::string& bytes, wire::Error* err) {
  size_t off = 0;
  while (off + wire::kHeaderSize <= bytes.size()) {
    auto h = wire::DecodeHeader(reinterpret_cast<const uint8_t*>(bytes.data() + off));
    if (off + wire::kHeaderSize + h.payload_len > bytes.size()) return false;
    if (h.type == wire::MsgType::kError) {
      *err = wire::DecodeError(std::string_view(bytes).substr(off + wire::kHeaderSize, h.payload_len));
      return true;
    }
    off += wire::kHeaderSize + h.payload_len;
  }
  return false;
}

}  // namespace

TEST_CASE("hostile clients are cut off while a good client keeps being served", "[server][hostile]") {
  ServedCheckpoint srv("server/hostile", 21, 5,
                       {"--set", "server.idle_timeout_s=1.5", "--set", "server.max_pending_replies=8"});

  // The well-behaved client: keeps asking and checking throughout.
  std::vector<Position> probe = RandomPositions(2, 77);
  std::vector<EvalResult> want = LocalAnswers(srv.ckpt, probe);
  std::atomic<bool> stop{false};
  std::atomic<int> good{0}, bad{0};
  std::string good_error;
  std::thread good_client([&] {
    try {
      RemoteEvaluator remote(srv.sock, TestHello());
      std::vector<EvalResult> got(2);
      while (!stop) {
        remote.Evaluate(probe, got);
        if (MaxAbsDiff(got[0], want[0]) < 1e-5 && MaxAbsDiff(got[1], want[1]) < 1e-5) ++good;
        else ++bad;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    } catch (const std::exception& e) {
      good_error = e.what();
      ++bad;
    }
  });
  StopAndJoin joiner{stop, good_client};  // a failed REQUIRE must not leave a joinable thread behind
  auto good_progress = [&] {
    int before = good;
    return WaitUntil([&] { return good > before + 3; }, 20);
  };
  REQUIRE(good_progress());
  const long rss_before = srv.server.RssKb();

  {  // wrong magic
    RawConn c(srv.sock);
    c.Send(RawHeader(0x12345678, wire::kProtoVersion, 5, 1, 0));
    std::string got;
    CHECK(c.WaitClosed(10, &got));
  }
  {  // wrong version: ERROR kVersionMismatch, then close
    RawConn c(srv.sock);
    c.Send(RawHeader(wire::kMagic, wire::kProtoVersion + 1, 5, 1, 0));
    std::string got;
    CHECK(c.WaitClosed(10, &got));
    wire::Error e;
    CHECK(FirstError(got, &e));
    CHECK(e.code == wire::ErrorCode::kVersionMismatch);
  }
  const long rss_lengths_before = srv.server.RssKb();
  for (uint32_t len : {0u, 3u, 1u << 31, 0xffffffffu}) {  // INFER payload lengths
    INFO("payload length " << len);
    RawConn c(srv.sock);
    c.Send(HelloFrame());
    c.Send(RawHeader(wire::kMagic, wire::kProtoVersion, static_cast<uint16_t>(wire::MsgType::kInfer), 2, len));
    if (len == 3) c.Send("abc");
    std::string got;
    CHECK(c.WaitClosed(10, &got));
    wire::Error e;
    CHECK(FirstError(got, &e));
    CHECK(e.code == wire::ErrorCode::kBadFrame);
  }
  {  // header then EOF (half a frame, then the client goes away)
    RawConn c(srv.sock);
    c.Send(HelloFrame());
    c.Send(RawHeader(wire::kMagic, wire::kProtoVersion, static_cast<uint16_t>(wire::MsgType::kInfer), 2, 500));
    c.Send(std::string(100, '\0'));
    ::shutdown(c.fd(), SHUT_WR);
    CHECK(c.WaitClosed(10));
  }
  {  // garbage INFER contents, unknown message type, a server-only message, INFER before HELLO
    std::vector<std::string> frames;
    std::vector<Position> ps = RandomPositions(1, 3);
    std::string infer = wire::EncodeInfer(ps, kTestBoard);
    infer[4 + 4 + 10] = 7;  // cell value 7
    frames.push_back(HelloFrame() + wire::BuildFrame(wire::MsgType::kInfer, 2, infer));
    frames.push_back(HelloFrame() + RawHeader(wire::kMagic, wire::kProtoVersion, 99, 2, 0));
    frames.push_back(HelloFrame() + wire::BuildFrame(wire::MsgType::kHelloOk, 2, wire::EncodeHelloOk({1, 1})));
    frames.push_back(wire::BuildFrame(wire::MsgType::kInfer, 2, wire::EncodeInfer(ps, kTestBoard)));
    frames.push_back(HelloFrame() + wire::BuildFrame(wire::MsgType::kInfer, 2, wire::EncodeInfer(RandomPositions(1, 3, 7), 7)));
    for (size_t i = 0; i < frames.size(); ++i) {
      INFO("garbage case " << i);
      RawConn c(srv.sock);
      c.Send(frames[i]);
      std::string got;
      CHECK(c.WaitClosed(10, &got));
      wire::Error e;
      CHECK(FirstError(got, &e));
    }
  }
  {  // 1 byte per ~0.5 s: cut off by the read deadline long before the frame is complete
    RawConn c(srv.sock);
    std::string frame = HelloFrame();
    bool closed = false;
    for (size_t i = 0; i < frame.size() && !closed; ++i) {
      if (!c.Send(frame.substr(i, 1))) closed = true;
      else closed = c.WaitClosed(0.5);
    }
    if (!closed) closed = c.WaitClosed(5);
    CHECK(closed);
  }
  {  // a header announcing 1 MiB, then 200 bytes and silence: the buffer holds what came, not what was announced
    RawConn c(srv.sock);
    c.Send(HelloFrame());
    c.Send(RawHeader(wire::kMagic, wire::kProtoVersion, static_cast<uint16_t>(wire::MsgType::kInfer), 2,
                     wire::kMaxPayload));
    c.Send(std::string(200, '\0'));
    CHECK(c.WaitClosed(10));
  }
  {
    // Checklist 12: the hostile lengths, the half frame, the drip and the
    // announced megabyte cost the server less than 1 MB.
    const long rss_lengths_after = srv.server.RssKb();
    INFO("server RSS across the hostile lengths " << rss_lengths_before << " kB -> " << rss_lengths_after << " kB");
    CHECK(rss_lengths_after - rss_lengths_before < 1024);
  }
  {  // a silent connection is closed after the idle timeout
    RawConn c(srv.sock);
    CHECK(c.WaitClosed(10));
  }
  {  // a client that sends requests but never reads replies is disconnected
    RawConn c(srv.sock);
    c.Send(HelloFrame());
    std::vector<Position> ps = RandomPositions(40, 9);
    std::string frame = wire::BuildFrame(wire::MsgType::kInfer, 3, wire::EncodeInfer(ps, kTestBoard));
    int sent = 0;
    bool cut = false;
    const double end = MonotonicSeconds() + 30;
    while (!cut && MonotonicSeconds() < end) {
      pollfd p{c.fd(), POLLOUT, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      if (p.revents & (POLLERR | POLLHUP)) {
        cut = true;
        break;
      }
      ssize_t n = ::send(c.fd(), frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) cut = true;
      if (n > 0) ++sent;
    }
    CHECK(cut);
    CHECK(sent > 8);
  }
  {  // disconnect mid-batch: the answer is dropped, nobody else is affected
    for (int i = 0; i < 5; ++i) {
      RawConn c(srv.sock);
      c.Send(HelloFrame());
      c.Send(wire::BuildFrame(wire::MsgType::kInfer, 2, wire::EncodeInfer(RandomPositions(3, i), kTestBoard)));
      c.Close();
    }
  }
  // 64 connections at once that each send half a header.
  {
    std::vector<std::unique_ptr<RawConn>> many;
    for (int i = 0; i < 64; ++i) {
      many.push_back(std::make_unique<RawConn>(srv.sock));
      many.back()->Send("GZW");
    }
    for (auto& c : many) CHECK(c->WaitClosed(10));
  }

  REQUIRE(good_progress());
  stop = true;
  good_client.join();
  INFO("good client error: " << good_error);
  CHECK(bad == 0);
  CHECK(good > 0);
  const long rss_after = srv.server.RssKb();
  INFO("server RSS " << rss_before << " kB -> " << rss_after << " kB");
  CHECK(rss_after - rss_before < 64 * 1024);  // no giant allocation for 2^31 / 2^32-1 lengths
  // (After the RSS check: the big forwards below grow the heap legitimately.)
  {  // the client goes away while the server is still writing replies bigger than the socket buffer
    for (int i = 0; i < 3; ++i) {
      RawConn c(srv.sock);
      c.Send(HelloFrame());
      for (int k = 0; k < 3; ++k)  // 400 positions x all8: ~130 kB per reply
        c.Send(wire::BuildFrame(wire::MsgType::kInfer, 2 + k, wire::EncodeInfer(RandomPositions(400, 50 + k), kTestBoard)));
      char buf[100];
      pollfd p{c.fd(), POLLIN, 0};
      CHECK(::poll(&p, 1, 30000) == 1);  // the first reply has begun
      CHECK(::recv(c.fd(), buf, sizeof(buf), 0) > 0);
      c.Close();
    }
  }
  {  // ... and the server still answers correctly
    RemoteEvaluator remote(srv.sock, TestHello());
    std::vector<EvalResult> got(2);
    remote.Evaluate(probe, got);
    CHECK(MaxAbsDiff(got[0], want[0]) < 1e-5);
    CHECK(MaxAbsDiff(got[1], want[1]) < 1e-5);
  }
  CHECK(srv.server.Poll() == std::nullopt);  // still running
  std::string log = srv.server.Log();
  CHECK(log.find("not reading") != std::string::npos);
  CHECK(log.find("idle timeout") != std::string::npos);
  CHECK(log.find("bad frame magic") != std::string::npos);
  CHECK(log.find("exceeds the limit") != std::string::npos);
  CHECK(srv.server.Terminate() == 0);
}
