// Reading what the run's other processes leave behind, never trusting it to
// be there or whole: pid files and /proc, JSON status records of a known
// version, and the game files of one iteration with their mtimes.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/run_layout.h"
#include "common/status/run_status.h"

namespace gz {
namespace fs = std::filesystem;

namespace {

double MtimeSeconds(const fs::path& p) {
  std::error_code ec;
  auto t = fs::last_write_time(p, ec);
  if (ec) return 0;
  auto sys = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      t - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
  return std::chrono::duration<double>(sys.time_since_epoch()).count();
}

}  // namespace

int ReadPidFile(const std::string& path) {
  std::ifstream in(path);
  int pid = 0;
  if (in >> pid) return pid;
  return 0;
}

nlohmann::json ReadJsonFileOrNull(const std::string& path) {
  try {
    return nlohmann::json::parse(ReadFileOrThrow(path));
  } catch (const std::exception&) {
    return nullptr;
  }
}

nlohmann::json ReadStatusRecord(const std::string& path, const RecordFormat& format, nlohmann::json& warnings) {
  nlohmann::json j = ReadJsonFileOrNull(path);
  if (!j.is_object()) return nullptr;
  try {
    CheckRecordVersion(j, format, path);
  } catch (const GomokuError& e) {
    warnings.push_back(e.what());
    return nullptr;
  }
  return j;
}

bool PidAlive(int pid, const std::string& needle) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::replace(cmd.begin(), cmd.end(), '\0', ' ');
  // A zombie has an empty command line: not alive.
  return !cmd.empty() && cmd.find(needle) != std::string::npos;
}

IterationGames CollectIterationGames(const std::string& games_dir) {
  IterationGames g;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(games_dir, ec)) {
    std::string name = e.path().filename().string();
    if (IsTempName(name)) continue;
    std::optional<GameFileName> parsed = ParseGameFileName(name);
    if (!parsed) continue;
    double t = MtimeSeconds(e.path());
    g.times.push_back(t);
    if (!parsed->host.empty()) {
      g.host_times[parsed->host].push_back(t);
      continue;
    }
    ++g.per_worker[parsed->worker];
    g.last_game[parsed->worker] = std::max(g.last_game[parsed->worker], t);
  }
  return g;
}

double GameRateWindow::PerMinute(const std::vector<double>& times) const {
  const auto recent = std::count_if(times.begin(), times.end(), [&](double t) { return t >= window_start; });
  return 60.0 * static_cast<double>(recent) / span;
}

}  // namespace gz
