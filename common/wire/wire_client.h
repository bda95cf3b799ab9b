// Blocking client of the inference server (plain POSIX Unix-domain socket).
//
// WireClient is one connection: connect with a timeout, then request/reply
// calls, each with its own timeout.  It never raises SIGPIPE (MSG_NOSIGNAL).
// Thread-safety: one WireClient belongs to one thread at a time.
//
// Failures are reported with two distinct exception families so callers can
// tell "the server is not there" from "the server said no":
//   ServerUnavailableError (an IoError): no socket file, connection refused,
//     the peer closed the connection, a read/write error, or a timeout
//     (ServerTimeoutError, a subclass).  The server may come back later.
//   ServerRefusedError (a ProtocolError): the server answered with an ERROR
//     frame; code() says why (wire::ErrorCode).  Also thrown for a reply
//     that breaks the protocol (code kBadFrame).
//
// The control helpers at the bottom (RequestReload, Ping, FetchStats) open a
// connection, do one call and close it; they are what the trainer and
// infer_ctl use.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"
#include "common/wire/wire.h"

namespace gz {

class ServerUnavailableError : public IoError {
 public:
  using IoError::IoError;
};
class ServerTimeoutError : public ServerUnavailableError {
 public:
  using ServerUnavailableError::ServerUnavailableError;
};
class ServerRefusedError : public ProtocolError {
 public:
  ServerRefusedError(wire::ErrorCode code, const std::string& msg) : ProtocolError(msg), code_(code) {}
  wire::ErrorCode code() const { return code_; }

 private:
  wire::ErrorCode code_;
};

// What a self-play client promises the server in HELLO.
struct HelloParams {
  int board_size = 15;
  Rule rule = Rule::kFreestyle;
  SymmetryMode symmetry = SymmetryMode::kAll8;
  int encoder_version = kEncoderVersion;
  std::string client_name;  // shows up in server logs, e.g. "worker 3"
};

class WireClient {
 public:
  // Connects to the Unix socket at `socket_path` within timeout_s.  Throws
  // ServerUnavailableError (the message names the path and the reason).
  WireClient(const std::string& socket_path, double connect_timeout_s);
  ~WireClient();
  WireClient(const WireClient&) = delete;
  WireClient& operator=(const WireClient&) = delete;

  const std::string& socket_path() const { return path_; }

  // HELLO.  Throws ServerRefusedError (code kIncompatible / kVersionMismatch)
  // when the server refuses; remembers the board size and max positions.
  wire::HelloOk Hello(const HelloParams& params, double timeout_s);
  bool hello_done() const { return board_size_ > 0; }
  uint32_t max_positions() const { return max_positions_; }

  // Evaluates positions (any count; split into several pipelined INFER
  // frames when above max_positions()).  Precondition: Hello() succeeded.
  // Returns the model generation of the answers (also in every result).
  int64_t Infer(std::span<const Position> positions, std::span<EvalResult> results, double timeout_s);

  int64_t Ping(double timeout_s);                  // returns the served generation (-1: none)
  nlohmann::json Stats(double timeout_s);          // the server's stats JSON
  int64_t Reload(const std::string& weights_path, double timeout_s);  // new generation after the swap

  // True when the server has closed this connection (peer EOF or error seen
  // without blocking).  Used to reconnect before sending on a dead socket.
  bool PeerClosed() const;

  // Low level (tests): send one frame / receive the next frame.
  uint64_t Send(wire::MsgType type, std::string_view payload);
  void SendRaw(std::string_view bytes, double timeout_s);
  struct Frame {
    wire::FrameHeader header;
    std::string payload;
  };
  Frame Receive(double timeout_s);

 private:
  // Receives the frame answering request_id; ERROR frames become ServerRefusedError.
  Frame Expect(uint64_t request_id, wire::MsgType request, wire::MsgType reply, double deadline);
  void WriteAll(const char* p, size_t n, double deadline);
  // Reads until at least n unread bytes are buffered (one recv takes all the
  // socket holds, up to the buffer: a reply usually arrives in one).
  void Fill(size_t n, double deadline);
  // Waits (poll) until the socket is ready for `events` or `deadline`;
  // ServerTimeoutError "<timeout_message> '<path>'" once it has passed.
  void AwaitReady(short events, double deadline, const char* timeout_message);

  std::string path_;
  int fd_ = -1;
  uint64_t next_id_ = 1;
  int board_size_ = 0;
  uint32_t max_positions_ = 0;
  static constexpr size_t kReadChunk = 16384;
  static constexpr size_t kKeepBuffer = 65536;  // an emptied buffer above this is freed
  std::vector<char> in_;                        // received; unread bytes in [in_begin_, in_end_)
  size_t in_begin_ = 0, in_end_ = 0;
};

// ---- control client (trainer, infer_ctl) ---------------------------------
// Asks the server to load `weights_path`; returns the new generation once the
// server serves it.  Throws ServerUnavailableError when no server answers
// (ServerTimeoutError when it did not answer within timeout_s) and
// ServerRefusedError (code kReloadFailed, message = reason) when the file was
// refused; in that case the old weights keep serving.
int64_t RequestReload(const std::string& socket_path, const std::string& weights_path, double timeout_s);
// True when a server answers PING within timeout_s; never throws.
bool Ping(const std::string& socket_path, double timeout_s);
// The server's stats JSON.  Throws like RequestReload.
nlohmann::json FetchStats(const std::string& socket_path, double timeout_s);

}  // namespace gz
