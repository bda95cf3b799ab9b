#include "infer_server/session.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"

namespace gz {
namespace {

constexpr double kCloseGrace_s = 2.0;  // how long a closing connection may take to drain

}  // namespace

Session::Session(SessionSocket socket, SessionContext* ctx, uint64_t id)
    : Participant(ctx->service),
      socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      ctx_(ctx),
      id_(id),
      writer_(socket_, ctx->max_pending_replies) {}

Session::~Session() = default;

std::string Session::Name() const {
  return "client " + std::to_string(id_) + (client_name_.empty() ? "" : " (" + client_name_ + ")");
}

void Session::Start() {
  // Events is a private base: the cast is only possible in here.
  writer_.Attach(std::shared_ptr<ReplyWriter::Events>(shared_from_this(), static_cast<ReplyWriter::Events*>(this)));
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
  const std::span<uint8_t> space = frames_.ReadSpace();
  socket_.async_read_some(asio::buffer(space.data(), space.size()),
                          [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
                            self->OnRead(ec, n);
                          });
}

void Session::OnRead(const boost::system::error_code& ec, size_t n) {
  if (closed_) return;
  if (ec) {
    const size_t held = frames_.held();
    if (frames_.have_header()) {
      const wire::FrameHeader& h = frames_.header();
      Close("connection lost mid-frame (" + std::string(wire::MsgTypeName(h.type)) + ", " +
                std::to_string(h.payload_len) + " byte payload, " + std::to_string(held - wire::kHeaderSize) +
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
  frames_.Commit(n);
  HandleBuffered(false);
}

void Session::HandleBuffered(bool starting) {
  bool finished = starting;
  while (!closed_ && !draining_) {
    std::optional<FrameAssembler::Frame> frame;
    try {
      frame = frames_.Next();  // a header's payload_len is bounded before anything is allocated
    } catch (const wire::VersionMismatchError& e) {
      FailAndClose(0, wire::ErrorCode::kVersionMismatch, e.what());
      return;
    } catch (const ProtocolError& e) {
      FailAndClose(0, wire::ErrorCode::kBadFrame, e.what());
      return;
    }
    if (!frame) break;
    header_ = frame->header;
    body_ = frame->payload;
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
  frames_.Settle();  // no big buffers per idle connection
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
      writer_.Send(wire::BuildFrame(wire::MsgType::kPong, rid, wire::EncodeGeneration(ctx_->service->generation())));
      return;
    case wire::MsgType::kStats:
      if (!body_.empty()) GOMOKU_THROW(ProtocolError, "STATS with a payload");
      writer_.Send(wire::BuildFrame(wire::MsgType::kStatsReply, rid, ctx_->service->StatsJson()));
      return;
    default:
      GOMOKU_THROW(ProtocolError, "unexpected message " << wire::MsgTypeName(header_.type) << " from a client");
  }
}

void Session::HandleHello() {
  wire::Hello h = wire::DecodeHello(body_);
  client_name_ = h.client_name;
  HelloVerdict verdict = ctx_->service->CheckHello(h, hello_ ? lane_ : -1);
  if (!verdict.accepted) {
    FailAndClose(header_.request_id, verdict.refusal_code, verdict.refusal);
    return;
  }
  if (!hello_) {
    hello_ = true;
    lane_ = verdict.lane;  // bound to its board size's lane for its life
    ctx_->service->Join(lane_);
  }
  spdlog::info("{} connected (board {}, {}, symmetry {})", Name(), h.board_size, RuleName(h.rule),
               SymmetryModeName(h.symmetry));
  writer_.Send(wire::BuildFrame(wire::MsgType::kHelloOk, header_.request_id, wire::EncodeHelloOk(verdict.reply)));
}

bool Session::TooManyPending(const std::string& why) {
  if (in_flight_.load() + static_cast<int>(writer_.Unsent()) < ctx_->max_pending_replies) return false;
  Close(why, true);
  return true;
}

void Session::HandleInfer() {
  if (!hello_) {
    FailAndClose(header_.request_id, wire::ErrorCode::kNoHello, "INFER before a successful HELLO");
    return;
  }
  if (TooManyPending("more than " + std::to_string(ctx_->max_pending_replies) +
                     " answers pending (client is not reading its replies); disconnecting"))
    return;
  // Before the service runs: the batch thread may answer before Infer returns.
  ++in_flight_;
  ctx_->service->Infer(shared_from_this(), lane_, header_.request_id, writer_.NextSlot(), body_);
  ++requests_;
}

void Session::HandleReload() {
  std::string path = wire::DecodeReload(body_);
  if (TooManyPending("too many pending answers; disconnecting")) return;
  ++in_flight_;
  ctx_->service->Reload(shared_from_this(), header_.request_id, std::move(path));
}

// ---- answers and writing -------------------------------------------------------

void Session::SendAnswerInOrder(uint64_t slot, std::string frame) {
  writer_.SendInOrder(slot, std::move(frame));
  --in_flight_;
}

void Session::SendAnswer(std::string frame) {
  --in_flight_;
  if (closed_) return;
  writer_.Send(std::move(frame));
}

void Session::Post(std::function<void()> work) {
  asio::post(socket_.get_executor(), [self = shared_from_this(), work = std::move(work)] { work(); });
}

void Session::OnWriteFailed(const std::string& why, bool abnormal) { Close(why, abnormal); }

void Session::OnAllWritten() {
  if (draining_) Close("", false);
}

void Session::SendError(uint64_t request_id, wire::ErrorCode code, const std::string& message) {
  writer_.Send(wire::BuildFrame(wire::MsgType::kError, request_id, wire::EncodeError({code, message})));
}

void Session::FailAndClose(uint64_t request_id, wire::ErrorCode code, const std::string& why) {
  if (closed_) return;
  spdlog::warn("{}: {}: {}; closing the connection", Name(), wire::ErrorCodeName(code), why);
  ctx_->stats->RecordDisconnect(true);
  draining_ = true;
  SendError(request_id, code, why);
  SetDeadline(kCloseGrace_s, Deadline::kCloseGrace);
  if (writer_.Idle()) Close("", false);
}

void Session::BeginShutdown() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->closed_) return;
    self->draining_ = true;
    if (self->writer_.Idle()) {
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
  writer_.Close();  // no other thread writes to the socket after this
  boost::system::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
  if (hello_) ctx_->service->Leave(lane_);
  if (ctx_->on_closed) ctx_->on_closed(id_);
}

}  // namespace gz
