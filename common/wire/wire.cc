#include "common/wire/wire.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/base/errors.h"

namespace gz::wire {
namespace {

// Little-endian writer into a std::string.
class Writer {
 public:
  explicit Writer(size_t reserve = 0) { out_.reserve(reserve); }
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void I16(int16_t v) { U16(static_cast<uint16_t>(v)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    U32(u);
  }
  void Bytes(std::string_view s) { out_.append(s); }
  std::string Take() { return std::move(out_); }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

// Little-endian reader over a payload; every read is bounds-checked.
class Reader {
 public:
  Reader(std::string_view in, const char* what) : in_(in), what_(what) {}
  uint8_t U8() { return static_cast<uint8_t>(Le(1)); }
  uint16_t U16() { return static_cast<uint16_t>(Le(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Le(4)); }
  uint64_t U64() { return Le(8); }
  int16_t I16() { return static_cast<int16_t>(U16()); }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  float F32() {
    uint32_t u = U32();
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  std::string_view Bytes(size_t n) {
    Need(n);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  size_t left() const { return in_.size() - pos_; }
  void End() const {
    if (left() != 0) GOMOKU_THROW(ProtocolError, what_ << ": " << left() << " unexpected trailing bytes");
  }

 private:
  void Need(size_t n) const {
    if (left() < n)
      GOMOKU_THROW(ProtocolError, what_ << ": payload too short (" << in_.size() << " bytes, needed "
                                        << pos_ + n << ")");
  }
  uint64_t Le(int n) {
    Need(static_cast<size_t>(n));
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += static_cast<size_t>(n);
    return v;
  }
  std::string_view in_;
  const char* what_;
  size_t pos_ = 0;
};

uint64_t LoadLe(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
void StoreLe(uint64_t v, int n, uint8_t* p) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>((v >> (8 * i)) & 0xff);
}

void CheckBoardSize(int size, const char* what) {
  if (size < kMinBoardSize || size > kMaxBoardSize)
    GOMOKU_THROW(ProtocolError, what << ": board size " << size << " outside [" << kMinBoardSize << ", "
                                     << kMaxBoardSize << "]");
}

constexpr size_t kInferPositionFixed = 4;  // to_move u8, reserved u8, last_move i16
constexpr size_t kInferReplyFixed = 12;    // generation i64, count u32

}  // namespace

const char* MsgTypeName(MsgType t) {
  switch (t) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kHelloOk: return "HELLO_OK";
    case MsgType::kInfer: return "INFER";
    case MsgType::kInferReply: return "INFER_REPLY";
    case MsgType::kPing: return "PING";
    case MsgType::kPong: return "PONG";
    case MsgType::kStats: return "STATS";
    case MsgType::kStatsReply: return "STATS_REPLY";
    case MsgType::kReload: return "RELOAD";
    case MsgType::kReloadOk: return "RELOAD_OK";
    case MsgType::kError: return "ERROR";
  }
  return "?";
}

bool IsKnownMsgType(uint16_t t) { return t >= 1 && t <= 11; }

const char* ErrorCodeName(ErrorCode c) {
  switch (c) {
    case ErrorCode::kBadFrame: return "bad_frame";
    case ErrorCode::kVersionMismatch: return "version_mismatch";
    case ErrorCode::kIncompatible: return "incompatible";
    case ErrorCode::kNoHello: return "no_hello";
    case ErrorCode::kNotReady: return "not_ready";
    case ErrorCode::kReloadFailed: return "reload_failed";
    case ErrorCode::kShuttingDown: return "shutting_down";
    case ErrorCode::kOverloaded: return "overloaded";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

void EncodeHeader(const FrameHeader& h, uint8_t* out) {
  StoreLe(h.magic, 4, out);
  StoreLe(h.proto_version, 2, out + 4);
  StoreLe(static_cast<uint16_t>(h.type), 2, out + 6);
  StoreLe(h.request_id, 8, out + 8);
  StoreLe(h.payload_len, 4, out + 16);
}

FrameHeader DecodeHeader(const uint8_t* in, uint32_t max_payload) {
  FrameHeader h;
  h.magic = static_cast<uint32_t>(LoadLe(in, 4));
  if (h.magic != kMagic)
    GOMOKU_THROW(ProtocolError, "bad frame magic 0x" << std::hex << h.magic << " (expected 0x" << kMagic
                                                     << "); not a gomoku-zero inference peer");
  h.proto_version = static_cast<uint16_t>(LoadLe(in + 4, 2));
  uint16_t type = static_cast<uint16_t>(LoadLe(in + 6, 2));
  h.request_id = LoadLe(in + 8, 8);
  h.payload_len = static_cast<uint32_t>(LoadLe(in + 16, 4));
  if (h.proto_version != kProtoVersion)
    GOMOKU_THROW(VersionMismatchError, "protocol version " << h.proto_version << " not supported (this side speaks "
                                                           << kProtoVersion << ")");
  if (!IsKnownMsgType(type)) GOMOKU_THROW(ProtocolError, "unknown message type " << type);
  h.type = static_cast<MsgType>(type);
  if (h.payload_len > max_payload)
    GOMOKU_THROW(ProtocolError, "payload length " << h.payload_len << " exceeds the limit of " << max_payload
                                                  << " bytes");
  return h;
}

std::string BuildFrame(MsgType type, uint64_t request_id, std::string_view payload) {
  GOMOKU_CHECK(payload.size() <= kMaxPayload, "frame payload of " << payload.size() << " bytes exceeds "
                                                                  << kMaxPayload);
  FrameHeader h;
  h.type = type;
  h.request_id = request_id;
  h.payload_len = static_cast<uint32_t>(payload.size());
  std::string out(kHeaderSize, '\0');
  EncodeHeader(h, reinterpret_cast<uint8_t*>(out.data()));
  out.append(payload);
  return out;
}

// ---- HELLO ------------------------------------------------------------------

std::string EncodeHello(const Hello& m) {
  GOMOKU_CHECK(m.client_name.size() <= kMaxNameBytes, "client name longer than " << kMaxNameBytes << " bytes");
  Writer w(16 + m.client_name.size());
  w.U16(m.proto_version);
  w.U16(m.encoder_version);
  w.U8(static_cast<uint8_t>(m.board_size));
  w.U8(static_cast<uint8_t>(m.rule));
  w.U8(static_cast<uint8_t>(m.symmetry));
  w.U8(0);
  w.U16(static_cast<uint16_t>(m.client_name.size()));
  w.Bytes(m.client_name);
  return w.Take();
}

Hello DecodeHello(std::string_view payload) {
  Reader r(payload, "HELLO");
  Hello m;
  m.proto_version = r.U16();
  m.encoder_version = r.U16();
  m.board_size = r.U8();
  uint8_t rule = r.U8();
  uint8_t sym = r.U8();
  r.U8();  // reserved
  uint16_t name_len = r.U16();
  if (name_len > kMaxNameBytes) GOMOKU_THROW(ProtocolError, "HELLO: client name of " << name_len << " bytes");
  m.client_name = std::string(r.Bytes(name_len));
  r.End();
  CheckBoardSize(m.board_size, "HELLO");
  if (rule > static_cast<uint8_t>(kLastRule)) GOMOKU_THROW(ProtocolError, "HELLO: unknown rule " << int(rule));
  if (sym > 2) GOMOKU_THROW(ProtocolError, "HELLO: unknown symmetry mode " << int(sym));
  m.rule = static_cast<Rule>(rule);
  m.symmetry = static_cast<SymmetryMode>(sym);
  for (char c : m.client_name)
    if (static_cast<unsigned char>(c) < 0x20) GOMOKU_THROW(ProtocolError, "HELLO: control character in client name");
  return m;
}

std::string EncodeHelloOk(const HelloOk& m) {
  Writer w(12);
  w.I64(m.model_generation);
  w.U32(m.max_positions);
  return w.Take();
}

HelloOk DecodeHelloOk(std::string_view payload) {
  Reader r(payload, "HELLO_OK");
  HelloOk m;
  m.model_generation = r.I64();
  m.max_positions = r.U32();
  r.End();
  if (m.max_positions == 0) GOMOKU_THROW(ProtocolError, "HELLO_OK: max_positions is 0");
  return m;
}

// ---- INFER ------------------------------------------------------------------

uint32_t MaxPositionsPerInfer(int board_size) {
  const size_t pts = static_cast<size_t>(board_size) * board_size;
  const size_t by_request = (kMaxPayload - 4) / (kInferPositionFixed + pts);
  const size_t by_reply = (kMaxPayload - kInferReplyFixed) / ((pts + 1) * 4);
  return static_cast<uint32_t>(std::min(by_request, by_reply));
}

std::string EncodeInfer(std::span<const Position> positions, int board_size) {
  CheckBoardSize(board_size, "INFER");
  const size_t pts = static_cast<size_t>(board_size) * board_size;
  GOMOKU_CHECK(positions.size() <= MaxPositionsPerInfer(board_size),
               "INFER with " << positions.size() << " positions exceeds " << MaxPositionsPerInfer(board_size));
  Writer w(4 + positions.size() * (kInferPositionFixed + pts));
  w.U32(static_cast<uint32_t>(positions.size()));
  for (const Position& p : positions) {
    GOMOKU_CHECK(p.size == board_size && p.cells.size() == pts,
                 "position of size " << p.size << " sent on a connection for size " << board_size);
    w.U8(static_cast<uint8_t>(p.to_move));
    w.U8(0);
    w.I16(static_cast<int16_t>(p.last_move));
    w.Bytes(std::string_view(reinterpret_cast<const char*>(p.cells.data()), pts));
  }
  return w.Take();
}

std::vector<Position> DecodeInfer(std::string_view payload, int board_size, Rule rule) {
  CheckBoardSize(board_size, "INFER");
  const size_t pts = static_cast<size_t>(board_size) * board_size;
  Reader r(payload, "INFER");
  uint32_t count = r.U32();
  if (count == 0) GOMOKU_THROW(ProtocolError, "INFER: zero positions");
  if (count > MaxPositionsPerInfer(board_size))
    GOMOKU_THROW(ProtocolError, "INFER: " << count << " positions exceeds " << MaxPositionsPerInfer(board_size));
  if (r.left() != static_cast<size_t>(count) * (kInferPositionFixed + pts))
    GOMOKU_THROW(ProtocolError, "INFER: payload of " << payload.size() << " bytes does not hold " << count
                                                     << " positions of size " << board_size);
  std::vector<Position> out(count);
  for (uint32_t i = 0; i < count; ++i) {
    Position& p = out[i];
    p.size = board_size;
    p.rule = rule;
    uint8_t to_move = r.U8();
    uint8_t reserved = r.U8();
    int last = r.I16();
    std::string_view cells = r.Bytes(pts);
    if (to_move != kBlack && to_move != kWhite)
      GOMOKU_THROW(ProtocolError, "INFER: position " << i << ": side to move " << int(to_move));
    if (reserved != 0) GOMOKU_THROW(ProtocolError, "INFER: position " << i << ": reserved byte is " << int(reserved));
    p.to_move = static_cast<int8_t>(to_move);
    p.cells.resize(pts);
    for (size_t k = 0; k < pts; ++k) {
      uint8_t c = static_cast<uint8_t>(cells[k]);
      if (c > 2) GOMOKU_THROW(ProtocolError, "INFER: position " << i << ": cell " << k << " has value " << int(c));
      p.cells[k] = static_cast<int8_t>(c);
    }
    if (last != kNoMove && (last < 0 || static_cast<size_t>(last) >= pts || p.cells[last] == kEmpty))
      GOMOKU_THROW(ProtocolError, "INFER: position " << i << ": invalid last move " << last);
    p.last_move = last;
  }
  r.End();
  return out;
}

std::string EncodeInferReply(int64_t model_generation, std::span<const EvalResult> results, int board_size) {
  const size_t pts = static_cast<size_t>(board_size) * board_size;
  Writer w(kInferReplyFixed + results.size() * (pts + 1) * 4);
  w.I64(model_generation);
  w.U32(static_cast<uint32_t>(results.size()));
  for (const EvalResult& r : results) {
    GOMOKU_CHECK(r.log_policy.size() == pts, "reply policy of " << r.log_policy.size() << " points, expected " << pts);
    w.F32(r.value);
    for (float f : r.log_policy) w.F32(f);
  }
  return w.Take();
}

int64_t DecodeInferReply(std::string_view payload, int board_size, std::span<EvalResult> results) {
  CheckBoardSize(board_size, "INFER_REPLY");
  const size_t pts = static_cast<size_t>(board_size) * board_size;
  Reader r(payload, "INFER_REPLY");
  int64_t gen = r.I64();
  uint32_t count = r.U32();
  if (count != results.size())
    GOMOKU_THROW(ProtocolError, "INFER_REPLY: " << count << " results for " << results.size() << " positions");
  if (r.left() != static_cast<size_t>(count) * (pts + 1) * 4)
    GOMOKU_THROW(ProtocolError, "INFER_REPLY: payload of " << payload.size() << " bytes does not hold " << count
                                                           << " results for size " << board_size);
  for (EvalResult& res : results) {
    res.value = r.F32();
    res.log_policy.resize(pts);
    for (size_t k = 0; k < pts; ++k) res.log_policy[k] = r.F32();
    res.model_generation = gen;
    if (!std::isfinite(res.value)) GOMOKU_THROW(ProtocolError, "INFER_REPLY: non-finite value");
  }
  r.End();
  return gen;
}

// ---- small messages -----------------------------------------------------------

std::string EncodeGeneration(int64_t generation) {
  Writer w(8);
  w.I64(generation);
  return w.Take();
}

int64_t DecodeGeneration(std::string_view payload) {
  Reader r(payload, "generation");
  int64_t g = r.I64();
  r.End();
  return g;
}

std::string EncodeReload(const std::string& path) {
  GOMOKU_CHECK(!path.empty() && path.size() <= kMaxPathBytes, "reload path must have 1.." << kMaxPathBytes << " bytes");
  GOMOKU_CHECK(path.find('\0') == std::string::npos, "reload path contains a NUL byte");
  return path;
}

std::string DecodeReload(std::string_view payload) {
  if (payload.empty() || payload.size() > kMaxPathBytes)
    GOMOKU_THROW(ProtocolError, "RELOAD: path of " << payload.size() << " bytes (1.." << kMaxPathBytes << " allowed)");
  if (payload.find('\0') != std::string_view::npos) GOMOKU_THROW(ProtocolError, "RELOAD: path contains a NUL byte");
  return std::string(payload);
}

std::string EncodeError(const Error& e) {
  std::string msg = e.message.substr(0, kMaxPayload - 4);
  Writer w(4 + msg.size());
  w.U16(static_cast<uint16_t>(e.code));
  w.U16(0);
  w.Bytes(msg);
  return w.Take();
}

Error DecodeError(std::string_view payload) {
  Reader r(payload, "ERROR");
  Error e;
  uint16_t code = r.U16();
  r.U16();  // reserved
  e.code = static_cast<ErrorCode>(code);
  e.message = std::string(r.Bytes(r.left()));
  return e;
}

}  // namespace gz::wire
