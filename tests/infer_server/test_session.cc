// A real Session in process, over a connected socket pair: no server process,
// no listening socket.  The session is served by an InferenceService over a
// Batcher with the tiny test network; the test is the client, writing frames
// and reading the answers with blocking calls on its end of the pair.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>

#include "common/game/encoder.h"
#include "common/search/symmetric_batch.h"
#include "common/wire/wire.h"
#include "infer_server/batcher.h"
#include "infer_server/inference_service.h"
#include "infer_server/result_cache.h"
#include "infer_server/session.h"
#include "tests/infer_server/batcher_test_util.h"
#include "tests/infer_server/server_test_util.h"
#include "common/harness/temp_dir.h"

using namespace gz;
using namespace gz::testing;
namespace asio = boost::asio;

namespace {

constexpr int64_t kSessionGeneration = 7;

struct Frame {
  wire::FrameHeader header;
  std::string payload;
};

// One session on the server end of a socket pair, with everything behind it,
// and the client end for the test.  The io_context runs on its own thread.
class SessionRig {
 public:
  // max_wait_ms > 0 holds uncached requests in the batcher that long.
  explicit SessionRig(const std::string& name, double max_wait_ms = 0, bool cache = false)
      : dir_(FreshTestDir("server/session-" + name)), client_(io_) {
    BatchSettings s;
    s.board_size = kTestBoard;
    s.symmetry = SymmetryMode::kAll8;
    s.max_batch = 1000;
    s.max_wait_ms = max_wait_ms;
    if (cache) {
      cache_ = std::make_unique<ResultCache>(4096, kTestBoard);
      stats_.EnableCacheStats();
    }
    batcher_ = std::make_unique<Batcher>(s, &stats_, cache_.get());
    batcher_->Start();
    InstallAndWait(*batcher_, LoadTinyServingModel(dir_, kSessionGeneration));
    ServiceSettings ss;
    ss.board_size = kTestBoard;
    ss.rule = Rule::kFreestyle;
    ss.symmetry = SymmetryMode::kAll8;
    service_ = std::make_unique<InferenceService>(ss, batcher_.get(), nullptr, &stats_);
    ctx_.idle_timeout_s = 60;
    ctx_.max_pending_replies = 64;
    ctx_.service = service_.get();
    ctx_.stats = &stats_;
    ctx_.on_closed = [this](uint64_t) { closed_ = true; };

    SessionSocket server_end(asio::make_strand(io_));
    asio::local::connect_pair(server_end, client_);
    // A test that goes wrong fails on a read timeout instead of hanging.
    timeval tv{30, 0};
    ::setsockopt(client_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    session_ = std::make_shared<Session>(std::move(server_end), &ctx_, 1);
    session_->Start();
    io_thread_ = std::thread([this] { io_.run(); });
  }

  ~SessionRig() {
    work_.reset();
    boost::system::error_code ignored;
    client_.close(ignored);  // the session sees EOF and closes
    session_.reset();
    batcher_->Stop();
    io_thread_.join();
  }

  void Write(const std::string& bytes) { asio::write(client_, asio::buffer(bytes)); }
  void Send(wire::MsgType type, uint64_t rid, const std::string& payload) { Write(wire::BuildFrame(type, rid, payload)); }

  Frame Read() {
    uint8_t head[wire::kHeaderSize];
    asio::read(client_, asio::buffer(head));
    Frame f;
    f.header = wire::DecodeHeader(head);
    f.payload.resize(f.header.payload_len);
    asio::read(client_, asio::buffer(f.payload));
    return f;
  }

  // True when the server end has closed: the next read finds end of file.
  bool ReadsEof() {
    uint8_t byte;
    boost::system::error_code ec;
    client_.read_some(asio::buffer(&byte, 1), ec);
    return ec == asio::error::eof;
  }

  void Hello() {
    Send(wire::MsgType::kHello, 1, wire::EncodeHello(Compatible()));
    Frame f = Read();
    REQUIRE(f.header.type == wire::MsgType::kHelloOk);
  }

  static wire::Hello Compatible() {
    wire::Hello h;
    h.encoder_version = kEncoderVersion;
    h.board_size = kTestBoard;
    h.rule = Rule::kFreestyle;
    h.symmetry = SymmetryMode::kAll8;
    h.client_name = "session-test";
    return h;
  }

  const std::string& dir() const { return dir_; }
  ServerStats& stats() { return stats_; }
  std::atomic<bool> closed_{false};

 private:
  std::string dir_;
  ServerStats stats_;
  std::unique_ptr<ResultCache> cache_;
  std::unique_ptr<Batcher> batcher_;
  std::unique_ptr<InferenceService> service_;
  SessionContext ctx_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  asio::local::stream_protocol::socket client_;
  std::shared_ptr<Session> session_;
  std::thread io_thread_;
};

// What the tiny network answers for `positions`, by the library pieces the
// server is built from, outside the server: all 8 symmetries of every
// position in one forward, combined.
std::vector<EvalResult> Reference(const std::string& dir, const std::vector<Position>& positions) {
  auto model = LoadTinyServingModel(dir, kSessionGeneration);
  const int per = SymmetriesPerPosition(SymmetryMode::kAll8);
  const int rows = per * static_cast<int>(positions.size());
  const size_t pts = static_cast<size_t>(kTestBoard) * kTestBoard;
  std::vector<float> planes(static_cast<size_t>(rows) * PlaneFloats(kTestBoard));
  for (size_t i = 0; i < positions.size(); ++i)
    EncodeSymmetric(positions[i], SymmetryMode::kAll8, planes.data() + i * per * PlaneFloats(kTestBoard));
  std::vector<float> logp(rows * pts), values(rows);
  model->forward->Forward(planes.data(), rows, logp.data(), values.data());
  std::vector<EvalResult> out(positions.size());
  for (size_t i = 0; i < positions.size(); ++i)
    CombineSymmetric(positions[i], SymmetryMode::kAll8, logp.data() + i * per * pts, values.data() + i * per, &out[i]);
  return out;
}

std::vector<EvalResult> DecodeReply(const Frame& f, size_t count, int64_t* generation) {
  REQUIRE(f.header.type == wire::MsgType::kInferReply);
  std::vector<EvalResult> results(count);
  *generation = wire::DecodeInferReply(f.payload, kTestBoard, results);
  return results;
}

wire::Error ExpectError(const Frame& f) {
  REQUIRE(f.header.type == wire::MsgType::kError);
  return wire::DecodeError(f.payload);
}

}  // namespace

TEST_CASE("session: a compatible HELLO is accepted", "[server][session]") {
  SessionRig rig("hello-ok");
  rig.Send(wire::MsgType::kHello, 42, wire::EncodeHello(SessionRig::Compatible()));
  Frame f = rig.Read();
  REQUIRE(f.header.type == wire::MsgType::kHelloOk);
  CHECK(f.header.request_id == 42);
  wire::HelloOk ok = wire::DecodeHelloOk(f.payload);
  CHECK(ok.model_generation == kSessionGeneration);
  CHECK(ok.max_positions == wire::MaxPositionsPerInfer(kTestBoard));
  // The connection stays usable.
  rig.Send(wire::MsgType::kPing, 43, "");
  Frame pong = rig.Read();
  REQUIRE(pong.header.type == wire::MsgType::kPong);
  CHECK(pong.header.request_id == 43);
  CHECK(wire::DecodeGeneration(pong.payload) == kSessionGeneration);
  CHECK_FALSE(rig.closed_);
}

TEST_CASE("session: an incompatible HELLO is refused with every reason, then closed", "[server][session]") {
  SessionRig rig("hello-refused");
  wire::Hello h = SessionRig::Compatible();
  h.board_size = 15;
  h.symmetry = SymmetryMode::kNone;
  rig.Send(wire::MsgType::kHello, 5, wire::EncodeHello(h));
  Frame f = rig.Read();
  CHECK(f.header.request_id == 5);
  wire::Error e = ExpectError(f);
  CHECK(e.code == wire::ErrorCode::kIncompatible);
  CHECK(e.message == "HELLO refused: board size 15 != server " + std::to_string(kTestBoard) +
                         "; symmetry none != server all8");
  CHECK(rig.ReadsEof());
}

TEST_CASE("session: a HELLO of another protocol version is a version mismatch", "[server][session]") {
  SessionRig rig("hello-version");
  wire::Hello h = SessionRig::Compatible();
  h.proto_version = wire::kProtoVersion + 1;
  rig.Send(wire::MsgType::kHello, 6, wire::EncodeHello(h));
  wire::Error e = ExpectError(rig.Read());
  CHECK(e.code == wire::ErrorCode::kVersionMismatch);
  CHECK(e.message.find("protocol version " + std::to_string(wire::kProtoVersion + 1)) != std::string::npos);
  CHECK(rig.ReadsEof());
}

TEST_CASE("session: an INFER is answered with what the network says", "[server][session]") {
  SessionRig rig("infer");
  rig.Hello();
  const std::vector<Position> positions = RandomPositions(3, 11);
  rig.Send(wire::MsgType::kInfer, 9, wire::EncodeInfer(positions, kTestBoard));
  Frame f = rig.Read();
  CHECK(f.header.request_id == 9);
  int64_t gen = -1;
  const std::vector<EvalResult> got = DecodeReply(f, positions.size(), &gen);
  CHECK(gen == kSessionGeneration);
  const std::vector<EvalResult> want = Reference(rig.dir(), positions);
  for (size_t i = 0; i < positions.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].value == Approx(want[i].value).margin(1e-5));
    REQUIRE(got[i].log_policy.size() == want[i].log_policy.size());
    for (size_t p = 0; p < want[i].log_policy.size(); ++p)
      REQUIRE(got[i].log_policy[p] == Approx(want[i].log_policy[p]).margin(1e-5));
  }
}

