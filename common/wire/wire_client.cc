#include "common/wire/wire_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "common/base/fileio.h"
#include "common/wire/unix_address.h"

namespace gz {
namespace {

int RemainingMs(double deadline) {
  double left = deadline - MonotonicSeconds();
  if (left <= 0) return 0;
  return static_cast<int>(std::min(std::ceil(left * 1000.0), 2.0e9));
}

}  // namespace

WireClient::WireClient(const std::string& socket_path, double connect_timeout_s) : path_(socket_path) {
  const sockaddr_un addr = UnixSocketAddress(path_);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) GOMOKU_THROW(ServerUnavailableError, "socket(): " << std::strerror(errno));
  // A blocking connect on a Unix socket waits only when the listen backlog is
  // full; SO_SNDTIMEO bounds that wait.
  double t = std::max(connect_timeout_s, 0.001);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(t);
  tv.tv_usec = static_cast<suseconds_t>((t - std::floor(t)) * 1e6);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int rc;
  do {
    rc = ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int e = errno;
    ::close(fd_);
    fd_ = -1;
    const char* why = e == ENOENT         ? "no socket file (server not started?)"
                      : e == ECONNREFUSED ? "connection refused (no server listening)"
                      : (e == EAGAIN || e == EINPROGRESS) ? "connect timed out (server backlog full)"
                                                          : std::strerror(e);
    GOMOKU_THROW(ServerUnavailableError, "cannot connect to inference server at '" << path_ << "': " << why);
  }
  int flags = ::fcntl(fd_, F_GETFL, 0);
  ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

WireClient::~WireClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool WireClient::PeerClosed() const {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR)) return true;
  char c;
  ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

void WireClient::WriteAll(const char* p, size_t n, double deadline) {
  if (fd_ < 0) GOMOKU_THROW(ServerUnavailableError, "connection to '" << path_ << "' is closed");
  while (n > 0) {
    ssize_t w = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      AwaitReady(POLLOUT, deadline, "timed out writing to inference server at");
      continue;
    }
    GOMOKU_THROW(ServerUnavailableError,
                 "write to inference server at '" << path_ << "' failed: " << std::strerror(errno));
  }
}

void WireClient::AwaitReady(short events, double deadline, const char* timeout_message) {
  const int ms = RemainingMs(deadline);
  if (ms == 0) GOMOKU_THROW(ServerTimeoutError, timeout_message << " '" << path_ << "'");
  pollfd pf{fd_, events, 0};
  ::poll(&pf, 1, ms);
}

void WireClient::Fill(size_t n, double deadline) {
  if (fd_ < 0) GOMOKU_THROW(ServerUnavailableError, "connection to '" << path_ << "' is closed");
  if (in_begin_ == in_end_) in_begin_ = in_end_ = 0;
  while (in_end_ - in_begin_ < n) {
    if (in_begin_ > 0) {  // move the unread bytes to the front
      std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
      in_end_ -= in_begin_;
      in_begin_ = 0;
    }
    if (in_.size() < std::max(n, kReadChunk)) in_.resize(std::max(n, kReadChunk));
    ssize_t r = ::recv(fd_, in_.data() + in_end_, in_.size() - in_end_, 0);
    if (r > 0) {
      in_end_ += static_cast<size_t>(r);
      continue;
    }
    if (r == 0) GOMOKU_THROW(ServerUnavailableError, "inference server at '" << path_ << "' closed the connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      AwaitReady(POLLIN, deadline, "timed out waiting for the inference server at");
      continue;
    }
    GOMOKU_THROW(ServerUnavailableError,
                 "read from inference server at '" << path_ << "' failed: " << std::strerror(errno));
  }
}

uint64_t WireClient::Send(wire::MsgType type, std::string_view payload) {
  uint64_t id = next_id_++;
  std::string frame = wire::BuildFrame(type, id, payload);
  SendRaw(frame, 30.0);
  return id;
}

void WireClient::SendRaw(std::string_view bytes, double timeout_s) {
  try {
    WriteAll(bytes.data(), bytes.size(), MonotonicSeconds() + timeout_s);
  } catch (...) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;  // the stream position is unknown now; never reuse it
    throw;
  }
}

