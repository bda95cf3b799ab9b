// One connection's frame reassembly, apart from the socket: the server's
// Session reads into ReadSpace() and takes complete frames from Next(); the
// fuzz target fuzz/fuzz_frames.cc drives the same code with byte streams split
// at random boundaries, interleaved over several connections and truncated.
//
// Bytes arrive in any pieces (one read may bring several frames, or part of
// one).  A header is decoded (wire::DecodeHeader: magic, version, type and the
// payload bound) as soon as its 20 bytes are in, before any room is made for
// its payload; the buffer then grows by doubling with the bytes that have
// arrived, up to the whole frame, so a header that announces 1 MiB and drips
// costs what it sent, not what it announced.  An emptied buffer above
// kKeepBuffer is freed (no big buffers per idle connection).
//
// Thread-safety: none (a session's strand owns it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/wire/wire.h"

namespace gz {

class FrameAssembler {
 public:
  static constexpr size_t kReadChunk = 16384;   // bytes offered to each read at least
  static constexpr size_t kKeepBuffer = 65536;  // an emptied buffer above this is freed

  struct Frame {
    wire::FrameHeader header;
    std::string_view payload;  // points into the buffer: valid until the next ReadSpace()
  };

  // Where the next read may write (never empty).  Moves the start of a
  // partial frame to the front first, so a payload view returned by Next()
  // is invalid after this call.
  std::span<uint8_t> ReadSpace();
  // `n` bytes were written at the start of the last ReadSpace().
  void Commit(size_t n);

  // The next complete frame, or nullopt when more bytes are needed.  Throws
  // wire::VersionMismatchError or ProtocolError (a GomokuError) for a bad
  // header; the stream cannot be resumed after that (close the connection).
  std::optional<Frame> Next();
  // Call when Next() has returned nullopt: an empty buffer starts over at
  // the front, and is freed if it has grown above kKeepBuffer.
  void Settle();

  size_t held() const { return end_ - begin_; }   // received bytes not yet returned as frames
  bool have_header() const { return have_header_; }  // the partial frame's header is decoded
  const wire::FrameHeader& header() const { return header_; }  // valid when have_header()
  size_t capacity() const { return in_.size(); }  // bytes allocated for the buffer

 private:
  std::vector<uint8_t> in_;  // received bytes; unhandled ones in [begin_, end_)
  size_t begin_ = 0, end_ = 0;
  bool have_header_ = false;
  wire::FrameHeader header_;
};

}  // namespace gz
