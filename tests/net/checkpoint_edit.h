// Helpers for tests that build deliberately broken GZCK checkpoints
// (test_checkpoint, test_server): edit the bytes, then fix the CRC trailer so
// that the edit reaches the validation under test.  Layout: docs/file-formats.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "common/base/fileio.h"

namespace gz::testing {

// Recomputes the CRC trailer (the last 4 bytes) over everything before it.
inline std::string WithFixedCrc(std::string bytes) {
  const uint32_t crc = Crc32(bytes.data(), bytes.size() - 4);
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
  return bytes;
}

// Length of the JSON header (u32 at offset 8); the tensor data starts at 12 + this.
inline uint32_t JsonLen(const std::string& bytes) {
  uint32_t n;
  std::memcpy(&n, bytes.data() + 8, 4);
  return n;
}

}  // namespace gz::testing
