// Wire protocol encode/decode: round trips, every malformed case, and a
// fuzz-style loop of random and mutated frames against the decoders.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "common/base/errors.h"
#include "common/wire/wire.h"
#include "tests/wire/wire_test_util.h"

using namespace gz;
using namespace gz::wire;
using gz::testing::RawHeader;

namespace {

FrameHeader Decode(const std::string& h) { return DecodeHeader(reinterpret_cast<const uint8_t*>(h.data())); }

Position MakePosition(int size, std::vector<int> black, std::vector<int> white, int8_t to_move) {
  Position p;
  p.size = size;
  p.cells.assign(size * size, kEmpty);
  for (int m : black) p.cells[m] = kBlack;
  for (int m : white) p.cells[m] = kWhite;
  p.last_move = white.empty() ? (black.empty() ? kNoMove : black.back()) : white.back();
  p.to_move = to_move;
  return p;
}

}  // namespace

TEST_CASE("frame header round trip and little-endian layout", "[wire]") {
  FrameHeader h;
  h.type = MsgType::kInferReply;
  h.request_id = 0x0102030405060708ULL;
  h.payload_len = 0x00A0B0C0 & (kMaxPayload - 1);
  uint8_t buf[kHeaderSize];
  EncodeHeader(h, buf);
  CHECK(buf[0] == 'G');
  CHECK(buf[1] == 'Z');
  CHECK(buf[2] == 'W');
  CHECK(buf[3] == 'P');
  CHECK(buf[4] == kProtoVersion);
  CHECK(buf[5] == 0);
  CHECK(buf[6] == 4);
  CHECK(buf[8] == 0x08);
  CHECK(buf[15] == 0x01);
  FrameHeader d = DecodeHeader(buf);
  CHECK(d.type == MsgType::kInferReply);
  CHECK(d.request_id == h.request_id);
  CHECK(d.payload_len == h.payload_len);
  std::string f = BuildFrame(MsgType::kPing, 7, "");
  CHECK(f.size() == kHeaderSize);
  CHECK(Decode(f).request_id == 7);
}

TEST_CASE("malformed headers are rejected before any allocation", "[wire]") {
  CHECK_THROWS_AS(Decode(RawHeader(0xdeadbeef, kProtoVersion, 5, 1, 0)), ProtocolError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, kProtoVersion + 1, 5, 1, 0)), VersionMismatchError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, 0, 5, 1, 0)), VersionMismatchError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, kProtoVersion, 0, 1, 0)), ProtocolError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, kProtoVersion, 12, 1, 0)), ProtocolError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, kProtoVersion, 3, 1, kMaxPayload + 1)), ProtocolError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, kProtoVersion, 3, 1, 1u << 31)), ProtocolError);
  CHECK_THROWS_AS(Decode(RawHeader(kMagic, kProtoVersion, 3, 1, 0xffffffffu)), ProtocolError);
  CHECK_NOTHROW(Decode(RawHeader(kMagic, kProtoVersion, 3, 1, kMaxPayload)));
  CHECK_NOTHROW(Decode(RawHeader(kMagic, kProtoVersion, 3, 1, 0)));
  try {
    Decode(RawHeader(kMagic, kProtoVersion, 3, 1, 0xffffffffu));
    FAIL("no throw");
  } catch (const ProtocolError& e) {
    CHECK(std::string(e.what()).find("4294967295") != std::string::npos);
  }
}

TEST_CASE("HELLO and HELLO_OK round trip; bad values are refused", "[wire]") {
  Hello h;
  h.encoder_version = 1;
  h.board_size = 15;
  h.rule = Rule::kStandard;
  h.symmetry = SymmetryMode::kRandom;
  h.client_name = "worker 7";
  Hello d = DecodeHello(EncodeHello(h));
  CHECK(d.proto_version == kProtoVersion);
  CHECK(d.encoder_version == 1);
  CHECK(d.board_size == 15);
  CHECK(d.rule == Rule::kStandard);
  CHECK(d.symmetry == SymmetryMode::kRandom);
  CHECK(d.client_name == "worker 7");

  std::string p = EncodeHello(h);
  CHECK_THROWS_AS(DecodeHello(p.substr(0, 9)), ProtocolError);   // short
  CHECK_THROWS_AS(DecodeHello(p + "x"), ProtocolError);          // trailing
  std::string bad = p;
  bad[4] = 4;  // board size 4
  CHECK_THROWS_AS(DecodeHello(bad), ProtocolError);
  bad = p;
  bad[4] = 23;
  CHECK_THROWS_AS(DecodeHello(bad), ProtocolError);
  bad = p;
  bad[5] = 2;  // rule 2 = renju
  CHECK(DecodeHello(bad).rule == Rule::kRenju);
  bad[5] = 3;  // rule 3 = caro
  CHECK(DecodeHello(bad).rule == Rule::kCaro);
  bad[5] = 4;  // rule 4 = caro-overline
  CHECK(DecodeHello(bad).rule == Rule::kCaroOverline);
  bad[5] = 5;  // no such rule
  CHECK_THROWS_AS(DecodeHello(bad), ProtocolError);
  bad = p;
  bad[6] = 3;  // symmetry
  CHECK_THROWS_AS(DecodeHello(bad), ProtocolError);
  bad = p;
  bad[8] = static_cast<char>(0xff);  // name length 0xff.. > what is there
  CHECK_THROWS_AS(DecodeHello(bad), ProtocolError);

  HelloOk ok{42, 300};
  HelloOk od = DecodeHelloOk(EncodeHelloOk(ok));
  CHECK(od.model_generation == 42);
  CHECK(od.max_positions == 300);
  CHECK_THROWS_AS(DecodeHelloOk(EncodeHelloOk({1, 0})), ProtocolError);
  CHECK_THROWS_AS(DecodeHelloOk("abc"), ProtocolError);
}

