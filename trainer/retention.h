// Checkpoint retention: keep the newest train.keep_last checkpoints plus
// every train.keep_every-th iteration (0 = none), and always the protected
// ones: the one metadata.json names, and those the evaluator pins (the
// previous:K and checkpoint:N opponents of its next evaluations, listed in
// status/evaluator.json "pinned_checkpoints").  Iterations are compared
// numerically.
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gz {

// Which of `iterations` (any order) to delete.  No iteration in `protect`
// (e.g. the one metadata.json points at) is deleted.  Result ascending.
std::vector<int64_t> CheckpointsToDelete(std::vector<int64_t> iterations, int keep_last, int keep_every,
                                         const std::vector<int64_t>& protect);

// The iterations the evaluator pins in its status file (`status_path`, i.e.
// RUN/status/evaluator.json).  No file: none.  A file that cannot be parsed,
// of a format_version this build does not read, or whose "pinned_checkpoints"
// is not a list of integers, is logged (warn)
// and pins none: retention then runs as if no evaluator were there.
std::vector<int64_t> EvaluatorPinnedCheckpoints(const std::string& status_path);

// Applies the policy to <checkpoint_dir>/weights_it{N}.pt (found with
// ListCheckpointIterations).  Returns the iterations deleted; a file that
// cannot be deleted is logged and skipped.
std::vector<int64_t> ApplyCheckpointRetention(const std::string& checkpoint_dir, int keep_last, int keep_every,
                                              const std::vector<int64_t>& protect);

}  // namespace gz
