// The stop flag of a long-running binary: SIGINT and SIGTERM raise it, and
// SIGPIPE is ignored (a write to a closed socket or pipe then fails with
// EPIPE, which the caller handles, instead of killing the process).
//
// Call once, from main(), before starting threads.  The returned flag lives
// for the whole process; reading it is thread-safe.
#pragma once

#include <atomic>

namespace gz {

// `restart_syscalls`: SA_RESTART, so a blocking read or write interrupted by
// the signal resumes instead of failing with EINTR (the worker's socket reads
// rely on it; the trainer and evaluator poll and want the early return).
const std::atomic<bool>& InstallStopSignals(bool restart_syscalls);

}  // namespace gz
