// The write side of one server connection: its output queue and the reply
// slots that keep INFER answers in request order.
//
// A frame is sent straight away with a non-blocking send() from whichever
// thread produced it (the connection's strand, or the batch thread when it
// writes replies itself); what the socket does not take at once is queued
// and written by an async_write on the strand.  An INFER answer (or INFER
// error) leaves in slot order: one that is ready before an earlier slot's
// waits in a small reorder buffer.  Other frames are sent at once.
//
// More than max_unsent frames queued or parked, or a failed write, means the
// connection must close: the writer tells its Events (on the strand) and
// keeps nothing more.
//
// Ownership: the connection owns the writer and the socket and implements
// Events; Attach() hands the writer a weak reference to it, which the writer
// locks to keep the connection (and so itself) alive while a write or a post
// is in flight.
//
// Thread-safety: Send, SendInOrder, Unsent, Idle and Close may be called from
// any thread (one mutex guards the queue).  Attach and NextSlot belong to the
// reading strand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>

namespace gz {

using SessionStrand = boost::asio::strand<boost::asio::io_context::executor_type>;
using SessionSocket = boost::asio::basic_stream_socket<boost::asio::local::stream_protocol, SessionStrand>;

class ReplyWriter {
 public:
  // What the writer reports to its connection; called on the strand.
  class Events {
   public:
    // A write failed, or the client does not read its answers: close.
    virtual void OnWriteFailed(const std::string& why, bool abnormal) = 0;
    // The last queued frame has been written.
    virtual void OnAllWritten() = 0;

   protected:
    ~Events() = default;
  };

  // `socket` must outlive the writer.  max_unsent >= 1.
  ReplyWriter(SessionSocket& socket, int max_unsent);
  ReplyWriter(const ReplyWriter&) = delete;
  ReplyWriter& operator=(const ReplyWriter&) = delete;

  // Before the first frame.
  void Attach(std::weak_ptr<Events> events);
  // The reply slot of the next INFER, in request order.  Strand only.
  uint64_t NextSlot() { return next_slot_++; }

  // Sends a frame now (not ordered with INFER answers).
  void Send(std::string frame);
  // Sends the INFER answer of `slot` once every earlier slot's answer is sent.
  void SendInOrder(uint64_t slot, std::string frame);
  size_t Unsent();  // queued + parked frames
  bool Idle();      // nothing queued and no write in progress
  // No more writes: drops what is unsent (a write in flight keeps its
  // buffer until its handler runs).  Idempotent.
  void Close();

 private:
  // mu_ held: writes or queues `frame`; false (with *why) when the
  // connection must close.
  bool WriteLocked(std::string frame, std::string* why, bool* abnormal);
  void PostFailure(std::string why, bool abnormal);
  void DoWrite(std::shared_ptr<Events> events);  // strand

  SessionSocket& socket_;
  const int fd_;  // socket_'s descriptor, for sends from other threads (under mu_)
  const int max_unsent_;
  std::weak_ptr<Events> events_;
  uint64_t next_slot_ = 0;  // strand only

  std::mutex mu_;
  std::deque<std::string> out_;             // guarded by mu_: not yet written
  bool writing_ = false;                    // guarded by mu_: async_write in progress
  bool closed_ = false;                     // guarded by mu_
  uint64_t send_slot_ = 0;                  // guarded by mu_: next INFER slot to send
  std::map<uint64_t, std::string> parked_;  // guarded by mu_: answers waiting for earlier ones
};

}  // namespace gz
