#include "trainer/retention.h"

#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "common/data/run_layout.h"

namespace gz {

std::vector<int64_t> CheckpointsToDelete(std::vector<int64_t> iterations, int keep_last, int keep_every,
                                         int64_t protect) {
  std::sort(iterations.begin(), iterations.end());
  iterations.erase(std::unique(iterations.begin(), iterations.end()), iterations.end());
  std::vector<int64_t> out;
  const int64_t n = static_cast<int64_t>(iterations.size());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t it = iterations[i];
    const bool recent = i >= n - std::max(keep_last, 0);
    const bool milestone = keep_every > 0 && it % keep_every == 0;
    if (recent || milestone || it == protect) continue;
    out.push_back(it);
  }
  return out;
}

std::vector<int64_t> ApplyCheckpointRetention(const std::string& checkpoint_dir, int keep_last, int keep_every,
                                              int64_t protect) {
  std::vector<int64_t> deleted;
  for (int64_t it : CheckpointsToDelete(ListCheckpointIterations(checkpoint_dir), keep_last, keep_every, protect)) {
    std::string path = checkpoint_dir + "/weights_it" + std::to_string(it) + ".pt";
    std::error_code ec;
    if (std::filesystem::remove(path, ec)) {
      deleted.push_back(it);
    } else if (ec) {
      spdlog::warn("retention: could not delete {}: {}", path, ec.message());
    }
  }
  return deleted;
}

}  // namespace gz
