// One client connection of the inference server.
//
// Reads frames (header, bounds check, body; buffered, so one read may bring
// several) under a read deadline of
// idle_timeout_s per frame, so silent, dripping or half-sent connections are
// closed; answers HELLO/PING/STATS at once, looks INFER positions up in the
// result cache (a request whose positions are all cached is answered here,
// without the batcher), queues the rest in the Batcher (encoding their planes
// here, off the batch thread), hands RELOADs to the Reloader.  A connection
// whose pending answers (queued jobs + unsent replies) exceed
// max_pending_replies is cut off.  A malformed frame gets an ERROR and the
// connection is closed; one log line says why.  Nothing a client does affects
// other connections.
//
// Writing: a frame is sent straight away with a non-blocking send() from
// whichever thread produced it (the I/O thread, or the batch thread when it
// writes replies itself); what the socket does not take at once is queued
// and written by an async_write on the strand.  INFER replies (and INFER
// errors) leave in request order: a reply that is ready before an earlier
// one waits in a small reorder buffer.  Other replies are sent at once.
//
// Thread-safety: reading and connection state live on the session's strand
// (the socket's executor).  Deliver / BeginShutdown may be
// called from any thread; the write queue has its own mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>

#include "common/wire/wire.h"
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
  void Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) override;
  // Stop reading; close once queued replies are written (or after a short grace).
  void BeginShutdown();
  uint64_t id() const { return id_; }

 private:
  // Reading: one async_read_some into in_ takes whatever the socket holds
  // (several frames, or part of one); HandleBuffered handles every complete
  // frame in it, then reads more.  Strand only.
  void ReadMore();
  void OnRead(const boost::system::error_code& ec, size_t n);
  void HandleBuffered(bool starting);
  void HandleFrame();
  void HandleHello();
  void HandleInfer();
  void HandleReload();
  // Builds and sends the reply of a finished job.  Any thread.
  void Complete(std::unique_ptr<InferJob> job, JobOutcome outcome);
  void BuildAndSend(InferJob& job, JobOutcome& outcome);  // Complete's work; may throw

  // Sends a frame now (not ordered with INFER replies).  Any thread.
  void Send(std::string frame);
  // Sends the answer of the INFER with reply slot `seq` once every earlier
  // slot has been sent.  Any thread.
  void SendInOrder(uint64_t seq, std::string frame);
  // out_mu_ held: writes or queues `frame`; false (with *why) when the
  // connection must be closed.
  bool WriteLocked(std::string frame, std::string* why, bool* abnormal);
  // Closes on the strand (from any thread).
  void PostClose(std::string why, bool abnormal);
  size_t Unsent();  // queued + parked frames
  void SendError(uint64_t request_id, wire::ErrorCode code, const std::string& message);
  void DoWrite();
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
  std::string Name() const;

  SessionSocket socket_;
  const int fd_;  // socket_'s descriptor, for sends from other threads (under out_mu_)
  asio::steady_timer timer_;
  SessionContext* ctx_;
  const uint64_t id_;

  // Strand only.
  static constexpr size_t kReadChunk = 16384;   // bytes asked of each read at least
  static constexpr size_t kKeepBuffer = 65536;  // an emptied buffer above this is freed
  std::vector<uint8_t> in_;                     // received bytes; unhandled ones in [in_begin_, in_end_)
  size_t in_begin_ = 0, in_end_ = 0;
  bool have_header_ = false;                    // header_ is the decoded header at in_begin_
  wire::FrameHeader header_;
  std::string_view body_;                       // the frame being handled (points into in_)
  bool draining_ = false;  // no more reads; close when the write queue empties
  bool hello_ = false;
  std::string client_name_;
  uint64_t timer_seq_ = 0;  // the current async_wait; older handlers do nothing
  bool timer_waiting_ = false;
  Deadline deadline_kind_ = Deadline::kNone;
  std::chrono::steady_clock::time_point deadline_;
  int64_t requests_ = 0;
  uint64_t next_reply_seq_ = 0;

  std::atomic<bool> closed_{false};
  std::atomic<int> in_flight_{0};  // INFER / RELOAD requests not yet answered

  std::mutex out_mu_;
  std::deque<std::string> out_;                 // guarded by out_mu_: not yet written
  bool writing_ = false;                        // guarded by out_mu_: async_write in progress
  bool out_closed_ = false;                     // guarded by out_mu_
  uint64_t send_seq_ = 0;                       // guarded by out_mu_: next INFER reply slot to send
  std::map<uint64_t, std::string> parked_;      // guarded by out_mu_: replies waiting for earlier ones
};

}  // namespace gz
