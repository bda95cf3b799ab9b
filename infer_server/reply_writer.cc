#include "infer_server/reply_writer.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/base/errors.h"

namespace gz {

namespace asio = boost::asio;

ReplyWriter::ReplyWriter(SessionSocket& socket, int max_unsent)
    : socket_(socket), fd_(socket.native_handle()), max_unsent_(max_unsent) {
  GOMOKU_CHECK(max_unsent_ >= 1, "ReplyWriter: max_unsent must be >= 1");
}

void ReplyWriter::Attach(std::weak_ptr<Events> events) { events_ = std::move(events); }

bool ReplyWriter::WriteLocked(std::string frame, std::string* why, bool* abnormal) {
  if (!writing_ && out_.empty()) {
    size_t off = 0;
    while (off < frame.size()) {
      const ssize_t n = ::send(fd_, frame.data() + off, frame.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        off += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      const bool gone = n < 0 && (errno == EPIPE || errno == ECONNRESET);
      *why = gone ? "client went away before its answers were written"
                  : std::string("write failed: ") + (n < 0 ? std::strerror(errno) : "send returned 0");
      *abnormal = !gone;
      return false;
    }
    if (off == frame.size()) return true;
    frame.erase(0, off);
  }
  out_.push_back(std::move(frame));
  if (out_.size() + parked_.size() > static_cast<size_t>(max_unsent_)) {
    *why = "more than " + std::to_string(max_unsent_) + " unsent replies (client is not reading them); disconnecting";
    *abnormal = true;
    return false;
  }
  if (!writing_) {
    writing_ = true;
    asio::post(socket_.get_executor(), [this, events = events_.lock()] { DoWrite(events); });
  }
  return true;
}

void ReplyWriter::PostFailure(std::string why, bool abnormal) {
  asio::post(socket_.get_executor(), [events = events_.lock(), why = std::move(why), abnormal] {
    if (events) events->OnWriteFailed(why, abnormal);
  });
}

size_t ReplyWriter::Unsent() {
  std::lock_guard<std::mutex> lock(mu_);
  return out_.size() + parked_.size();
}

bool ReplyWriter::Idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return !writing_ && out_.empty();
}

void ReplyWriter::Send(std::string frame) {
  std::string why;
  bool abnormal = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (WriteLocked(std::move(frame), &why, &abnormal)) return;
  }
  PostFailure(std::move(why), abnormal);
}

void ReplyWriter::SendInOrder(uint64_t slot, std::string frame) {
  std::string why;
  bool abnormal = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (slot != send_slot_) {
      parked_.emplace(slot, std::move(frame));
      if (out_.size() + parked_.size() <= static_cast<size_t>(max_unsent_)) return;
      why = "more than " + std::to_string(max_unsent_) + " unsent replies; disconnecting";
      abnormal = true;
    } else {
      bool ok = WriteLocked(std::move(frame), &why, &abnormal);
      ++send_slot_;
      for (auto it = parked_.begin(); ok && it != parked_.end() && it->first == send_slot_; it = parked_.begin()) {
        ok = WriteLocked(std::move(it->second), &why, &abnormal);
        parked_.erase(it);
        ++send_slot_;
      }
      if (ok) return;
    }
  }
  PostFailure(std::move(why), abnormal);
}

void ReplyWriter::DoWrite(std::shared_ptr<Events> events) {
  const std::string* front = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || out_.empty() || !events) {
      writing_ = false;
      return;
    }
    front = &out_.front();  // deque: stays put while others push_back
  }
  asio::async_write(socket_, asio::buffer(*front),
                    [this, events = std::move(events)](const boost::system::error_code& ec, size_t) mutable {
                      bool more = false;
                      {
                        std::lock_guard<std::mutex> lock(mu_);
                        if (closed_) {
                          writing_ = false;
                          return;
                        }
                        if (!ec) {
                          out_.pop_front();
                          more = !out_.empty();
                        }
                        if (ec || !more) writing_ = false;
                      }
                      if (ec) {
                        const bool gone = ec == asio::error::broken_pipe || ec == asio::error::connection_reset;
                        events->OnWriteFailed(
                            gone ? "client went away before its answers were written" : "write failed: " + ec.message(),
                            !gone);
                        return;
                      }
                      if (more) DoWrite(std::move(events));
                      else events->OnAllWritten();
                    });
}

void ReplyWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  while (out_.size() > (writing_ ? 1u : 0u)) out_.pop_back();
  parked_.clear();
}

}  // namespace gz
