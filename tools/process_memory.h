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

#include "common/base/periodic_thread.h"

namespace gz {

// Sum of VmRSS over `root` and every descendant, in bytes (0 when root is gone).
int64_t ProcessTreeRssBytes(int root);
// VmHWM (the kernel's peak resident set) of one process, in bytes; 0 when gone.
int64_t ProcessPeakRssBytes(int pid);

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
