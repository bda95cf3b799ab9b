// Batch-size buckets for CUDA Graph capture (docs/gpu.md).  A captured graph
// has fixed shapes, so CudaForward captures one graph per bucket and pads each
// batch with rows up to the smallest bucket that holds it.  Plain C++, no
// CUDA: compiled in every build and tested on the CPU.
//
// Buckets: 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, ... (powers of two and three
// times powers of two) up to max_batch, plus max_batch itself.  Padding
// therefore wastes less than a third of a forward (at most 1/3 above 2).
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "common/net/forward_options.h"  // kMaxForwardBatch

namespace gz {

// Ascending bucket sizes.  Throws ConfigError unless 1 <= max_batch <= kMaxForwardBatch.
std::vector<int> GraphBatchBuckets(int max_batch);

// The smallest bucket >= n.  Throws GomokuError unless 1 <= n <= buckets.back()
// (and buckets is non-empty).
int BucketFor(const std::vector<int>& buckets, int n);

}  // namespace gz
