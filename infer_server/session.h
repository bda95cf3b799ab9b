// One client connection of the inference server: the transport.
//
// Reads frames (header, bounds check, body; buffered, so one read may bring
// several) under a read deadline of idle_timeout_s per frame, so silent,
// dripping or half-sent connections are closed; hands each frame to the
// InferenceService (what HELLO, INFER and RELOAD mean lives there) and
// answers PING/STATS at once.  Writes go through a ReplyWriter: frames leave
// at once, INFER answers in request order.  A connection whose pending
// answers (INFER/RELOAD requests handed to the service and not yet answered,
// plus unsent frames) reach max_pending_replies is cut off.  A malformed
// frame gets an ERROR and the connection is closed; one log line says why.
// Nothing a client does affects other connections.
//
// Thread-safety: reading and connection state live on the session's strand
// (the socket's executor).  The Participant hooks and BeginShutdown may be
// called from any thread (SendAnswer: the strand).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>

#include "common/wire/wire.h"
#include "infer_server/frame_assembler.h"
#include "infer_server/inference_service.h"
#include "infer_server/reply_writer.h"
#include "infer_server/server_stats.h"

namespace gz {

namespace asio = boost::asio;

// What every session needs from the server.  Outlives all sessions.
struct SessionContext {
  double idle_timeout_s = 120;
  int max_pending_replies = 64;
  InferenceService* service = nullptr;
  ServerStats* stats = nullptr;
  std::function<void(uint64_t session_id)> on_closed;  // any thread
};

class Session : public Participant,
                private ReplyWriter::Events,
                public std::enable_shared_from_this<Session> {
 public:
  Session(SessionSocket socket, SessionContext* ctx, uint64_t id);
  ~Session() override;

  void Start();
  // Stop reading; close once queued replies are written (or after a short grace).
  void BeginShutdown();

  // Participant
  void SendAnswerInOrder(uint64_t slot, std::string frame) override;
  void SendAnswer(std::string frame) override;
  void Post(std::function<void()> work) override;
  bool closed() const override { return closed_.load(); }
  uint64_t id() const override { return id_; }
  std::string Name() const override;

 private:
  // ReplyWriter::Events
  void OnWriteFailed(const std::string& why, bool abnormal) override;
  void OnAllWritten() override;

  // Reading: one async_read_some into frames_'s buffer takes whatever the
  // socket holds (several frames, or part of one); HandleBuffered handles
  // every complete frame in it, then reads more.  Strand only.
  void ReadMore();
  void OnRead(const boost::system::error_code& ec, size_t n);
  void HandleBuffered(bool starting);
  void HandleFrame();
  void HandleHello();
  void HandleInfer();
  void HandleReload();
  // True (after closing) when the client has too many answers pending.
  bool TooManyPending(const std::string& why);

  void SendError(uint64_t request_id, wire::ErrorCode code, const std::string& message);
  // Sends an ERROR, stops reading and closes after it is written.
  void FailAndClose(uint64_t request_id, wire::ErrorCode code, const std::string& why);
  void Close(const std::string& reason, bool abnormal);
  // One timer per connection, for two deadlines: a whole frame within the
  // idle timeout (kFrame), and a closing connection's drain (kCloseGrace).
  // Moving a deadline later only stores it: a wait that ends early re-checks
  // and waits again, so requests cost no timer operations.  Strand only.
  enum class Deadline { kNone, kFrame, kCloseGrace };
  void SetDeadline(double seconds, Deadline kind);
  void WaitForDeadline();
  void StopTimer();

  SessionSocket socket_;
  asio::steady_timer timer_;
  SessionContext* ctx_;
  const uint64_t id_;
  ReplyWriter writer_;

  // Strand only.
  FrameAssembler frames_;     // received bytes -> whole frames (frame_assembler.h)
  wire::FrameHeader header_;  // the frame being handled
  std::string_view body_;     // its payload (points into frames_'s buffer)
  bool draining_ = false;  // no more reads; close when the write queue empties
  bool hello_ = false;
  int lane_ = -1;  // after the first accepted HELLO: the service lane of its board size
  std::string client_name_;
  uint64_t timer_seq_ = 0;  // the current async_wait; older handlers do nothing
  bool timer_waiting_ = false;
  Deadline deadline_kind_ = Deadline::kNone;
  std::chrono::steady_clock::time_point deadline_;
  int64_t requests_ = 0;

  std::atomic<bool> closed_{false};
  std::atomic<int> in_flight_{0};  // INFER / RELOAD requests handed to the service, not yet answered
};

}  // namespace gz
