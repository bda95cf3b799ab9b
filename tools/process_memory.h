// Resident memory of a process tree, read from Linux's /proc: what Gomocup
// limits (350 MB "over the whole process tree").  A brain run under wine is
// one Linux process for the Windows process (wineserver and wine's services
// are not its descendants once the prefix is up), so its figure is what the
// Windows process holds plus wine's own libraries in it.
// Thread-safety: the free functions are; TreeMemoryPeak's methods may be
// called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/base/periodic_thread.h"

namespace gz {

// Sum of VmRSS over `root` and every descendant, in bytes (0 when root is gone).
int64_t ProcessTreeRssBytes(int root);
// VmHWM (the kernel's peak resident set) of one process, in bytes; 0 when gone.
int64_t ProcessPeakRssBytes(int pid);
// `root` and its descendants now (empty when root <= 0 or gone).
std::vector<int> ProcessTreePids(int root);
// What the Gomocup manager sums against max_memory after each move: the
// unique set size (Private_Clean + Private_Dirty of /proc/PID/smaps_rollup)
// of root and every descendant, in bytes; a process whose smaps_rollup cannot
// be read (older kernels) counts its VmRSS instead.  *used_rss (optional) is
// set when any process fell back to RSS.
int64_t ProcessTreeUssBytes(int root, bool* used_rss = nullptr);
// SIGSTOP / SIGCONT to root and every descendant, as the manager suspends a
// brain between its moves (psutil suspend; under wine the Windows process is
// the wine process the brain command started, and its children).  Returns
// the number of processes signalled.
int SuspendTree(int root);
int ResumeTree(int root);

// Samples ProcessTreeRssBytes of the process set with Watch() every
// `period_ms` on a thread of its own (from construction to destruction) and
// keeps the largest sum seen.
class TreeMemoryPeak {
 public:
  explicit TreeMemoryPeak(int period_ms = 100);
  void Watch(int pid) { pid_.store(pid); }  // -1: nothing
  int64_t peak() const { return peak_.load(); }

 private:
  std::atomic<int> pid_{-1};
  std::atomic<int64_t> peak_{0};
  PeriodicThread sampler_;  // last member: stopped before the counters go
};

}  // namespace gz
