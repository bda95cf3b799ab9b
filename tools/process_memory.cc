#include "tools/process_memory.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gz {
namespace {

// A "Key:   123 kB" line of /proc/PID/status, in bytes; 0 when absent.
int64_t StatusKb(int pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1)) * 1024;
  return 0;
}

// The parent of every process now: from /proc/PID/stat, whose second field
// (the command name, in parentheses) may itself hold blanks and parentheses.
std::multimap<int, int> ChildrenByParent() {
  std::multimap<int, int> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    int ppid = 0;
    if (rest >> state >> ppid) children.emplace(ppid, std::stoi(name));
  }
  return children;
}

}  // namespace

int64_t ProcessPeakRssBytes(int pid) { return pid > 0 ? StatusKb(pid, "VmHWM") : 0; }

int64_t ProcessTreeRssBytes(int root) {
  if (root <= 0) return 0;
  const std::multimap<int, int> children = ChildrenByParent();
  int64_t total = 0;
  std::vector<int> todo = {root};
  while (!todo.empty()) {
    const int pid = todo.back();
    todo.pop_back();
    total += StatusKb(pid, "VmRSS");
    auto [b, e] = children.equal_range(pid);
    for (auto it = b; it != e; ++it) todo.push_back(it->second);
  }
  return total;
}

std::vector<int> ProcessTreePids(int root) {
  std::vector<int> out;
  if (root <= 0 || !std::filesystem::exists("/proc/" + std::to_string(root))) return out;
  const std::multimap<int, int> children = ChildrenByParent();
  std::vector<int> todo = {root};
  while (!todo.empty()) {
    const int pid = todo.back();
    todo.pop_back();
    out.push_back(pid);
    auto [b, e] = children.equal_range(pid);
    for (auto it = b; it != e; ++it) todo.push_back(it->second);
  }
  return out;
}

int64_t ProcessTreeUssBytes(int root, bool* used_rss) {
  int64_t total = 0;
  for (int pid : ProcessTreePids(root)) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
    int64_t uss = 0;
    bool found = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Private_Clean:", 0) == 0 || line.rfind("Private_Dirty:", 0) == 0) {
        uss += std::stoll(line.substr(line.find(':') + 1)) * 1024;
        found = true;
      }
    }
    if (!found) {
      uss = StatusKb(pid, "VmRSS");
      if (used_rss) *used_rss = true;
    }
    total += uss;
  }
  return total;
}

int SuspendTree(int root) {
  int n = 0;
  for (int pid : ProcessTreePids(root)) n += ::kill(pid, SIGSTOP) == 0 ? 1 : 0;
  return n;
}

int ResumeTree(int root) {
  int n = 0;
  for (int pid : ProcessTreePids(root)) n += ::kill(pid, SIGCONT) == 0 ? 1 : 0;
  return n;
}

TreeMemoryPeak::TreeMemoryPeak(int period_ms) {
  sampler_.Start("TreeMemoryPeak", period_ms / 1000.0, PeriodicThread::FirstTick::kNow, [this] {
    const int64_t now = ProcessTreeRssBytes(pid_.load());
    if (now > peak_.load()) peak_.store(now);
  });
}

}  // namespace gz
