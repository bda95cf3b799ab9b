#include "infer_server/session.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "infer_server/job_input.h"

namespace gz {
namespace {

constexpr double kCloseGrace_s = 2.0;  // how long a closing connection may take to drain

}  // namespace

Session::Session(SessionSocket socket, SessionContext* ctx, uint64_t id)
    : socket_(std::move(socket)),
      fd_(socket_.native_handle()),
      timer_(socket_.get_executor()),
      ctx_(ctx),
      id_(id) {}

Session::~Session() = default;

std::string Session::Name() const {
  return "client " + std::to_string(id_) + (client_name_.empty() ? "" : " (" + client_name_ + ")");
}

void Session::Start() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->HandleBuffered(true); });
}

void Session::SetDeadline(double seconds, Deadline kind) {
  deadline_kind_ = kind;
  deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                     std::chrono::duration<double>(seconds));
  // A wait that ends no later than the new deadline re-checks then; only an
  // earlier deadline (a close grace within an idle wait) re-arms now.
  if (timer_waiting_ && timer_.expiry() <= deadline_) return;
  WaitForDeadline();
}

void Session::WaitForDeadline() {
  const uint64_t seq = ++timer_seq_;
  timer_waiting_ = true;
  timer_.expires_at(deadline_);  // cancels a wait in progress: its handler sees a stale seq
  timer_.async_wait([self = shared_from_this(), seq](const boost::system::error_code& ec) {
    if (ec || seq != self->timer_seq_ || self->closed_) return;
    self->timer_waiting_ = false;
    if (self->deadline_kind_ == Deadline::kNone) return;
    if (std::chrono::steady_clock::now() < self->deadline_) {
      self->WaitForDeadline();  // the deadline moved on since this wait began
      return;
    }
    if (self->deadline_kind_ == Deadline::kFrame) {
      self->Close(fmt::format("no complete frame within the idle timeout of {:g}s (server.idle_timeout_s)",
                              self->ctx_->idle_timeout_s),
                  true);
    } else {
      self->Close("", true);
    }
  });
}

void Session::StopTimer() {
  deadline_kind_ = Deadline::kNone;
  ++timer_seq_;
  timer_waiting_ = false;
  timer_.cancel();
}

// ---- reading ------------------------------------------------------------------

void Session::ReadMore() {
  if (closed_ || draining_) return;
  const size_t held = in_end_ - in_begin_;
  if (in_begin_ > 0) {  // keep the start of a partial frame at the front
    if (held > 0) std::memmove(in_.data(), in_.data() + in_begin_, held);
    in_begin_ = 0;
    in_end_ = held;
  }
  // Room for a chunk of whatever comes; for a frame bigger than that, room
  // that doubles with what has arrived, up to the whole frame (its length
  // passed DecodeHeader's bound): a header that announces 1 MiB and then
  // drips costs what it sent, not what it announced.
  size_t want = kReadChunk;
  if (have_header_) {
    const size_t frame = wire::kHeaderSize + header_.payload_len;
    want = std::min(frame, std::max(kReadChunk, 2 * held));
  }
  if (in_.size() < want) in_.resize(want);
  socket_.async_read_some(asio::buffer(in_.data() + in_end_, in_.size() - in_end_),
                          [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
                            self->OnRead(ec, n);
                          });
}

void Session::OnRead(const boost::system::error_code& ec, size_t n) {
  if (closed_) return;
  if (ec) {
    const size_t held = in_end_ - in_begin_;
    if (have_header_) {
      Close("connection lost mid-frame (" + std::string(wire::MsgTypeName(header_.type)) + ", " +
                std::to_string(header_.payload_len) + " byte payload, " + std::to_string(held - wire::kHeaderSize) +
                " received): " + ec.message(),
            true);
    } else if (ec == asio::error::eof && held == 0) {
      Close("client closed the connection", false);
    } else if (ec == asio::error::eof) {
      Close("connection closed mid-header after " + std::to_string(held) + " bytes", true);
    } else {
      Close("read error: " + ec.message(), true);
    }
    return;
  }
  in_end_ += n;
  HandleBuffered(false);
}

