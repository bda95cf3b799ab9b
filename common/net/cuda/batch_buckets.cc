#include "common/net/cuda/batch_buckets.h"

#include <algorithm>

#include "common/base/errors.h"

namespace gz {

std::vector<int> GraphBatchBuckets(int max_batch) {
  if (max_batch < 1 || max_batch > kMaxForwardBatch)
    GOMOKU_THROW(ConfigError, "forward max_batch " << max_batch << " outside [1, " << kMaxForwardBatch << "]");
  std::vector<int> out;
  for (int power = 1; power <= max_batch; power *= 2) {
    out.push_back(power);
    if (power >= 2 && power / 2 * 3 <= max_batch) out.push_back(power / 2 * 3);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.back() != max_batch) out.push_back(max_batch);
  return out;
}

int BucketFor(const std::vector<int>& buckets, int n) {
  GOMOKU_CHECK(!buckets.empty(), "no batch buckets");
  GOMOKU_CHECK(n >= 1 && n <= buckets.back(), "batch of " << n << " rows outside [1, " << buckets.back() << "]");
  return *std::lower_bound(buckets.begin(), buckets.end(), n);
}

}  // namespace gz
