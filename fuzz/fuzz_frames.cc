// Fuzz target: the inference server's frame reassembly (infer_server/
// frame_assembler.h, what each Session reads its connection with), driven
// without sockets.
//
// Input: byte 0 picks the number of connections (1..3), bytes 1..8 seed the
// split, the rest is the byte stream S every connection receives (frames, as
// in the wire corpus).  Each connection gets S cut at random byte boundaries
// (single bytes, pieces of a header, a few KiB, whatever its read space
// holds), and the connections' pieces are interleaved.  Properties, besides
// "no crash, no sanitizer report, only GomokuError from a bad header":
//   - every connection returns exactly the frames a one-pass parse of S
//     finds, in order, with the same headers and payload bytes;
//   - a bad header is refused at the same frame, with the same error kind
//     (version mismatch or another protocol error), after which the
//     connection stops (a server closes it);
//   - a truncated S leaves exactly its unfinished tail held, with its header
//     decoded once the 20 header bytes are in;
//   - memory: the buffer never exceeds max(kReadChunk, 2 x the bytes of the
//     partial frame held): a header announcing 1 MiB costs what was sent; an
//     emptied buffer keeps at most kKeepBuffer.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/errors.h"
#include "common/base/splitmix.h"
#include "common/wire/wire.h"
#include "fuzz/fuzz_target.h"
#include "infer_server/frame_assembler.h"

namespace {

using namespace gz;

enum class Refusal { kNone, kVersion, kProtocol };

struct Parsed {
  std::vector<wire::FrameHeader> headers;
  std::vector<std::string_view> payloads;
  Refusal refusal = Refusal::kNone;  // why the parse stopped early
  size_t tail = 0;                   // bytes after the last whole frame (no refusal)
};

bool SameHeader(const wire::FrameHeader& a, const wire::FrameHeader& b) {
  return a.magic == b.magic && a.proto_version == b.proto_version && a.type == b.type &&
         a.request_id == b.request_id && a.payload_len == b.payload_len;
}

// Calls f(); returns how a bad header was refused.  Anything but a
// GomokuError is a bug.
template <typename F>
Refusal Classify(F&& f) {
  try {
    f();
  } catch (const wire::VersionMismatchError&) {
    return Refusal::kVersion;
  } catch (const GomokuError&) {
    return Refusal::kProtocol;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    fuzz::FuzzFail("frame reassembly threw something other than GomokuError");
  }
  return Refusal::kNone;
}

// The reference: one pass over the whole stream.
Parsed ParseWhole(const uint8_t* s, size_t n) {
  Parsed p;
  size_t off = 0;
  while (n - off >= wire::kHeaderSize) {
    wire::FrameHeader h;
    p.refusal = Classify([&] { h = wire::DecodeHeader(s + off); });
    if (p.refusal != Refusal::kNone) return p;
    if (n - off - wire::kHeaderSize < h.payload_len) break;
    p.headers.push_back(h);
    p.payloads.emplace_back(reinterpret_cast<const char*>(s + off + wire::kHeaderSize), h.payload_len);
    off += wire::kHeaderSize + h.payload_len;
  }
  p.tail = n - off;
  return p;
}


// One connection: an assembler fed S piece by piece.
struct Connection {
  FrameAssembler frames;
  uint64_t rng = 0;
  size_t fed = 0;       // bytes of S given so far
  size_t taken = 0;     // frames returned so far
  size_t max_held = 0;  // the most bytes of a partial frame held before a read
  bool refused = false;
  bool done = false;
};

// Takes every complete frame; checks each against the reference.
void Drain(Connection& c, const Parsed& want) {
  for (;;) {
    std::optional<FrameAssembler::Frame> f;
    const Refusal r = Classify([&] { f = c.frames.Next(); });
    if (r != Refusal::kNone) {
      if (c.taken != want.headers.size() || r != want.refusal)
        fuzz::FuzzFail("a header was refused where the one-pass parse did not refuse it (or with another kind)");
      c.refused = c.done = true;
      return;
    }
    if (!f) break;
    if (c.taken >= want.headers.size()) fuzz::FuzzFail("a frame the one-pass parse does not have");
    if (!SameHeader(f->header, want.headers[c.taken])) fuzz::FuzzFail("a frame header differs");
    if (f->payload != want.payloads[c.taken]) fuzz::FuzzFail("a frame payload differs");
    ++c.taken;
  }
  c.frames.Settle();
  if (c.frames.held() == 0 && c.frames.capacity() > FrameAssembler::kKeepBuffer)
    fuzz::FuzzFail("an emptied buffer was kept above kKeepBuffer");
}

// One read: a piece of S of a random size, at most what the read space holds.
void Step(Connection& c, const uint8_t* s, size_t n, const Parsed& want) {
  c.max_held = std::max(c.max_held, c.frames.held());
  const std::span<uint8_t> space = c.frames.ReadSpace();
  if (space.empty()) fuzz::FuzzFail("no read space");
  if (c.frames.capacity() > std::max(FrameAssembler::kReadChunk, 2 * c.max_held))
    fuzz::FuzzFail("the buffer grew past max(kReadChunk, 2 x the bytes held)");
  size_t piece;
  switch (SplitMix64(c.rng) % 4) {
    case 0: piece = 1; break;
    case 1: piece = 1 + SplitMix64(c.rng) % wire::kHeaderSize; break;
    case 2: piece = 1 + SplitMix64(c.rng) % 4096; break;
    default: piece = space.size(); break;
  }
  piece = std::min({piece, space.size(), n - c.fed});
  std::memcpy(space.data(), s + c.fed, piece);
  c.frames.Commit(piece);
  c.fed += piece;
  Drain(c, want);
  if (c.fed == n) c.done = true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t connections = 1 + data[0] % 3;
  uint64_t seed = 0;
  const size_t seed_bytes = std::min<size_t>(8, size - 1);
  std::memcpy(&seed, data + 1, seed_bytes);
  const uint8_t* s = data + 1 + seed_bytes;
  const size_t n = size - 1 - seed_bytes;
  const Parsed want = ParseWhole(s, n);

  std::vector<Connection> conns(connections);
  for (size_t i = 0; i < connections; ++i) conns[i].rng = seed + 0x1000003ull * (i + 1);
  uint64_t pick = seed ^ 0x5EEDull;
  for (;;) {
    std::vector<size_t> live;
    for (size_t i = 0; i < connections; ++i)
      if (!conns[i].done) live.push_back(i);
    if (live.empty()) break;
    Step(conns[live[SplitMix64(pick) % live.size()]], s, n, want);
  }
  for (Connection& c : conns) {
    if (c.refused) continue;
    if (want.refusal != Refusal::kNone) fuzz::FuzzFail("a bad header was not refused");
    if (c.taken != want.headers.size()) fuzz::FuzzFail("frames missing at the end of the stream");
    if (c.frames.held() != want.tail) fuzz::FuzzFail("the unfinished tail is not what is held");
    if (c.frames.have_header() != (want.tail >= wire::kHeaderSize))
      fuzz::FuzzFail("the header of the unfinished frame is not decoded (or decoded too early)");
  }
  return 0;
}
