#include "infer_server/frame_assembler.h"

#include <algorithm>
#include <cstring>

#include "common/base/errors.h"

namespace gz {

std::span<uint8_t> FrameAssembler::ReadSpace() {
  const size_t held = end_ - begin_;
  if (begin_ > 0) {  // keep the start of a partial frame at the front
    if (held > 0) std::memmove(in_.data(), in_.data() + begin_, held);
    begin_ = 0;
    end_ = held;
  }
  // Room for a chunk of whatever comes; for a frame bigger than that, room
  // that doubles with what has arrived, up to the whole frame (its length
  // passed DecodeHeader's bound).
  size_t want = kReadChunk;
  if (have_header_) {
    const size_t frame = wire::kHeaderSize + header_.payload_len;
    want = std::min(frame, std::max(kReadChunk, 2 * held));
  }
  // A frame that is complete but not yet taken leaves no room: offer a chunk
  // more (Next() is called before reading again, so this is only for safety).
  if (want <= end_) want = end_ + kReadChunk;
  if (in_.size() < want) in_.resize(want);
  return std::span<uint8_t>(in_.data() + end_, in_.size() - end_);
}

void FrameAssembler::Commit(size_t n) {
  GOMOKU_CHECK(n <= in_.size() - end_, "FrameAssembler::Commit past the read space");
  end_ += n;
}

std::optional<FrameAssembler::Frame> FrameAssembler::Next() {
  const size_t held = end_ - begin_;
  if (!have_header_) {
    if (held < wire::kHeaderSize) return std::nullopt;
    header_ = wire::DecodeHeader(in_.data() + begin_);  // bounds payload_len before anything is allocated
    have_header_ = true;
  }
  const size_t frame = wire::kHeaderSize + header_.payload_len;
  if (held < frame) return std::nullopt;
  Frame f{header_, std::string_view(reinterpret_cast<const char*>(in_.data() + begin_ + wire::kHeaderSize),
                                    header_.payload_len)};
  begin_ += frame;
  have_header_ = false;
  return f;
}

void FrameAssembler::Settle() {
  if (begin_ != end_) return;
  begin_ = end_ = 0;
  if (in_.size() > kKeepBuffer) std::vector<uint8_t>().swap(in_);
}

}  // namespace gz