void Session::HandleBuffered(bool starting) {
  bool finished = starting;
  while (!closed_ && !draining_) {
    const size_t held = in_end_ - in_begin_;
    if (!have_header_) {
      if (held < wire::kHeaderSize) break;
      try {
        header_ = wire::DecodeHeader(in_.data() + in_begin_);  // bounds payload_len before anything is allocated
      } catch (const wire::VersionMismatchError& e) {
        FailAndClose(0, wire::ErrorCode::kVersionMismatch, e.what());
        return;
      } catch (const ProtocolError& e) {
        FailAndClose(0, wire::ErrorCode::kBadFrame, e.what());
        return;
      }
      have_header_ = true;
    }
    const size_t frame = wire::kHeaderSize + header_.payload_len;
    if (held < frame) break;
    body_ = std::string_view(reinterpret_cast<const char*>(in_.data() + in_begin_ + wire::kHeaderSize),
                             header_.payload_len);
    in_begin_ += frame;
    have_header_ = false;
    finished = true;
    deadline_kind_ = Deadline::kNone;  // the frame is complete; a timer still waiting finds nothing to do
    try {
      HandleFrame();
    } catch (const ProtocolError& e) {
      FailAndClose(header_.request_id, wire::ErrorCode::kBadFrame, e.what());
      return;
    } catch (const std::exception& e) {
      FailAndClose(header_.request_id, wire::ErrorCode::kInternal, e.what());
      return;
    }
    body_ = {};
  }
  if (closed_ || draining_) return;
  if (in_begin_ == in_end_) {
    in_begin_ = in_end_ = 0;
    if (in_.size() > kKeepBuffer) std::vector<uint8_t>().swap(in_);  // no big buffers per idle connection
  }
  // The whole next frame must arrive within the idle timeout, counted from
  // the end of the last one: this closes silent connections as well as
  // drips and half-sent frames.
  if (finished) SetDeadline(ctx_->idle_timeout_s, Deadline::kFrame);
  ReadMore();
}

void Session::HandleFrame() {
  const uint64_t rid = header_.request_id;
  switch (header_.type) {
    case wire::MsgType::kHello: HandleHello(); return;
    case wire::MsgType::kInfer: HandleInfer(); return;
    case wire::MsgType::kReload: HandleReload(); return;
    case wire::MsgType::kPing:
      if (!body_.empty()) GOMOKU_THROW(ProtocolError, "PING with a payload");
      Send(wire::BuildFrame(wire::MsgType::kPong, rid, wire::EncodeGeneration(ctx_->batcher->generation())));
      return;
    case wire::MsgType::kStats:
      if (!body_.empty()) GOMOKU_THROW(ProtocolError, "STATS with a payload");
      Send(wire::BuildFrame(wire::MsgType::kStatsReply, rid, ctx_->stats->Snapshot(false).dump()));
      return;
    default:
      GOMOKU_THROW(ProtocolError, "unexpected message " << wire::MsgTypeName(header_.type) << " from a client");
  }
}

void Session::HandleHello() {
  wire::Hello h = wire::DecodeHello(body_);
  std::string why;
  auto differ = [&why](const std::string& what) { why += (why.empty() ? "" : "; ") + what; };
  if (h.proto_version != wire::kProtoVersion)
    differ("protocol version " + std::to_string(h.proto_version) + " != server " + std::to_string(wire::kProtoVersion));
  if (h.encoder_version != kEncoderVersion)
    differ("encoder version " + std::to_string(h.encoder_version) + " != server " + std::to_string(kEncoderVersion));
  if (h.board_size != ctx_->board_size)
    differ("board size " + std::to_string(h.board_size) + " != server " + std::to_string(ctx_->board_size));
  if (h.rule != ctx_->rule) differ(std::string("rule ") + RuleName(h.rule) + " != server " + RuleName(ctx_->rule));
  if (h.symmetry != ctx_->symmetry)
    differ(std::string("symmetry ") + SymmetryModeName(h.symmetry) + " != server " + SymmetryModeName(ctx_->symmetry));
  client_name_ = h.client_name;
  if (!why.empty()) {
    FailAndClose(header_.request_id,
                 h.proto_version != wire::kProtoVersion ? wire::ErrorCode::kVersionMismatch
                                                        : wire::ErrorCode::kIncompatible,
                 "HELLO refused: " + why);
    return;
  }
  if (!hello_) {
    hello_ = true;
    ctx_->batcher->AddClient();
  }
  wire::HelloOk ok;
  ok.model_generation = ctx_->batcher->generation();
  ok.max_positions = wire::MaxPositionsPerInfer(ctx_->board_size);
  spdlog::info("{} connected (board {}, {}, symmetry {})", Name(), h.board_size, RuleName(h.rule),
               SymmetryModeName(h.symmetry));
  Send(wire::BuildFrame(wire::MsgType::kHelloOk, header_.request_id, wire::EncodeHelloOk(ok)));
}

