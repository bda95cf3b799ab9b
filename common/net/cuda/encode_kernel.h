// Device-side input encoding: compact rows (compact_row.h) -> network planes,
// on the GPU, so only ~P+4 bytes per row cross the bus instead of 16*P.
// Plain C++ signature (no CUDA headers): the kernel lives in encode_kernel.cu,
// compiled only in CUDA builds (GOMOKU_WITH_CUDA).
//
// Contract: for every row i < n, writes the kNumPlanes x size*size floats at
// planes + i*kNumPlanes*size*size exactly as EncodePosition(pos_i, sym_i)
// (encoder.h) would, bit for bit; every float of those n blocks is written
// (no prior zeroing needed).  Rows are read from device memory `rows`
// (n * CompactRowBytes(size) bytes).  The launch is asynchronous on
// `cuda_stream` (a cudaStream_t; nullptr = the legacy default stream).
// Preconditions: n >= 0, kMinBoardSize <= size <= kMaxBoardSize, both
// pointers are device memory of the current device.  Throws GomokuError if the
// launch fails (errors of the running kernel surface at the next
// synchronisation of the stream).  Thread-safety: as the CUDA stream.
#pragma once

#include <cstdint>

namespace gz {

void LaunchEncodeCompactRows(const uint8_t* rows, int n, int size, float* planes, void* cuda_stream);

}  // namespace gz