TEST_CASE("INFER round trip and validation of every field", "[wire]") {
  const int n = 7;
  std::vector<Position> ps = {MakePosition(n, {}, {}, kBlack), MakePosition(n, {24}, {}, kWhite),
                              MakePosition(n, {24, 0}, {48}, kBlack)};
  std::string payload = EncodeInfer(ps, n);
  CHECK(payload.size() == 4 + 3 * (4 + 49));
  auto d = DecodeInfer(payload, n);
  REQUIRE(d.size() == 3);
  // The rule is the connection's: the decoder stamps it into every position.
  for (const Position& r : DecodeInfer(payload, n, Rule::kRenju)) CHECK(r.rule == Rule::kRenju);
  for (size_t i = 0; i < ps.size(); ++i) {
    CHECK(d[i].rule == Rule::kFreestyle);
    CHECK(d[i].size == n);
    CHECK(d[i].cells == ps[i].cells);
    CHECK(d[i].last_move == ps[i].last_move);
    CHECK(d[i].to_move == ps[i].to_move);
  }
  CHECK_THROWS_AS(DecodeInfer(payload, 9), ProtocolError);                 // wrong board size
  CHECK_THROWS_AS(DecodeInfer(payload.substr(0, payload.size() - 1), n), ProtocolError);
  CHECK_THROWS_AS(DecodeInfer(payload + "z", n), ProtocolError);
  CHECK_THROWS_AS(DecodeInfer("", n), ProtocolError);
  CHECK_THROWS_AS(DecodeInfer(std::string("\0\0\0", 3), n), ProtocolError);
  CHECK_THROWS_AS(DecodeInfer(std::string("\0\0\0\0", 4), n), ProtocolError);   // zero positions
  std::string huge = payload;
  huge[3] = 0x7f;  // count 2^30+
  CHECK_THROWS_AS(DecodeInfer(huge, n), ProtocolError);
  const size_t p1 = 4 + (4 + 49);  // second position
  std::string bad = payload;
  bad[p1] = 3;  // to_move
  CHECK_THROWS_AS(DecodeInfer(bad, n), ProtocolError);
  bad = payload;
  bad[p1 + 1] = 1;  // reserved
  CHECK_THROWS_AS(DecodeInfer(bad, n), ProtocolError);
  bad = payload;
  bad[p1 + 2] = 25;  // last move on an empty point
  CHECK_THROWS_AS(DecodeInfer(bad, n), ProtocolError);
  bad = payload;
  bad[p1 + 2] = 49;  // last move off the board
  CHECK_THROWS_AS(DecodeInfer(bad, n), ProtocolError);
  bad = payload;
  bad[p1 + 2] = static_cast<char>(0xfe);  // -2
  bad[p1 + 3] = static_cast<char>(0xff);
  CHECK_THROWS_AS(DecodeInfer(bad, n), ProtocolError);
  bad = payload;
  bad[p1 + 4 + 3] = 3;  // cell value 3
  CHECK_THROWS_AS(DecodeInfer(bad, n), ProtocolError);
  // Too many positions for one frame.
  std::vector<Position> many(MaxPositionsPerInfer(n) + 1, ps[0]);
  CHECK_THROWS(EncodeInfer(many, n));
}

TEST_CASE("the per-frame position limit keeps requests and replies under the payload cap", "[wire]") {
  for (int n = kMinBoardSize; n <= kMaxBoardSize; ++n) {
    size_t m = MaxPositionsPerInfer(n);
    size_t pts = static_cast<size_t>(n) * n;
    CHECK(m >= 64);
    CHECK(4 + m * (4 + pts) <= kMaxPayload);
    CHECK(12 + m * (pts + 1) * 4 <= kMaxPayload);
    CHECK(12 + (m + 1) * (pts + 1) * 4 > kMaxPayload);
  }
}