TEST_CASE("session: INFER before HELLO is refused and the session closes", "[server][session]") {
  SessionRig rig("infer-first");
  rig.Send(wire::MsgType::kInfer, 3, wire::EncodeInfer(RandomPositions(1, 2), kTestBoard));
  Frame f = rig.Read();
  CHECK(f.header.request_id == 3);
  CHECK(ExpectError(f).code == wire::ErrorCode::kNoHello);
  CHECK(rig.ReadsEof());
}

TEST_CASE("session: a malformed frame gets bad_frame and the session closes", "[server][session]") {
  SECTION("a header with the wrong magic") {
    SessionRig rig("bad-magic");
    std::string frame = wire::BuildFrame(wire::MsgType::kPing, 1, "");
    frame[0] ^= 0x5A;
    rig.Write(frame);
    Frame f = rig.Read();
    CHECK(f.header.request_id == 0);  // the request id of a broken header is not trusted
    CHECK(ExpectError(f).code == wire::ErrorCode::kBadFrame);
    CHECK(rig.ReadsEof());
  }
  SECTION("an INFER whose body is cut short") {
    SessionRig rig("bad-infer");
    rig.Hello();
    std::string body = wire::EncodeInfer(RandomPositions(2, 4), kTestBoard);
    body.resize(body.size() - 3);
    rig.Send(wire::MsgType::kInfer, 8, body);
    Frame f = rig.Read();
    CHECK(f.header.request_id == 8);
    CHECK(ExpectError(f).code == wire::ErrorCode::kBadFrame);
    CHECK(rig.ReadsEof());
    CHECK(rig.stats().Snapshot(false)["connections_cut_total"] == 1);
  }
}