void Session::HandleInfer() {
  if (!hello_) {
    FailAndClose(header_.request_id, wire::ErrorCode::kNoHello, "INFER before a successful HELLO");
    return;
  }
  if (in_flight_.load() + static_cast<int>(Unsent()) >= ctx_->max_pending_replies) {
    Close("more than " + std::to_string(ctx_->max_pending_replies) +
              " answers pending (client is not reading its replies); disconnecting",
          true);
    return;
  }
  auto job = std::make_unique<InferJob>();
  job->positions = wire::DecodeInfer(body_, ctx_->board_size);
  job->client_id = id_;
  job->request_id = header_.request_id;
  job->reply_seq = next_reply_seq_++;
  ++requests_;
  const int n = static_cast<int>(job->positions.size());
  int hits = 0;
  if (ResultCache* cache = ctx_->batcher->cache()) {
    const int64_t gen = ctx_->batcher->generation();
    job->cache_generation = gen;
    job->keys.resize(n);
    job->hit.assign(n, 0);
    job->cached.resize(n);
    for (int i = 0; i < n; ++i) {
      job->keys[i] = MakeCacheKey(job->positions[i], ctx_->symmetry);
      if (gen >= 0 && cache->Lookup(gen, job->keys[i], &job->cached[i])) {
        job->hit[i] = 1;
        ++hits;
      }
    }
    if (gen >= 0) ctx_->stats->RecordCacheLookups(n, hits);
    if (hits == n) {  // everything cached: answer now, no batcher
      ctx_->stats->RecordCachedRequest(n);
      SendInOrder(job->reply_seq, wire::BuildFrame(wire::MsgType::kInferReply, job->request_id,
                                                   wire::EncodeInferReply(gen, job->cached, ctx_->board_size)));
      return;
    }
  }
  // Encoded here, while the batch thread runs the previous forward.
  EncodeJobInput(*job, ctx_->symmetry, ctx_->board_size, ctx_->batcher->input_form());
  job->target = std::static_pointer_cast<ReplyTarget>(shared_from_this());
  const uint64_t seq = job->reply_seq;
  job->enqueued_at = MonotonicSeconds();
  wire::ErrorCode code;
  std::string why;
  ++in_flight_;  // before Submit: the batch thread may answer before Submit returns
  if (!ctx_->batcher->Submit(job, &code, &why)) {
    --in_flight_;
    SendInOrder(seq, wire::BuildFrame(wire::MsgType::kError, header_.request_id, wire::EncodeError({code, why})));
  }
}

void Session::HandleReload() {
  std::string path = wire::DecodeReload(body_);
  if (in_flight_.load() + static_cast<int>(Unsent()) >= ctx_->max_pending_replies) {
    Close("too many pending answers; disconnecting", true);
    return;
  }
  ++in_flight_;
  spdlog::info("{} asks to reload {}", Name(), path);
  std::weak_ptr<Session> weak = shared_from_this();
  const uint64_t rid = header_.request_id;
  ctx_->reloader->Request(path, [weak, rid](int64_t gen, const std::string& error) {
    auto self = weak.lock();
    if (!self) return;
    asio::post(self->socket_.get_executor(), [self, rid, gen, error] {
      --self->in_flight_;
      if (self->closed_) return;
      if (gen >= 0) self->Send(wire::BuildFrame(wire::MsgType::kReloadOk, rid, wire::EncodeGeneration(gen)));
      else self->SendError(rid, wire::ErrorCode::kReloadFailed, error);
    });
  });
}

