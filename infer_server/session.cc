#include "infer_server/session.h"

#include <spdlog/spdlog.h>

#include "common/encoder.h"
#include "common/errors.h"
#include "common/fileio.h"

namespace gz {
namespace {

constexpr double kCloseGrace_s = 2.0;  // how long a closing connection may take to drain

}  // namespace

Session::Session(SessionSocket socket, SessionContext* ctx, uint64_t id)
    : socket_(std::move(socket)), timer_(socket_.get_executor()), ctx_(ctx), id_(id) {}

Session::~Session() = default;

std::string Session::Name() const {
  return "client " + std::to_string(id_) + (client_name_.empty() ? "" : " (" + client_name_ + ")");
}

void Session::Start() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void Session::ArmTimer(double seconds, const std::string& reason) {
  const uint64_t seq = ++timer_seq_;
  timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds)));
  timer_.async_wait([self = shared_from_this(), seq, reason](const boost::system::error_code& ec) {
    if (ec || seq != self->timer_seq_ || self->closed_) return;
    self->Close(reason, true);
  });
}

void Session::DisarmTimer() {
  ++timer_seq_;
  timer_.cancel();
}

// ---- reading ------------------------------------------------------------------

void Session::ReadHeader() {
  if (closed_ || draining_) return;
  // The whole next frame must arrive within the idle timeout: this closes
  // silent connections as well as drips and half-sent frames.
  ArmTimer(ctx_->idle_timeout_s,
           fmt::format("no complete frame within the idle timeout of {:g}s (server.idle_timeout_s)",
                       ctx_->idle_timeout_s));
  asio::async_read(socket_, asio::buffer(head_, sizeof(head_)),
                   [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
                     self->OnHeader(ec, n);
                   });
}

void Session::OnHeader(const boost::system::error_code& ec, size_t n) {
  if (closed_) return;
  if (ec) {
    if (ec == asio::error::eof && n == 0) Close("client closed the connection", false);
    else if (ec == asio::error::eof) Close("connection closed mid-header after " + std::to_string(n) + " bytes", true);
    else Close("read error: " + ec.message(), true);
    return;
  }
  try {
    header_ = wire::DecodeHeader(head_);
  } catch (const wire::VersionMismatchError& e) {
    FailAndClose(0, wire::ErrorCode::kVersionMismatch, e.what());
    return;
  } catch (const ProtocolError& e) {
    FailAndClose(0, wire::ErrorCode::kBadFrame, e.what());
    return;
  }
  if (header_.payload_len == 0) {
    body_.clear();
    OnBody({});
    return;
  }
  body_.resize(header_.payload_len);  // bounded by DecodeHeader
  asio::async_read(socket_, asio::buffer(body_.data(), body_.size()),
                   [self = shared_from_this()](const boost::system::error_code& ec, size_t) { self->OnBody(ec); });
}

void Session::OnBody(const boost::system::error_code& ec) {
  if (closed_) return;
  if (ec) {
    Close("connection lost mid-frame (" + std::string(wire::MsgTypeName(header_.type)) + ", " +
              std::to_string(header_.payload_len) + " byte payload): " + ec.message(),
          true);
    return;
  }
  DisarmTimer();
  try {
    HandleFrame();
  } catch (const ProtocolError& e) {
    FailAndClose(header_.request_id, wire::ErrorCode::kBadFrame, e.what());
    return;
  } catch (const std::exception& e) {
    FailAndClose(header_.request_id, wire::ErrorCode::kInternal, e.what());
    return;
  }
  if (body_.capacity() > 65536) std::string().swap(body_);  // do not keep big buffers per idle connection
  ReadHeader();
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
  if (in_flight_ + static_cast<int>(writes_.size()) >= ctx_->max_pending_replies) {
    Close("more than " + std::to_string(ctx_->max_pending_replies) +
              " answers pending (client is not reading its replies); disconnecting",
          true);
    return;
  }
  auto job = std::make_unique<InferJob>();
  job->positions = wire::DecodeInfer(body_, ctx_->board_size);
  const int per = SymmetriesPerPosition(ctx_->symmetry);
  const size_t block = static_cast<size_t>(per) * PlaneFloats(ctx_->board_size);
  job->planes.resize(job->positions.size() * block);
  for (size_t i = 0; i < job->positions.size(); ++i)
    EncodeSymmetric(job->positions[i], ctx_->symmetry, job->planes.data() + i * block);
  job->target = std::static_pointer_cast<ReplyTarget>(shared_from_this());
  job->client_id = id_;
  job->request_id = header_.request_id;
  job->enqueued_at = MonotonicSeconds();
  wire::ErrorCode code;
  std::string why;
  if (!ctx_->batcher->Submit(job, &code, &why)) {
    SendError(header_.request_id, code, why);
    return;
  }
  ++in_flight_;
  ++requests_;
}

