#include "common/net/cuda/compact_batch.h"

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/game/symmetry.h"

namespace gz {

// compact_row.h hard-codes the five planes of encoder version 2; a change to
// the encoder must be mirrored there (and this bumped).
static_assert(kEncoderVersion == 2 && kNumPlanes == kCompactPlanes && kForbiddenPlane == 4,
              "update compact_row.h for the new encoder");
static_assert(kMaxBoardSize * kMaxBoardSize < 32768, "last move must fit in int16");

void PackCompactRow(const Position& pos, int sym, uint8_t* row) {
  const int points = pos.size * pos.size;
  GOMOKU_CHECK(static_cast<int>(pos.cells.size()) == points,
               "position has " << pos.cells.size() << " cells for size " << pos.size);
  GOMOKU_CHECK(sym >= 0 && sym < kNumSymmetries, "symmetry " << sym << " out of range");
  for (int p = 0; p < points; ++p) row[p] = static_cast<uint8_t>(pos.cells[p]);
  for (int p : ForbiddenPlanePoints(pos)) row[p] |= 4;  // renju only; empty points
  // Out-of-range last moves encode no stone either way; keep them out of int16.
  const int last = (pos.last_move >= 0 && pos.last_move < points) ? pos.last_move : -1;
  const uint16_t bits = static_cast<uint16_t>(static_cast<int16_t>(last));
  row[points] = static_cast<uint8_t>(bits & 0xff);
  row[points + 1] = static_cast<uint8_t>(bits >> 8);
  row[points + 2] = static_cast<uint8_t>(pos.to_move);
  row[points + 3] = static_cast<uint8_t>(sym);
}

void PackCompactRows(std::span<const Position> positions, std::span<const uint8_t> syms, int size, uint8_t* rows) {
  GOMOKU_CHECK(positions.size() == syms.size(),
               positions.size() << " positions but " << syms.size() << " symmetry indices");
  const int stride = CompactRowBytes(size);
  for (size_t i = 0; i < positions.size(); ++i) {
    if (positions[i].size != size)
      GOMOKU_THROW(ModelError, "position of size " << positions[i].size << " but the network plays " << size);
    PackCompactRow(positions[i], syms[i], rows + i * stride);
  }
}

void EncodeCompactRowsOnHost(const uint8_t* rows, int n, int size, float* planes) {
  const int points = size * size;
  const int stride = CompactRowBytes(size);
  for (int i = 0; i < n; ++i)
    for (int p = 0; p < points; ++p)
      EncodeCompactPoint(rows + static_cast<size_t>(i) * stride, size, p,
                         planes + static_cast<size_t>(i) * kCompactPlanes * points);
}

}  // namespace gz
