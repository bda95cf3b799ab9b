#include "tools/status_lib.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/config/config.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"

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

int ReadPid(const std::string& path) {
  std::ifstream in(path);
  int pid = 0;
  if (in >> pid) return pid;
  return 0;
}

nlohmann::json ReadJsonFile(const std::string& path) {
  try {
    return nlohmann::json::parse(ReadFileOrThrow(path));
  } catch (const std::exception&) {
    return nullptr;
  }
}

nlohmann::json GpuInfo() {
  FILE* f = ::popen("nvidia-smi --query-gpu=utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits 2>/dev/null", "r");
  if (!f) return nullptr;
  char buf[256];
  std::string out;
  while (fgets(buf, sizeof buf, f)) out += buf;
  int rc = ::pclose(f);
  if (rc != 0 || out.empty()) return nullptr;
  nlohmann::json gpus = nlohmann::json::array();
  std::istringstream ls(out);
  std::string line;
  while (std::getline(ls, line)) {
    double u = 0, used = 0, total = 0;
    if (std::sscanf(line.c_str(), "%lf, %lf, %lf", &u, &used, &total) == 3)
      gpus.push_back({{"utilization_pct", u}, {"memory_used_mib", used}, {"memory_total_mib", total}});
  }
  return gpus;
}

}  // namespace

bool PidAlive(int pid, const std::string& needle) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::replace(cmd.begin(), cmd.end(), '\0', ' ');
  // A zombie has an empty command line: not alive.
  return !cmd.empty() && cmd.find(needle) != std::string::npos;
}

nlohmann::json CollectStatus(const StatusOptions& opt) {
  RunLayout layout(opt.run_dir);
  const double now = NowSeconds();
  nlohmann::json s = {{"run_dir", opt.run_dir}, {"now", now}};
  nlohmann::json warnings = nlohmann::json::array();
  std::optional<Metadata> md;
  try {
    md = ReadMetadata(layout.metadata());
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("metadata.json unreadable: ") + e.what());
  }
  if (!md) {
    s["iteration"] = nullptr;
    warnings.push_back("no metadata.json yet (the trainer has not started or not finished its cold start)");
    s["warnings"] = warnings;
    return s;
  }
  Config cfg = Config::FromJson(md->config, "metadata.json");
  const int64_t it = md->iteration;
  const int target = cfg.run.target_games;
  s["iteration"] = it;
  s["model_generation_published"] = md->model_generation;
  s["target_games"] = target;
  s["worker_count"] = cfg.run.worker_count;
  s["games_per_worker"] = cfg.run.worker_games_per_worker;

  // Games of the current iteration, from the files themselves.
  std::map<int, int> per_worker;
  std::map<int, double> last_game;
  std::vector<double> times;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layout.games_for(it), ec)) {
    std::string name = e.path().filename().string();
    if (IsTempName(name) || name.size() < 6 || name[0] != 'w') continue;
    auto us = name.find("_g");
    if (us == std::string::npos || !ParseIterationNumber(name.substr(us), "_g", ".npz")) continue;
    auto wid = ParseIterationNumber(name.substr(0, us), "w", "");
    if (!wid) continue;
    double t = MtimeSeconds(e.path());
    ++per_worker[static_cast<int>(*wid)];
    last_game[static_cast<int>(*wid)] = std::max(last_game[static_cast<int>(*wid)], t);
    times.push_back(t);
  }
  const int k = static_cast<int>(times.size());
  s["games"] = k;
  const double it_start = md->updated_at > 0 ? md->updated_at : now;
  const double window_start = std::max(it_start, now - opt.rate_window_s);
  int recent = static_cast<int>(std::count_if(times.begin(), times.end(), [&](double t) { return t >= window_start; }));
  double span = std::max(1.0, now - window_start);
  double rate = recent / span;  // games per second
  s["games_per_min"] = rate * 60;
  if (k >= target) s["eta_s"] = 0;
  else if (rate > 0) s["eta_s"] = (target - k) / rate;
  else s["eta_s"] = nullptr;
  s["iteration_elapsed_s"] = now - it_start;

  // Server.
  nlohmann::json server = {{"alive", false}};
  int spid = ReadPid(layout.pids() + "/server.pid");
  bool server_proc = PidAlive(spid, "infer_server");
  nlohmann::json sstat = ReadJsonFile(layout.server_status());
  if (sstat.is_object()) {
    double age = now - sstat.value("updated_at", sstat.value("timestamp", 0.0));
    server["stats_age_s"] = age;
    server["alive"] = age <= opt.server_stale_s && (spid == 0 || server_proc);
    for (const char* key : {"avg_batch", "requests_per_s", "positions_per_s", "model_generation", "avg_forward_ms",
                            "cache_hit_rate", "device"})
      if (sstat.contains(key)) server[key] = sstat[key];
  }
  server["pid"] = spid;
  server["process_alive"] = server_proc;
  s["server"] = server;

  // Workers: ids 0..worker_count-1 from metadata's config, never a constant.
  nlohmann::json workers = nlohmann::json::array();
  int local_while_server = 0;
  for (int id = 0; id < cfg.run.worker_count; ++id) {
    nlohmann::json w = {{"id", id}};
    int pid = ReadPid(layout.pids() + "/worker_" + std::to_string(id) + ".pid");
    nlohmann::json st = ReadJsonFile(layout.worker_status(id));
    if (pid == 0 && st.is_object()) pid = st.value("pid", 0);
    w["pid"] = pid;
    w["alive"] = PidAlive(pid, "worker");
    w["mode"] = st.is_object() ? st.value("mode", "unknown") : "unknown";
    w["fallbacks_total"] = st.is_object() ? st.value("fallbacks_total", int64_t{0}) : int64_t{0};
    w["games_this_iteration"] = per_worker.count(id) ? per_worker[id] : 0;
    if (last_game.count(id)) w["since_last_game_s"] = now - last_game[id];
    else w["since_last_game_s"] = nullptr;
    if (w["alive"].get<bool>() && w["mode"] == "local" && server["alive"].get<bool>()) ++local_while_server;
    workers.push_back(w);
  }
  s["workers"] = workers;
  int alive = 0;
  for (auto& w : workers) alive += w["alive"].get<bool>() ? 1 : 0;
  s["workers_alive"] = alive;
  if (local_while_server > 0)
    warnings.push_back(std::to_string(local_while_server) +
                       " worker(s) run LOCAL inference while the server is up (check their logs for 'falling back')");
  if (!server["alive"].get<bool>()) warnings.push_back("inference server not alive (stats older than " +
                                                       std::to_string(static_cast<int>(opt.server_stale_s)) + " s or missing)");

  // Time table: last N iterations, numeric order.
  std::vector<nlohmann::json> gens;
  std::ifstream gf(layout.generations());
  std::string line;
  while (std::getline(gf, line)) {
    try {
      auto j = nlohmann::json::parse(line);
      if (j.contains("iteration")) gens.push_back(j);
    } catch (const std::exception&) {
      // a torn last line (trainer killed mid-append) is skipped
    }
  }
  std::sort(gens.begin(), gens.end(), [](const auto& a, const auto& b) {
    return a["iteration"].template get<int64_t>() < b["iteration"].template get<int64_t>();
  });
  if (static_cast<int>(gens.size()) > opt.generations) gens.erase(gens.begin(), gens.end() - opt.generations);
  nlohmann::json table = nlohmann::json::array();
  for (auto& g : gens)
    table.push_back({{"iteration", g["iteration"]},
                     {"selfplay_s", g.value("selfplay_s", 0.0)},
                     {"training_s", g.value("training_s", 0.0)},
                     {"total_s", g.value("total_s", 0.0)},
                     {"games_used", g.value("games_used", 0)}});
  s["generations"] = table;
  s["gpu"] = GpuInfo();
  s["warnings"] = warnings;
  return s;
}

