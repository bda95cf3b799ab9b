// One client connection of the inference server.
//
// Reads frames (header, bounds check, body) under a read deadline of
// idle_timeout_s per frame, so silent, dripping or half-sent connections are
// closed; answers HELLO/PING/STATS at once, queues INFER jobs in the Batcher
// (encoding their planes here, off the batch thread), hands RELOADs to the
// Reloader, and writes replies through a queue.  A connection whose pending
// answers (queued jobs + unsent replies) exceed max_pending_replies is cut off.
// A malformed frame gets an ERROR and the connection is closed; one log line
// says why.  Nothing a client does affects other connections.
//
// Thread-safety: all state lives on the session's strand (the socket's
// executor).  Deliver / ReplyReload / BeginShutdown may be called from any
// thread; they post onto the strand.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>

#include "common/wire.h"
#include "infer_server/batcher.h"
#include "infer_server/reloader.h"
#include "infer_server/server_stats.h"

namespace gz {

namespace asio = boost::asio;
using SessionStrand = asio::strand<asio::io_context::executor_type>;
using SessionSocket = asio::basic_stream_socket<asio::local::stream_protocol, SessionStrand>;

// What every session needs from the server.  Outlives all sessions.
struct SessionContext {
  double idle_timeout_s = 120;
  int max_pending_replies = 64;
  int board_size = 15;
  Rule rule = Rule::kFreestyle;
  SymmetryMode symmetry = SymmetryMode::kAll8;
  Batcher* batcher = nullptr;
  Reloader* reloader = nullptr;
  ServerStats* stats = nullptr;
  std::function<void(uint64_t session_id)> on_closed;  // any thread
};

class Session : public ReplyTarget, public std::enable_shared_from_this<Session> {
 public:
  Session(SessionSocket socket, SessionContext* ctx, uint64_t id);
  ~Session() override;

  void Start();
  void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome) override;
  // Stop reading; close once queued replies are written (or after a short grace).
  void BeginShutdown();
  uint64_t id() const { return id_; }

 private:
  void ReadHeader();
  void OnHeader(const boost::system::error_code& ec, size_t n);
  void OnBody(const boost::system::error_code& ec);
  void HandleFrame();
  void HandleHello();
  void HandleInfer();
  void HandleReload();
  void OnResult(std::unique_ptr<InferJob> job, JobOutcome outcome);

  void Send(std::string frame);
  void SendError(uint64_t request_id, wire::ErrorCode code, const std::string& message);
  void DoWrite();
  // Sends an ERROR, stops reading and closes after it is written.
  void FailAndClose(uint64_t request_id, wire::ErrorCode code, const std::string& why);
  void Close(const std::string& reason, bool abnormal);
  void ArmTimer(double seconds, const std::string& reason);
  void DisarmTimer();
  std::string Name() const;

  SessionSocket socket_;
  asio::steady_timer timer_;
  SessionContext* ctx_;
  const uint64_t id_;

  uint8_t head_[wire::kHeaderSize];
  wire::FrameHeader header_;
  std::string body_;
  std::deque<std::string> writes_;
  bool writing_ = false;
  bool draining_ = false;  // no more reads; close when writes_ empties
  bool closed_ = false;
  bool hello_ = false;
  std::string client_name_;
  int in_flight_ = 0;      // INFER / RELOAD requests not yet answered
  uint64_t timer_seq_ = 0;
  int64_t requests_ = 0;
};

}  // namespace gz
