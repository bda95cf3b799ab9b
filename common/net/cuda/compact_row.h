// The compact board row that crosses to the GPU, and the per-point encoding
// that turns it into network input planes.  Shared, word for word, by the CUDA
// kernel (encode_kernel.cu) and by host code (tests, the CPU reference check),
// so the device computes exactly what the host-side copy of this code is
// tested to compute.  No includes beyond <cstdint>: nvcc compiles it too.
//
// Row layout (CompactRowBytes(size) bytes, no alignment requirement):
//   [0, P)      cells, one byte each: bits 0-1 the stone, kEmpty 0 / kBlack 1 /
//               kWhite 2 / kBlocked 3 (board.h); bit 2 (value 4) set on an empty point
//               forbidden for black (renju, encoder plane 4), P = size*size
//   [P, P+2)    last move, int16 little-endian (-1 = none; values outside
//               [0, P) put no stone in the last-move plane, as in the encoder)
//   P+2         side to move, int8 (kBlack 1 / kWhite 2)
//   P+3         symmetry index in [0, 8) (symmetry.h)
//
// EncodeCompactPoint(row, size, p, planes) writes the five plane values whose
// position is the image of point p under the row's symmetry; running it for
// every p in [0, P) writes every float of the row's kNumPlanes x P block once,
// and the result equals EncodePosition(pos, sym, planes) bit for bit
// (encoder.h; tests/test_gpu.cc and bench_gpu check both sides).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GZ_HOST_DEVICE __host__ __device__
#else
#define GZ_HOST_DEVICE
#endif

namespace gz {

constexpr int kCompactRowExtraBytes = 4;
// Planes written per row (kNumPlanes of encoder.h; compact_batch.cc asserts
// that they agree, so the kernel's row stride follows the encoder).
constexpr int kCompactPlanes = 5;

GZ_HOST_DEVICE inline int CompactRowBytes(int size) { return size * size + kCompactRowExtraBytes; }

// Same mapping as TransformPoint (symmetry.cc): bit 2 transpose, then bit 0
// flips rows, bit 1 flips columns.
GZ_HOST_DEVICE inline int CompactTransformPoint(int sym, int point, int size) {
  int r = point / size, c = point % size;
  if (sym & 4) {
    const int t = r;
    r = c;
    c = t;
  }
  if (sym & 1) r = size - 1 - r;
  if (sym & 2) c = size - 1 - c;
  return r * size + c;
}

// planes: the row's kCompactPlanes x P floats.  Preconditions: 0 <= p < P.
GZ_HOST_DEVICE inline void EncodeCompactPoint(const uint8_t* row, int size, int p, float* planes) {
  const int points = size * size;
  const int8_t cell = static_cast<int8_t>(row[p] & 3);
  const bool forbidden = (row[p] & 4) != 0;
  const int last = static_cast<int16_t>(static_cast<uint16_t>(row[points] | (row[points + 1] << 8)));
  const int8_t me = static_cast<int8_t>(row[points + 2]);
  const int sym = row[points + 3];
  const int q = CompactTransformPoint(sym, p, size);
  planes[q] = (cell != 0 && cell == me) ? 1.0f : 0.0f;
  planes[points + q] = ((cell == 1 || cell == 2) && cell != me) ? 1.0f : 0.0f;  // kBlocked 3: neither
  planes[2 * points + q] = (last >= 0 && last < points && last == p) ? 1.0f : 0.0f;
  planes[3 * points + q] = (me == 1) ? 1.0f : 0.0f;  // kBlack to move
  planes[4 * points + q] = forbidden ? 1.0f : 0.0f;  // renju: forbidden for black
}

}  // namespace gz
