// A stand-in inference server for the trainer's publishing tests: plain POSIX
// Unix-domain sockets speaking the real wire protocol (common/wire/wire.h), with a
// test-controlled RELOAD handler (delay the ack, refuse, record what the
// run directory looked like meanwhile).  Serves one connection at a time,
// which is all the trainer's control calls need.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "common/base/fileio.h"
#include "common/data/run_layout.h"
#include "common/wire/wire.h"

namespace gz::testing {

// A RELOAD answer for FakeInferServer: 500 + the iteration N of a weights file
// named weights_it<N>.pt (100 for any other name), so that a generation the
// server acknowledged is never mistaken for an iteration number.
inline int64_t AckAsIterationPlus500(const std::string& weights) {
  auto n = ParseIterationNumber(weights.substr(weights.rfind('/') + 1), "weights_it", ".pt");
  return 500 + n.value_or(-400);
}

class FakeInferServer {
 public:
  // What to answer a RELOAD: generation >= 0 -> RELOAD_OK(generation); < 0 -> ERROR kReloadFailed.
  using ReloadHandler = std::function<int64_t(const std::string& weights)>;

  FakeInferServer(const std::string& path, ReloadHandler on_reload)
      : path_(path), on_reload_(std::move(on_reload)) {
    MakeDirs(path.substr(0, path.rfind('/')));
    ::unlink(path.c_str());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 8) != 0)
      throw std::runtime_error("fake server: cannot listen on " + path + ": " + std::strerror(errno));
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeInferServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  int64_t generation() const { return generation_.load(); }
  int reloads() const { return reloads_.load(); }
  int stats_requests() const { return stats_.load(); }

 private:
  bool ReadAll(int c, char* p, size_t n) {
    while (n > 0) {
      ssize_t r = ::read(c, p, n);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }
  void Send(int c, wire::MsgType t, uint64_t id, const std::string& payload) {
    std::string f = wire::BuildFrame(t, id, payload);
    ::send(c, f.data(), f.size(), MSG_NOSIGNAL);
  }
  void Serve(int c) {
    for (;;) {
      uint8_t hdr[wire::kHeaderSize];
      if (!ReadAll(c, reinterpret_cast<char*>(hdr), sizeof hdr)) return;
      wire::FrameHeader h = wire::DecodeHeader(hdr);
      std::string payload(h.payload_len, '\0');
      if (!ReadAll(c, payload.data(), payload.size())) return;
      switch (h.type) {
        case wire::MsgType::kPing:
          Send(c, wire::MsgType::kPong, h.request_id, wire::EncodeGeneration(generation_));
          break;
        case wire::MsgType::kStats:
          ++stats_;
          Send(c, wire::MsgType::kStatsReply, h.request_id,
               R"({"avg_batch": 3.5, "requests_per_s": 123.0, "fake": true})");
          break;
        case wire::MsgType::kReload: {
          ++reloads_;
          int64_t g = on_reload_(wire::DecodeReload(payload));
          if (g >= 0) {
            generation_ = g;
            Send(c, wire::MsgType::kReloadOk, h.request_id, wire::EncodeGeneration(g));
          } else {
            Send(c, wire::MsgType::kError, h.request_id,
                 wire::EncodeError({wire::ErrorCode::kReloadFailed, "fake server refuses this file"}));
          }
          break;
        }
        default:
          Send(c, wire::MsgType::kError, h.request_id, wire::EncodeError({wire::ErrorCode::kBadFrame, "unexpected"}));
          return;
      }
    }
  }
  void Loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      try {
        Serve(c);
      } catch (const std::exception&) {
      }
      ::close(c);
    }
  }

  std::string path_;
  ReloadHandler on_reload_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> generation_{-1};
  std::atomic<int> reloads_{0};
  std::atomic<int> stats_{0};
  std::thread thread_;
};

// AckAsIterationPlus500, after `delay_ms`: a slow reload, which keeps the
// trainer waiting for the ack between saving a checkpoint and publishing it.
inline FakeInferServer::ReloadHandler AckAsIterationPlus500After(int delay_ms) {
  return [delay_ms](const std::string& weights) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    return AckAsIterationPlus500(weights);
  };
}

}  // namespace gz::testing
