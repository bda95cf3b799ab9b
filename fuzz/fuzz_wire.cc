// Fuzz target: the wire protocol's frame and message decoders (common/wire/wire.h).
// The input is a byte stream of frames, as a server or client reads it; the
// first byte picks the board size.  Every frame whose header decodes has its
// payload (what is left of the input, at most payload_len bytes) decoded as
// its message type; a decoded INFER / INFER_REPLY / HELLO must re-encode to a
// payload that decodes to the same thing.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "common/game/board.h"
#include "common/wire/wire.h"
#include "fuzz/fuzz_target.h"

namespace {

using namespace gz;

void DecodePayload(wire::MsgType type, std::string_view payload, int board) {
  switch (type) {
    case wire::MsgType::kHello: {
      const wire::Hello h = wire::DecodeHello(payload);
      if (wire::DecodeHello(wire::EncodeHello(h)).client_name != h.client_name)
        fuzz::FuzzFail("HELLO does not round-trip");
      break;
    }
    case wire::MsgType::kHelloOk: wire::DecodeHelloOk(payload); break;
    case wire::MsgType::kInfer: {
      const std::vector<Position> positions = wire::DecodeInfer(payload, board);
      const std::vector<Position> again = wire::DecodeInfer(wire::EncodeInfer(positions, board), board);
      if (again.size() != positions.size()) fuzz::FuzzFail("INFER does not round-trip (count)");
      for (size_t i = 0; i < again.size(); ++i)
        if (again[i].cells != positions[i].cells || again[i].last_move != positions[i].last_move ||
            again[i].to_move != positions[i].to_move)
          fuzz::FuzzFail("INFER does not round-trip (position)");
      break;
    }
    case wire::MsgType::kInferReply: {
      // The client knows how many answers it asked for; try a few counts.
      for (size_t n : {size_t{0}, size_t{1}, size_t{3}}) {
        std::vector<EvalResult> results(n);
        fuzz::ExpectOnlyGomokuErrors([&] {
          const int64_t gen = wire::DecodeInferReply(payload, board, results);
          std::vector<EvalResult> again(n);
          if (wire::DecodeInferReply(wire::EncodeInferReply(gen, results, board), board, again) != gen)
            fuzz::FuzzFail("INFER_REPLY does not round-trip (generation)");
        });
      }
      break;
    }
    case wire::MsgType::kPong:
    case wire::MsgType::kReloadOk: wire::DecodeGeneration(payload); break;
    case wire::MsgType::kReload: wire::DecodeReload(payload); break;
    case wire::MsgType::kError: wire::DecodeError(payload); break;
    default: break;  // PING, STATS (no payload) and STATS_REPLY (JSON text)
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int board = kMinBoardSize + data[0] % (kMaxBoardSize - kMinBoardSize + 1);
  size_t off = 1;
  while (size - off >= wire::kHeaderSize) {
    wire::FrameHeader h;
    bool ok = false;
    fuzz::ExpectOnlyGomokuErrors([&] {
      h = wire::DecodeHeader(data + off);
      ok = true;
    });
    if (!ok) return 0;  // a server closes the connection here
    off += wire::kHeaderSize;
    const size_t len = std::min<size_t>(h.payload_len, size - off);
    const std::string_view payload(reinterpret_cast<const char*>(data + off), len);
    fuzz::ExpectOnlyGomokuErrors([&] { DecodePayload(h.type, payload, board); });
    off += len;
  }
  return 0;
}
