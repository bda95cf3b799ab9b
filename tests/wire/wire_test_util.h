// Helpers for tests that speak the wire protocol byte by byte
// (docs/protocol.md): a frame header with any field values, valid or not.
#pragma once

#include <cstdint>
#include <string>

#include "common/wire/wire.h"

namespace gz::testing {

// A frame header with these fields, little-endian, without the encoder's
// checks: for malformed headers (bad magic, version, type or length).
inline std::string RawHeader(uint32_t magic, uint16_t version, uint16_t type, uint64_t id, uint32_t len) {
  std::string s(wire::kHeaderSize, '\0');
  auto put = [&](size_t off, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put(0, magic, 4);
  put(4, version, 2);
  put(6, type, 2);
  put(8, id, 8);
  put(16, len, 4);
  return s;
}

}  // namespace gz::testing
