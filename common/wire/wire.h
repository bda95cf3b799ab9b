// The inference wire protocol (docs/protocol.md documents every byte).
//
// A connection carries length-prefixed binary frames in both directions.
// Every frame = a 20-byte header + payload, all integers little-endian:
//
//   offset 0  u32 magic          kMagic (bytes 47 5A 57 50, "GZWP")
//   offset 4  u16 proto_version  kProtoVersion
//   offset 6  u16 msg_type       MsgType
//   offset 8  u64 request_id     chosen by the client, echoed in the reply
//   offset 16 u32 payload_len    <= kMaxPayload (checked before allocating)
//
// This file is pure encoding/decoding: no sockets, no threads.  Every decoder
// validates lengths and values and throws ProtocolError naming the problem;
// none of them trusts a length from the wire before checking it.  All
// functions are thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/game/board.h"
#include "common/base/errors.h"
#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"

namespace gz::wire {

constexpr uint32_t kMagic = 0x50575A47;  // bytes "GZWP" on the wire
constexpr uint16_t kProtoVersion = 1;
constexpr size_t kHeaderSize = 20;
constexpr uint32_t kMaxPayload = 1u << 20;  // 1 MiB, both directions
constexpr size_t kMaxPathBytes = 4096;      // RELOAD path
constexpr size_t kMaxNameBytes = 256;       // HELLO client name

enum class MsgType : uint16_t {
  kHello = 1,       // client -> server
  kHelloOk = 2,     // server -> client
  kInfer = 3,       // client -> server (needs a HELLO first)
  kInferReply = 4,  // server -> client
  kPing = 5,        // client -> server
  kPong = 6,        // server -> client
  kStats = 7,       // client -> server
  kStatsReply = 8,  // server -> client (JSON text)
  kReload = 9,      // client -> server (checkpoint path)
  kReloadOk = 10,   // server -> client (new generation, sent after the swap)
  kError = 11,      // server -> client
};
const char* MsgTypeName(MsgType t);
bool IsKnownMsgType(uint16_t t);

// Error codes carried by ERROR frames.
enum class ErrorCode : uint16_t {
  kBadFrame = 1,         // malformed frame or payload; the server closes the connection
  kVersionMismatch = 2,  // protocol version differs
  kIncompatible = 3,     // HELLO refused: board size, rule, encoder version or symmetry differ
  kNoHello = 4,          // INFER before a successful HELLO
  kNotReady = 5,         // no model loaded yet
  kReloadFailed = 6,     // RELOAD refused; the old model keeps serving
  kShuttingDown = 7,     // the server is stopping; the request was not evaluated
  kOverloaded = 8,       // too many clients / pending replies
  kInternal = 9,         // forward failed or another server-side error
};
const char* ErrorCodeName(ErrorCode c);

struct FrameHeader {
  uint32_t magic = kMagic;
  uint16_t proto_version = kProtoVersion;
  MsgType type = MsgType::kPing;
  uint64_t request_id = 0;
  uint32_t payload_len = 0;
};

// Writes kHeaderSize bytes.
void EncodeHeader(const FrameHeader& h, uint8_t* out);
// Reads kHeaderSize bytes and validates magic, version, type and
// payload_len <= max_payload.  Throws ProtocolError (the message says which);
// a version mismatch throws VersionMismatchError so a server can answer with
// kVersionMismatch before closing.
class VersionMismatchError : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};
FrameHeader DecodeHeader(const uint8_t* in, uint32_t max_payload = kMaxPayload);

// A whole frame (header + payload) as one byte string, ready to send.
std::string BuildFrame(MsgType type, uint64_t request_id, std::string_view payload);

// ---- messages ----------------------------------------------------------

struct Hello {
  uint16_t proto_version = kProtoVersion;
  uint16_t encoder_version = 0;
  int board_size = 0;
  Rule rule = Rule::kFreestyle;
  SymmetryMode symmetry = SymmetryMode::kNone;
  std::string client_name;  // for server logs, <= kMaxNameBytes
};
std::string EncodeHello(const Hello& m);
Hello DecodeHello(std::string_view payload);

struct HelloOk {
  int64_t model_generation = -1;  // -1 = no model loaded yet
  uint32_t max_positions = 0;     // most positions one INFER may carry
};
std::string EncodeHelloOk(const HelloOk& m);
HelloOk DecodeHelloOk(std::string_view payload);

// Most positions one INFER may carry so that both the request and its reply
// fit in kMaxPayload.
uint32_t MaxPositionsPerInfer(int board_size);

// INFER: the positions, all of the HELLO's board size.  Validates every cell,
// the last move (on the board and occupied) and the side to move.  The rule
// does not travel per position: it is the connection's (HELLO), and the
// decoder stamps it into every Position (the encoder's plane 4 needs it).
std::string EncodeInfer(std::span<const Position> positions, int board_size);
std::vector<Position> DecodeInfer(std::string_view payload, int board_size, Rule rule = Rule::kFreestyle);

// INFER_REPLY: generation + per position value and log-policy.
std::string EncodeInferReply(int64_t model_generation, std::span<const EvalResult> results, int board_size);
// Fills results (whose size must equal the reply's count, else ProtocolError);
// returns the generation and stamps it into every result.
int64_t DecodeInferReply(std::string_view payload, int board_size, std::span<EvalResult> results);

// PONG / RELOAD_OK: one i64 model generation.
std::string EncodeGeneration(int64_t generation);
int64_t DecodeGeneration(std::string_view payload);

// RELOAD: a checkpoint path (UTF-8, 1..kMaxPathBytes bytes, no NUL).
std::string EncodeReload(const std::string& path);
std::string DecodeReload(std::string_view payload);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};
std::string EncodeError(const Error& e);
Error DecodeError(std::string_view payload);

}  // namespace gz::wire
