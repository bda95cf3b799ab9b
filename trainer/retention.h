// Checkpoint retention: keep the newest train.keep_last checkpoints plus
// every train.keep_every-th iteration (0 = none), and always the one that
// metadata.json names.  Iterations are compared numerically.
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gz {

// Which of `iterations` (any order) to delete.  `protect` (e.g. the iteration
// metadata.json points at) is never deleted.  Result ascending.
std::vector<int64_t> CheckpointsToDelete(std::vector<int64_t> iterations, int keep_last, int keep_every,
                                         int64_t protect);

// Applies the policy to <checkpoint_dir>/weights_it{N}.pt (found with
// ListCheckpointIterations).  Returns the iterations deleted; a file that
// cannot be deleted is logged and skipped.
std::vector<int64_t> ApplyCheckpointRetention(const std::string& checkpoint_dir, int keep_last, int keep_every,
                                              int64_t protect);

}  // namespace gz