TEST_CASE("INFER_REPLY round trip is bit exact; mismatches are refused", "[wire]") {
  const int n = 5;
  std::vector<EvalResult> rs(2);
  for (int i = 0; i < 2; ++i) {
    rs[i].value = i ? -0.25f : 0.75f;
    for (int p = 0; p < n * n; ++p) rs[i].log_policy.push_back(-0.001f * p - i - 1e-7f);
  }
  rs[0].log_policy[3] = -1e30f;
  std::string payload = EncodeInferReply(99, rs, n);
  std::vector<EvalResult> out(2);
  CHECK(DecodeInferReply(payload, n, out) == 99);
  for (int i = 0; i < 2; ++i) {
    CHECK(out[i].value == rs[i].value);
    CHECK(out[i].log_policy == rs[i].log_policy);
    CHECK(out[i].model_generation == 99);
  }
  std::vector<EvalResult> three(3);
  CHECK_THROWS_AS(DecodeInferReply(payload, n, three), ProtocolError);
  CHECK_THROWS_AS(DecodeInferReply(payload.substr(0, payload.size() - 4), n, out), ProtocolError);
  CHECK_THROWS_AS(DecodeInferReply(payload, 6, out), ProtocolError);
  std::string nan = payload;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + 12, &q, 4);
  CHECK_THROWS_AS(DecodeInferReply(nan, n, out), ProtocolError);
}

TEST_CASE("small messages round trip", "[wire]") {
  CHECK(DecodeGeneration(EncodeGeneration(-1)) == -1);
  CHECK(DecodeGeneration(EncodeGeneration(1234567890123LL)) == 1234567890123LL);
  CHECK_THROWS_AS(DecodeGeneration("1234567"), ProtocolError);
  CHECK(DecodeReload(EncodeReload("/a/b/weights_it3.pt")) == "/a/b/weights_it3.pt");
  CHECK_THROWS_AS(DecodeReload(""), ProtocolError);
  CHECK_THROWS_AS(DecodeReload(std::string("a\0b", 3)), ProtocolError);
  CHECK_THROWS_AS(DecodeReload(std::string(kMaxPathBytes + 1, 'a')), ProtocolError);
  Error e = DecodeError(EncodeError({ErrorCode::kReloadFailed, "bad crc"}));
  CHECK(e.code == ErrorCode::kReloadFailed);
  CHECK(e.message == "bad crc");
  CHECK_THROWS_AS(DecodeError("x"), ProtocolError);
  for (uint16_t t = 1; t <= 11; ++t) CHECK(std::string(MsgTypeName(static_cast<MsgType>(t))) != "?");
}

TEST_CASE("fuzz: random and mutated frames never crash the decoders", "[wire][fuzz]") {
  std::mt19937_64 rng(12345);
  const int n = 9;
  std::vector<Position> ps;
  for (int k = 0; k < 3; ++k) ps.push_back(MakePosition(n, {k, 40}, {k + 10}, kBlack));
  std::vector<EvalResult> rs(3);
  for (auto& r : rs) r.log_policy.assign(n * n, -4.0f);
  const std::vector<std::string> seeds = {
      EncodeHello(Hello{kProtoVersion, 1, n, Rule::kFreestyle, SymmetryMode::kAll8, "w"}),
      EncodeHelloOk({3, 100}),
      EncodeInfer(ps, n),
      EncodeInferReply(5, rs, n),
      EncodeGeneration(8),
      EncodeReload("/x.pt"),
      EncodeError({ErrorCode::kInternal, "boom"}),
  };
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string payload;
    if (iter % 3 == 0) {
      payload.resize(rng() % 600);
      for (auto& c : payload) c = static_cast<char>(rng());
    } else {
      payload = seeds[rng() % seeds.size()];
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips && !payload.empty(); ++f) {
        switch (rng() % 3) {
          case 0: payload[rng() % payload.size()] = static_cast<char>(rng()); break;
          case 1: payload.resize(rng() % (payload.size() + 8)); break;
          case 2: payload.insert(rng() % (payload.size() + 1), 1, static_cast<char>(rng())); break;
        }
      }
    }
    std::string head(kHeaderSize, '\0');
    for (auto& c : head) c = static_cast<char>(rng());
    if (iter % 2) std::memcpy(head.data(), "GZWP\x01\x00", 6);
    auto attempt = [&](auto&& fn) {
      try {
        fn();
        ++accepted;
      } catch (const ProtocolError&) {
        ++rejected;
      }
    };
    attempt([&] { Decode(head); });
    attempt([&] { DecodeHello(payload); });
    attempt([&] { DecodeHelloOk(payload); });
    attempt([&] {
      auto d = DecodeInfer(payload, n);
      // Whatever is accepted is a valid position.
      for (auto& p : d) {
        REQUIRE(p.cells.size() == static_cast<size_t>(n * n));
        REQUIRE((p.to_move == kBlack || p.to_move == kWhite));
        REQUIRE((p.last_move == kNoMove || (p.last_move >= 0 && p.last_move < n * n && p.cells[p.last_move] != 0)));
      }
    });
    std::vector<EvalResult> out(3);
    attempt([&] { DecodeInferReply(payload, n, out); });
    attempt([&] { DecodeGeneration(payload); });
    attempt([&] { DecodeReload(payload); });
    attempt([&] { DecodeError(payload); });
  }
  CHECK(accepted > 0);
  CHECK(rejected > 0);
}