void Session::HandleReload() {
  std::string path = wire::DecodeReload(body_);
  if (in_flight_ + static_cast<int>(writes_.size()) >= ctx_->max_pending_replies) {
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

void Session::Deliver(std::unique_ptr<InferJob> job, JobOutcome outcome) {
  auto self = shared_from_this();
  auto j = std::make_shared<std::unique_ptr<InferJob>>(std::move(job));
  auto o = std::make_shared<JobOutcome>(std::move(outcome));
  asio::post(socket_.get_executor(), [self, j, o] { self->OnResult(std::move(*j), std::move(*o)); });
}

void Session::OnResult(std::unique_ptr<InferJob> job, JobOutcome out) {
  --in_flight_;
  if (closed_) {
    ctx_->stats->RecordDropped();
    return;
  }
  if (!out.ok) {
    SendError(job->request_id, out.error_code, out.error);
    return;
  }
  const int per = SymmetriesPerPosition(ctx_->symmetry);
  const size_t pts = static_cast<size_t>(ctx_->board_size) * ctx_->board_size;
  std::vector<EvalResult> results(job->positions.size());
  for (size_t i = 0; i < results.size(); ++i) {
    CombineSymmetric(job->positions[i], ctx_->symmetry, out.log_policy.data() + i * per * pts,
                     out.values.data() + i * per, &results[i]);
  }
  Send(wire::BuildFrame(wire::MsgType::kInferReply, job->request_id,
                        wire::EncodeInferReply(out.generation, results, ctx_->board_size)));
}

// ---- writing ----------------------------------------------------------------------

void Session::Send(std::string frame) {
  if (closed_) return;
  writes_.push_back(std::move(frame));
  if (static_cast<int>(writes_.size()) > ctx_->max_pending_replies) {
    Close("more than " + std::to_string(ctx_->max_pending_replies) +
              " unsent replies (client is not reading them); disconnecting",
          true);
    return;
  }
  if (!writing_) DoWrite();
}

void Session::SendError(uint64_t request_id, wire::ErrorCode code, const std::string& message) {
  Send(wire::BuildFrame(wire::MsgType::kError, request_id, wire::EncodeError({code, message})));
}

void Session::DoWrite() {
  if (closed_ || writes_.empty()) return;
  writing_ = true;
  asio::async_write(socket_, asio::buffer(writes_.front()),
                    [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                      self->writing_ = false;
                      if (self->closed_) return;
                      if (ec) {
                        const bool gone = ec == asio::error::broken_pipe || ec == asio::error::connection_reset;
                        self->Close(gone ? "client went away before its answers were written"
                                         : "write failed: " + ec.message(),
                                    !gone);
                        return;
                      }
                      self->writes_.pop_front();
                      if (!self->writes_.empty()) self->DoWrite();
                      else if (self->draining_) self->Close("", false);
                    });
}

void Session::FailAndClose(uint64_t request_id, wire::ErrorCode code, const std::string& why) {
  if (closed_) return;
  spdlog::warn("{}: {}: {}; closing the connection", Name(), wire::ErrorCodeName(code), why);
  ctx_->stats->RecordDisconnect(true);
  draining_ = true;
  SendError(request_id, code, why);
  ArmTimer(kCloseGrace_s, "");
  if (!writing_ && writes_.empty()) Close("", false);
}

void Session::BeginShutdown() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->closed_) return;
    self->draining_ = true;
    if (!self->writing_ && self->writes_.empty()) {
      self->Close("server shutting down", false);
    } else {
      self->ArmTimer(kCloseGrace_s, "");
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
  DisarmTimer();
  boost::system::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
  writes_.clear();
  if (hello_) ctx_->batcher->RemoveClient();
  if (ctx_->on_closed) ctx_->on_closed(id_);
}

}  // namespace gz