// ---- answers ---------------------------------------------------------------------

void Session::Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome, bool write_here) {
  if (write_here) {
    Complete(std::move(job), std::move(outcome));
    return;
  }
  auto self = shared_from_this();
  auto j = std::make_shared<std::unique_ptr<InferJob>>(std::move(job));
  auto o = std::make_shared<JobOutcome>(std::move(outcome));
  asio::post(socket_.get_executor(), [self, j, o] { self->Complete(std::move(*j), std::move(*o)); });
}

void Session::Complete(std::unique_ptr<InferJob> job, JobOutcome out) {
  --in_flight_;
  if (closed_.load()) {
    ctx_->stats->RecordDropped();
    return;
  }
  try {
    BuildAndSend(*job, out);
  } catch (const std::exception& e) {  // runs on the batch thread too: never let it escape
    spdlog::error("client {}: cannot build the reply to request {}: {}", id_, job->request_id, e.what());
    SendInOrder(job->reply_seq, wire::BuildFrame(wire::MsgType::kError, job->request_id,
                                                 wire::EncodeError({wire::ErrorCode::kInternal, e.what()})));
  }
}

void Session::BuildAndSend(InferJob& job, JobOutcome& out) {
  if (!out.ok) {
    SendInOrder(job.reply_seq, wire::BuildFrame(wire::MsgType::kError, job.request_id,
                                                wire::EncodeError({out.error_code, out.error})));
    return;
  }
  const int per = SymmetriesPerPosition(ctx_->symmetry);
  const size_t pts = static_cast<size_t>(ctx_->board_size) * ctx_->board_size;
  const size_t n = job.positions.size();
  std::vector<EvalResult> results(n);
  ResultCache* cache = job.keys.empty() ? nullptr : ctx_->batcher->cache();
  // Answers of a model that is no longer serving are not worth keeping.
  if (cache && out.generation != ctx_->batcher->generation()) cache = nullptr;
  size_t row = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!job.hit.empty() && job.hit[i]) {
      results[i] = std::move(job.cached[i]);
      continue;
    }
    CombineSymmetric(job.positions[i], ctx_->symmetry, out.log_policy.data() + row * per * pts,
                     out.values.data() + row * per, &results[i]);
    ++row;
    if (cache) cache->Insert(out.generation, job.keys[i], results[i]);
  }
  SendInOrder(job.reply_seq, wire::BuildFrame(wire::MsgType::kInferReply, job.request_id,
                                              wire::EncodeInferReply(out.generation, results, ctx_->board_size)));
}

// ---- writing ----------------------------------------------------------------------

bool Session::WriteLocked(std::string frame, std::string* why, bool* abnormal) {
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
  if (out_.size() + parked_.size() > static_cast<size_t>(ctx_->max_pending_replies)) {
    *why = "more than " + std::to_string(ctx_->max_pending_replies) +
           " unsent replies (client is not reading them); disconnecting";
    *abnormal = true;
    return false;
  }
  if (!writing_) {
    writing_ = true;
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->DoWrite(); });
  }
  return true;
}

void Session::PostClose(std::string why, bool abnormal) {
  asio::post(socket_.get_executor(), [self = shared_from_this(), why = std::move(why), abnormal] {
    self->Close(why, abnormal);
  });
}

size_t Session::Unsent() {
  std::lock_guard<std::mutex> lock(out_mu_);
  return out_.size() + parked_.size();
}

void Session::Send(std::string frame) {
  std::string why;
  bool abnormal = false;
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    if (out_closed_) return;
    if (WriteLocked(std::move(frame), &why, &abnormal)) return;
  }
  PostClose(std::move(why), abnormal);
}