std::string FormatStatus(const nlohmann::json& s) {
  std::ostringstream os;
  char buf[512];
  os << "run: " << s["run_dir"].get<std::string>() << "\n";
  if (s["iteration"].is_null()) {
    for (auto& w : s["warnings"]) os << "WARNING: " << w.get<std::string>() << "\n";
    return os.str();
  }
  std::string eta = s["eta_s"].is_null() ? "unknown (no games yet)" : [&] {
    char b[64];
    std::snprintf(b, sizeof b, "%.0f s", s["eta_s"].get<double>());
    return std::string(b);
  }();
  std::snprintf(buf, sizeof buf, "iteration %lld: %d/%d games, %.1f games/min, ETA %s (elapsed %.0f s)\n",
                static_cast<long long>(s["iteration"].get<int64_t>()), s["games"].get<int>(),
                s["target_games"].get<int>(), s["games_per_min"].get<double>(), eta.c_str(),
                s["iteration_elapsed_s"].get<double>());
  os << buf;
  const auto& sv = s["server"];
  if (sv["alive"].get<bool>()) {
    std::snprintf(buf, sizeof buf, "server: alive (stats %.0f s old), avg batch %.2f, %.0f req/s, model generation %lld\n",
                  sv.value("stats_age_s", 0.0), sv.value("avg_batch", 0.0), sv.value("requests_per_s", 0.0),
                  static_cast<long long>(sv.value("model_generation", 0)));
  } else {
    std::snprintf(buf, sizeof buf, "server: NOT ALIVE (pid %d, process %s)\n", sv.value("pid", 0),
                  sv.value("process_alive", false) ? "running but stats stale" : "not running");
  }
  os << buf;
  std::snprintf(buf, sizeof buf, "workers: %d of %d alive\n", s["workers_alive"].get<int>(), s["worker_count"].get<int>());
  os << buf << "  id  alive  mode    fallbacks  games  since-last-game\n";
  for (const auto& w : s["workers"]) {
    std::string since = w["since_last_game_s"].is_null() ? "-" : std::to_string(static_cast<int>(w["since_last_game_s"].get<double>())) + " s";
    std::snprintf(buf, sizeof buf, "  %2d  %-5s  %-6s  %9lld  %5d  %s\n", w["id"].get<int>(),
                  w["alive"].get<bool>() ? "yes" : "NO", w["mode"].get<std::string>().c_str(),
                  static_cast<long long>(w["fallbacks_total"].get<int64_t>()), w["games_this_iteration"].get<int>(),
                  since.c_str());
    os << buf;
  }
  os << "last iterations (seconds):\n  iteration  self-play  training    total  games\n";
  for (const auto& g : s["generations"]) {
    std::snprintf(buf, sizeof buf, "  %9lld  %9.1f  %8.1f  %7.1f  %5d\n", static_cast<long long>(g["iteration"].get<int64_t>()),
                  g["selfplay_s"].get<double>(), g["training_s"].get<double>(), g["total_s"].get<double>(),
                  g["games_used"].get<int>());
    os << buf;
  }
  if (s["gpu"].is_array())
    for (const auto& g : s["gpu"]) {
      std::snprintf(buf, sizeof buf, "gpu: %.0f%% busy, %.0f / %.0f MiB\n", g["utilization_pct"].get<double>(),
                    g["memory_used_mib"].get<double>(), g["memory_total_mib"].get<double>());
      os << buf;
    }
  for (auto& w : s["warnings"]) os << "WARNING: " << w.get<std::string>() << "\n";
  return os.str();
}

}  // namespace gz
