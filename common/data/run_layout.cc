#include "common/data/run_layout.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace gz {

std::optional<int64_t> ParseIterationNumber(const std::string& name, const std::string& prefix,
                                            const std::string& suffix) {
  if (name.size() <= prefix.size() + suffix.size()) return std::nullopt;
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return std::nullopt;
  std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.empty() || digits.size() > 15) return std::nullopt;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoll(digits);
}

bool IsValidHostName(const std::string& host) {
  if (host.empty() || host.size() > 64 || host[0] == '.') return false;
  return std::all_of(host.begin(), host.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.';
  });
}

std::optional<GameFileName> ParseGameFileName(const std::string& name) {
  // Host names have no '_' (run.host's rule), so the parts split on it.
  const size_t first = name.find('_');
  if (first == std::string::npos) return std::nullopt;
  const size_t second = name.find('_', first + 1);
  GameFileName out;
  std::string rest = name;
  if (second != std::string::npos) {
    if (name.find('_', second + 1) != std::string::npos) return std::nullopt;
    out.host = name.substr(0, first);
    if (!IsValidHostName(out.host)) return std::nullopt;
    rest = name.substr(first + 1);
  }
  const size_t us = rest.find("_g");
  if (us == std::string::npos) return std::nullopt;
  auto worker = ParseIterationNumber(rest.substr(0, us), "w", "");
  auto index = ParseIterationNumber(rest.substr(us), "_g", ".npz");
  if (!worker || !index || *worker > 1000000) return std::nullopt;
  out.worker = static_cast<int>(*worker);
  out.index = *index;
  return out;
}

std::vector<int64_t> ListCheckpointIterations(const std::string& checkpoint_dir) {
  std::vector<int64_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(checkpoint_dir, ec)) {
    if (!e.is_regular_file()) continue;
    if (auto n = ParseIterationNumber(e.path().filename().string(), "weights_it", ".pt")) out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gz
