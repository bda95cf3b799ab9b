// The CUDA kernel behind LaunchEncodeCompactRows (encode_kernel.h).  One
// thread per (row, point); each writes its point's image in all five planes
// through the same EncodeCompactPoint, at the same row stride (kCompactPlanes
// planes), as the host copy that the tests exercise.
#include "common/net/cuda/encode_kernel.h"

#include <cuda_runtime_api.h>

#include "common/base/errors.h"
#include "common/net/cuda/compact_row.h"

namespace gz {
namespace {

constexpr int kThreadsPerBlock = 256;

__global__ void EncodeCompactRowsKernel(const uint8_t* __restrict__ rows, int64_t total, int size,
                                        float* __restrict__ planes) {
  const int64_t index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= total) return;
  const int points = size * size;
  const int64_t row = index / points;
  const int p = static_cast<int>(index - row * points);
  EncodeCompactPoint(rows + row * CompactRowBytes(size), size, p, planes + row * kCompactPlanes * points);
}

}  // namespace

void LaunchEncodeCompactRows(const uint8_t* rows, int n, int size, float* planes, void* cuda_stream) {
  GOMOKU_CHECK(n >= 0, "encode: negative row count " << n);
  GOMOKU_CHECK(size >= 1 && size <= 64, "encode: board size " << size << " out of range");
  if (n == 0) return;
  const int64_t total = static_cast<int64_t>(n) * size * size;
  const int64_t blocks = (total + kThreadsPerBlock - 1) / kThreadsPerBlock;
  EncodeCompactRowsKernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0,
                            static_cast<cudaStream_t>(cuda_stream)>>>(rows, total, size, planes);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    GOMOKU_THROW(GomokuError, "encode kernel launch for " << n << " rows failed: " << cudaGetErrorString(err));
}

}  // namespace gz
