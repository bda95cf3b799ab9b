#include "infer_server/server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/record_format.h"

namespace gz {
namespace {

constexpr double kShutdownFlush_s = 3.0;

}  // namespace

InferServer::InferServer(asio::io_context& io, const ListeningSocket& listening, ServerOptions options,
                         SessionContext ctx, std::vector<Batcher*> batchers)
    : io_(io),
      listening_(listening),
      options_(std::move(options)),
      ctx_(std::move(ctx)),
      batchers_(std::move(batchers)),
      acceptor_(io),
      signals_(io, SIGINT, SIGTERM),
      stats_timer_(io),
      stop_timer_(io) {
  acceptor_.assign(asio::local::stream_protocol(), listening_.fd);
  ctx_.on_closed = [this](uint64_t id) { OnSessionClosed(id); };
}

void InferServer::Start() {
  signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    Shutdown(sig == SIGTERM ? "SIGTERM" : "SIGINT");
  });
  Accept();
  ScheduleStats();
}

void InferServer::Accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](const boost::system::error_code& ec, SessionSocket sock) {
    if (shutting_down_) return;
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      // EMFILE and friends: log and keep accepting (after a short pause so
      // we do not spin on a persistent error).
      spdlog::error("accept failed: {}", ec.message());
      auto t = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(100));
      t->async_wait([this, t](const boost::system::error_code&) { Accept(); });
      return;
    }
    // The peer policy (socket_setup.h): the server's own uid only.
    const PeerCredentials peer = ReadPeerCredentials(sock.native_handle());
    const std::string refusal = PeerRefusal(peer, ::geteuid());
    if (!refusal.empty()) {
      if (peer.known)
        spdlog::warn("refused a connection from uid {} (pid {}): {}; closing it", peer.uid, peer.pid, refusal);
      else
        spdlog::warn("refused a connection: {}; closing it", refusal);
      boost::system::error_code ignored;
      sock.close(ignored);
      Accept();
      return;
    }
    size_t live;
    {
      std::lock_guard<std::mutex> lock(mu_);
      live = sessions_.size();
    }
    if (static_cast<int>(live) >= options_.max_clients) {
      spdlog::warn("refused a connection: {} clients connected (server.max_clients)", live);
      std::string err = wire::BuildFrame(wire::MsgType::kError, 0,
                                         wire::EncodeError({wire::ErrorCode::kOverloaded, "too many clients"}));
      ::send(sock.native_handle(), err.data(), err.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      Accept();
      return;
    }
    const uint64_t id = next_id_++;
    auto session = std::make_shared<Session>(std::move(sock), &ctx_, id);
    {
      std::lock_guard<std::mutex> lock(mu_);
      sessions_[id] = session;
      ctx_.stats->SetClients(static_cast<int>(sessions_.size()));
    }
    ctx_.stats->RecordConnection();
    session->Start();
    Accept();
  });
}

void InferServer::OnSessionClosed(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.erase(id);
  ctx_.stats->SetClients(static_cast<int>(sessions_.size()));
  if (sessions_.empty()) asio::post(io_, [this] {
      if (shutting_down_) stop_timer_.cancel();
    });
}

void InferServer::ScheduleStats() {
  stats_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(options_.stats_interval_s)));
  stats_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || shutting_down_) return;
    PublishStats(true, ctx_.service->generation() >= 0 ? "serving" : "waiting_for_model");
    ScheduleStats();
  });
}

void InferServer::PublishStats(bool reset_interval, const char* state) {
  nlohmann::json s = ctx_.stats->Snapshot(reset_interval);
  s["state"] = state;
  spdlog::info("{}", ServerStats::LogLine(s));
  if (options_.status_file.empty()) return;
  StampRecordVersion(s, kServerStatusRecord);
  try {
    WriteFileAtomic(options_.status_file, s.dump(2) + "\n");
  } catch (const std::exception& e) {
    spdlog::warn("cannot write {}: {}", options_.status_file, e.what());
  }
}

void InferServer::Shutdown(const std::string& why) {
  if (shutting_down_) return;
  shutting_down_ = true;
  spdlog::info("{} received: finishing the current batch, answering waiting requests, removing {}", why,
               listening_.path);
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  signals_.cancel(ignored);
  stats_timer_.cancel();
  RemoveSocketFile(listening_);
  // Blocks until each lane's batch in flight is answered; queued jobs get
  // ERROR replies posted to their sessions before the BeginShutdown posts below.
  for (Batcher* b : batchers_) b->Stop();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, w] : sessions_)
      if (auto s = w.lock()) live.push_back(std::move(s));
  }
  for (auto& s : live) s->BeginShutdown();
  PublishStats(false, "stopped");
  stop_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(kShutdownFlush_s)));
  stop_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    spdlog::warn("some connections did not drain within {}s; stopping anyway", kShutdownFlush_s);
    io_.stop();
  });
  // The last session to close cancels the timer (OnSessionClosed); then
  // nothing is left to run and io_.run() returns.
  std::lock_guard<std::mutex> lock(mu_);
  if (sessions_.empty()) stop_timer_.cancel();
}

}  // namespace gz
