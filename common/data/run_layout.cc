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
    if (auto n = ParseIterationNumber(e.path().filename().string(), RunLayout::kCheckpointPrefix,
                                      RunLayout::kCheckpointSuffix)) out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, std::string>> RunLayoutExamples() {
  const RunLayout l("");
  const std::vector<std::pair<std::string, std::string>> full = {
      {"metadata", l.metadata()},
      {"config", l.config()},
      {"checkpoints", l.checkpoints()},
      {"checkpoint", l.checkpoint(7)},
      {"games", l.games()},
      {"games_for", l.games_for(7)},
      {"game_file", l.game_file(7, 2, 3)},
      {"game_file_host", l.game_file(7, 2, 3, "hostA")},
      {"generations", l.generations()},
      {"status_dir", l.status_dir()},
      {"status_dir_host", l.status_dir("hostA")},
      {"worker_status", l.worker_status(2)},
      {"worker_status_host", l.worker_status(2, "hostA")},
      {"server_status", l.server_status()},
      {"server_status_host", l.server_status("hostA")},
      {"evaluator_status", l.evaluator_status()},
      {"reload_ack", l.reload_ack("hostA")},
      {"reload_announcement", l.reload_announcement()},
      {"eval_results", l.eval_results()},
      {"ratings", l.ratings()},
      {"trainer_dir", l.trainer_dir()},
      {"logs", l.logs()},
      {"log_file", l.log_file("trainer")},
      {"pids", l.pids()},
      {"pid_file", l.pid_file("trainer")},
      {"worker_pid_file", l.pid_file(RunLayout::worker_name(2))},
      {"default_socket", l.default_socket()},
      {"default_socket_host", l.default_socket("hostA")},
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, path] : full) out.emplace_back(name, path.substr(1));  // drop the "/" after dir ""
  return out;
}

}  // namespace gz