WireClient::Frame WireClient::Receive(double timeout_s) {
  const double deadline = MonotonicSeconds() + timeout_s;
  try {
    Fill(wire::kHeaderSize, deadline);
    Frame f;
    try {
      f.header = wire::DecodeHeader(reinterpret_cast<const uint8_t*>(in_.data() + in_begin_));
    } catch (const ProtocolError& e) {
      throw ServerRefusedError(wire::ErrorCode::kBadFrame, std::string("bad reply from inference server: ") + e.what());
    }
    Fill(wire::kHeaderSize + f.header.payload_len, deadline);  // bounded by DecodeHeader
    f.payload.assign(in_.data() + in_begin_ + wire::kHeaderSize, f.header.payload_len);
    in_begin_ += wire::kHeaderSize + f.header.payload_len;
    if (in_begin_ == in_end_ && in_.size() > kKeepBuffer) {
      std::vector<char>().swap(in_);  // after a big reply
      in_begin_ = in_end_ = 0;
    }
    return f;
  } catch (...) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw;
  }
}

WireClient::Frame WireClient::Expect(uint64_t request_id, wire::MsgType request, wire::MsgType type,
                                    double deadline) {
  Frame f = Receive(std::max(deadline - MonotonicSeconds(), 0.0));
  auto bad = [&](const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw ServerRefusedError(wire::ErrorCode::kBadFrame, "bad reply from inference server: " + why);
  };
  if (f.header.request_id != request_id)
    bad("reply for request " + std::to_string(f.header.request_id) + ", expected " + std::to_string(request_id));
  if (f.header.type == wire::MsgType::kError) {
    wire::Error e;
    try {
      e = wire::DecodeError(f.payload);
    } catch (const ProtocolError& ex) {
      bad(ex.what());
    }
    throw ServerRefusedError(e.code, "inference server at '" + path_ + "' refused " + wire::MsgTypeName(request) +
                                         " (" + wire::ErrorCodeName(e.code) + "): " + e.message);
  }
  if (f.header.type != type) bad(std::string("got ") + wire::MsgTypeName(f.header.type));
  return f;
}

wire::HelloOk WireClient::Hello(const HelloParams& params, double timeout_s) {
  const double deadline = MonotonicSeconds() + timeout_s;
  wire::Hello h;
  h.encoder_version = static_cast<uint16_t>(params.encoder_version);
  h.board_size = params.board_size;
  h.rule = params.rule;
  h.symmetry = params.symmetry;
  h.client_name = params.client_name.substr(0, wire::kMaxNameBytes);
  uint64_t id = next_id_++;
  SendRaw(wire::BuildFrame(wire::MsgType::kHello, id, wire::EncodeHello(h)), timeout_s);
  Frame f = Expect(id, wire::MsgType::kHello, wire::MsgType::kHelloOk, deadline);
  wire::HelloOk ok;
  try {
    ok = wire::DecodeHelloOk(f.payload);
  } catch (const ProtocolError& e) {
    throw ServerRefusedError(wire::ErrorCode::kBadFrame, e.what());
  }
  board_size_ = params.board_size;
  max_positions_ = std::min(ok.max_positions, wire::MaxPositionsPerInfer(params.board_size));
  return ok;
}

