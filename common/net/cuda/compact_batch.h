// Host side of the compact rows the GPU encodes (layout: compact_row.h).
// Plain C++, no CUDA or LibTorch: compiled in every build.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>

#include "common/game/board.h"
#include "common/net/cuda/compact_row.h"

namespace gz {

// Writes CompactRowBytes(pos.size) bytes for `pos` under symmetry `sym`.
// Throws GomokuError if pos.cells.size() != size*size (as EncodePosition does)
// or sym is outside [0, 8).
void PackCompactRow(const Position& pos, int sym, uint8_t* row);

// Packs positions[i] under syms[i] into rows (positions.size() rows of
// CompactRowBytes(size) bytes).  Throws GomokuError on a size mismatch between
// the spans, a position of another board size than `size`, or as PackCompactRow.
void PackCompactRows(std::span<const Position> positions, std::span<const uint8_t> syms, int size, uint8_t* rows);

// The host reference of the kernel: EncodeCompactPoint for every point of
// every row.  planes: n x kNumPlanes x size*size floats.
void EncodeCompactRowsOnHost(const uint8_t* rows, int n, int size, float* planes);

}  // namespace gz