TEST_CASE("session: pipelined INFERs are answered in request order", "[server][session]") {
  // A fixed 50 ms batching window holds uncached requests in the batcher,
  // while a request whose positions are all cached is answered at once:
  // its answer must wait for the earlier ones.
  SessionRig rig("pipelined", 50, true);
  rig.Hello();
  // Distinct positions: no new request is found in the cache by chance.
  const std::vector<Position> all = DistinctPositions(2 + 1 + 3 + 5, 21);
  const std::vector<Position> warm(all.begin(), all.begin() + 2);
  rig.Send(wire::MsgType::kInfer, 100, wire::EncodeInfer(warm, kTestBoard));
  int64_t gen = -1;
  const std::vector<EvalResult> warm_answer = DecodeReply(rig.Read(), warm.size(), &gen);

  // Requests 1..6: odd ones new (1, 3, 5 positions), even ones the cached pair.
  std::string burst;
  std::vector<std::vector<Position>> sent;
  auto next_new = all.begin() + 2;
  for (uint64_t rid = 1; rid <= 6; ++rid) {
    if (rid % 2) {
      sent.emplace_back(next_new, next_new + rid);
      next_new += static_cast<long>(rid);
    } else {
      sent.push_back(warm);
    }
    burst += wire::BuildFrame(wire::MsgType::kInfer, rid, wire::EncodeInfer(sent.back(), kTestBoard));
  }
  rig.Write(burst);  // one write: the session reads them together
  for (uint64_t rid = 1; rid <= 6; ++rid) {
    CAPTURE(rid);
    Frame f = rig.Read();
    REQUIRE(f.header.request_id == rid);
    const std::vector<EvalResult> got = DecodeReply(f, sent[rid - 1].size(), &gen);
    CHECK(gen == kSessionGeneration);
    if (rid % 2 == 0) {
      for (size_t i = 0; i < warm.size(); ++i) CHECK(got[i].log_policy == warm_answer[i].log_policy);
    }
  }
  auto st = rig.stats().Snapshot(false);
  CHECK(st["requests_cached_total"] == 3);
  CHECK_FALSE(rig.closed_);
}