int64_t WireClient::Infer(std::span<const Position> positions, std::span<EvalResult> results, double timeout_s) {
  GOMOKU_CHECK(positions.size() == results.size(), "positions/results size mismatch");
  GOMOKU_CHECK(hello_done(), "WireClient::Infer before a successful Hello");
  if (positions.empty()) return -1;
  const double deadline = MonotonicSeconds() + timeout_s;
  // Pipelined chunks; replies are matched by request id (an ERROR for a later
  // chunk may overtake the reply of an earlier one).
  std::map<uint64_t, size_t> chunk_start;
  std::string frames;
  for (size_t start = 0; start < positions.size(); start += max_positions_) {
    size_t n = std::min<size_t>(max_positions_, positions.size() - start);
    uint64_t id = next_id_++;
    chunk_start[id] = start;
    frames += wire::BuildFrame(wire::MsgType::kInfer, id, wire::EncodeInfer(positions.subspan(start, n), board_size_));
  }
  SendRaw(frames, std::max(deadline - MonotonicSeconds(), 0.001));
  int64_t generation = -1;
  while (!chunk_start.empty()) {
    Frame f = Receive(std::max(deadline - MonotonicSeconds(), 0.0));
    auto it = chunk_start.find(f.header.request_id);
    try {
      if (it == chunk_start.end())
        GOMOKU_THROW(ProtocolError, "reply for unknown request " << f.header.request_id);
      if (f.header.type == wire::MsgType::kError) {
        wire::Error e = wire::DecodeError(f.payload);
        if (fd_ >= 0) ::close(fd_);  // later replies of this call would be stale
        fd_ = -1;
        throw ServerRefusedError(e.code, "inference server at '" + path_ + "' refused INFER (" +
                                             wire::ErrorCodeName(e.code) + "): " + e.message);
      }
      if (f.header.type != wire::MsgType::kInferReply)
        GOMOKU_THROW(ProtocolError, "got " << wire::MsgTypeName(f.header.type) << " in answer to INFER");
      size_t start = it->second;
      size_t n = std::min<size_t>(max_positions_, positions.size() - start);
      int64_t g = wire::DecodeInferReply(f.payload, board_size_, results.subspan(start, n));
      generation = std::max(generation, g);
    } catch (const ServerRefusedError&) {
      throw;
    } catch (const ProtocolError& e) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      throw ServerRefusedError(wire::ErrorCode::kBadFrame, std::string("bad reply from inference server: ") + e.what());
    }
    chunk_start.erase(it);
  }
  return generation;
}

int64_t WireClient::Ping(double timeout_s) {
  const double deadline = MonotonicSeconds() + timeout_s;
  uint64_t id = next_id_++;
  SendRaw(wire::BuildFrame(wire::MsgType::kPing, id, {}), timeout_s);
  Frame f = Expect(id, wire::MsgType::kPing, wire::MsgType::kPong, deadline);
  try {
    return wire::DecodeGeneration(f.payload);
  } catch (const ProtocolError& e) {
    throw ServerRefusedError(wire::ErrorCode::kBadFrame, e.what());
  }
}

nlohmann::json WireClient::Stats(double timeout_s) {
  const double deadline = MonotonicSeconds() + timeout_s;
  uint64_t id = next_id_++;
  SendRaw(wire::BuildFrame(wire::MsgType::kStats, id, {}), timeout_s);
  Frame f = Expect(id, wire::MsgType::kStats, wire::MsgType::kStatsReply, deadline);
  try {
    return nlohmann::json::parse(f.payload);
  } catch (const nlohmann::json::exception& e) {
    throw ServerRefusedError(wire::ErrorCode::kBadFrame, std::string("STATS_REPLY is not JSON: ") + e.what());
  }
}

int64_t WireClient::Reload(const std::string& weights_path, double timeout_s) {
  const double deadline = MonotonicSeconds() + timeout_s;
  uint64_t id = next_id_++;
  SendRaw(wire::BuildFrame(wire::MsgType::kReload, id, wire::EncodeReload(weights_path)), timeout_s);
  Frame f = Expect(id, wire::MsgType::kReload, wire::MsgType::kReloadOk, deadline);
  try {
    return wire::DecodeGeneration(f.payload);
  } catch (const ProtocolError& e) {
    throw ServerRefusedError(wire::ErrorCode::kBadFrame, e.what());
  }
}

int64_t RequestReload(const std::string& socket_path, const std::string& weights_path, double timeout_s) {
  WireClient c(socket_path, std::min(timeout_s, 5.0));
  return c.Reload(weights_path, timeout_s);
}

bool Ping(const std::string& socket_path, double timeout_s) {
  try {
    WireClient c(socket_path, timeout_s);
    c.Ping(timeout_s);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

nlohmann::json FetchStats(const std::string& socket_path, double timeout_s) {
  WireClient c(socket_path, std::min(timeout_s, 5.0));
  return c.Stats(timeout_s);
}

}  // namespace gz