void Session::SendInOrder(uint64_t seq, std::string frame) {
  std::string why;
  bool abnormal = false;
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    if (out_closed_) return;
    if (seq != send_seq_) {
      parked_.emplace(seq, std::move(frame));
      if (out_.size() + parked_.size() <= static_cast<size_t>(ctx_->max_pending_replies)) return;
      why = "more than " + std::to_string(ctx_->max_pending_replies) + " unsent replies; disconnecting";
      abnormal = true;
    } else {
      bool ok = WriteLocked(std::move(frame), &why, &abnormal);
      ++send_seq_;
      for (auto it = parked_.begin(); ok && it != parked_.end() && it->first == send_seq_; it = parked_.begin()) {
        ok = WriteLocked(std::move(it->second), &why, &abnormal);
        parked_.erase(it);
        ++send_seq_;
      }
      if (ok) return;
    }
  }
  PostClose(std::move(why), abnormal);
}

void Session::SendError(uint64_t request_id, wire::ErrorCode code, const std::string& message) {
  Send(wire::BuildFrame(wire::MsgType::kError, request_id, wire::EncodeError({code, message})));
}

void Session::DoWrite() {
  const std::string* front = nullptr;
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    if (out_closed_ || out_.empty()) {
      writing_ = false;
      return;
    }
    front = &out_.front();  // deque: stays put while others push_back
  }
  asio::async_write(socket_, asio::buffer(*front),
                    [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                      bool more = false;
                      {
                        std::lock_guard<std::mutex> lock(self->out_mu_);
                        if (self->out_closed_) {
                          self->writing_ = false;
                          return;
                        }
                        if (!ec) {
                          self->out_.pop_front();
                          more = !self->out_.empty();
                        }
                        if (ec || !more) self->writing_ = false;
                      }
                      if (ec) {
                        const bool gone = ec == asio::error::broken_pipe || ec == asio::error::connection_reset;
                        self->Close(gone ? "client went away before its answers were written"
                                         : "write failed: " + ec.message(),
                                    !gone);
                        return;
                      }
                      if (more) self->DoWrite();
                      else if (self->draining_) self->Close("", false);
                    });
}

void Session::FailAndClose(uint64_t request_id, wire::ErrorCode code, const std::string& why) {
  if (closed_) return;
  spdlog::warn("{}: {}: {}; closing the connection", Name(), wire::ErrorCodeName(code), why);
  ctx_->stats->RecordDisconnect(true);
  draining_ = true;
  SendError(request_id, code, why);
  SetDeadline(kCloseGrace_s, Deadline::kCloseGrace);
  bool idle;
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    idle = !writing_ && out_.empty();
  }
  if (idle) Close("", false);
}

void Session::BeginShutdown() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->closed_) return;
    self->draining_ = true;
    bool idle;
    {
      std::lock_guard<std::mutex> lock(self->out_mu_);
      idle = !self->writing_ && self->out_.empty();
    }
    if (idle) {
      self->Close("server shutting down", false);
    } else {
      self->SetDeadline(kCloseGrace_s, Deadline::kCloseGrace);
    }
  });
}

void Session::Close(const std::string& reason, bool abnormal) {
  if (closed_) return;
  closed_ = true;
  if (!reason.empty()) {
    if (abnormal) {
      spdlog::warn("{}: {}", Name(), reason);
      ctx_->stats->RecordDisconnect(true);
    } else if (hello_) {
      spdlog::info("{}: {} after {} requests", Name(), reason, requests_);
    } else {
      spdlog::debug("{}: {}", Name(), reason);  // ping/stats/reload connections
    }
  }
  StopTimer();  // releases the handler's reference now
  {
    // No other thread sends on fd_ after this; an async_write in flight keeps
    // its buffer (the front) until its handler runs.
    std::lock_guard<std::mutex> lock(out_mu_);
    out_closed_ = true;
    while (out_.size() > (writing_ ? 1u : 0u)) out_.pop_back();
    parked_.clear();
  }
  boost::system::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
  if (hello_) ctx_->batcher->RemoveClient();
  if (ctx_->on_closed) ctx_->on_closed(id_);
}

}  // namespace gz
