#include "common/data/run_layout.h"

#include <algorithm>
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
