#include "common/config/run_status.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/jsonl.h"
#include "common/config/config.h"
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
  Config cfg;
  try {
    cfg = Config::FromJson(md->config, "metadata.json");
  } catch (const GomokuError& e) {
    s["iteration"] = nullptr;
    warnings.push_back(std::string("metadata.json has an unusable config: ") + e.what());
    s["warnings"] = warnings;
    return s;
  }
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
  int spid = ReadPidFile(layout.pids() + "/server.pid");
  bool server_proc = PidAlive(spid, "infer_server");
  nlohmann::json sstat = ReadJsonFileOrNull(layout.server_status());
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
    int pid = ReadPidFile(layout.pids() + "/worker_" + std::to_string(id) + ".pid");
    nlohmann::json st = ReadJsonFileOrNull(layout.worker_status(id));
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

  // Evaluator (docs/ratings.md): liveness from its status file, the newest
  // rating from the last line of ratings.jsonl.
  nlohmann::json ev = {{"alive", false}, {"enabled", cfg.eval.enabled}};
  const int epid = ReadPidFile(layout.pids() + "/evaluator.pid");
  nlohmann::json est = ReadJsonFileOrNull(layout.status_dir() + "/evaluator.json");
  if (est.is_object()) {
    const std::string state = est.value("state", "unknown");
    const double age = now - est.value("heartbeat", 0.0);
    ev["state"] = state;
    ev["heartbeat_age_s"] = age;
    ev["pid"] = est.value("pid", epid);
    ev["alive"] = state != "stopped" && state != "error" && age <= 10.0 && PidAlive(ev["pid"].get<int>(), "evaluator");
    for (const char* key : {"checkpoint", "opponent", "games_done", "games_total", "message"})
      if (est.contains(key)) ev[key] = est[key];
  }
  s["evaluator"] = ev;
  nlohmann::json newest = nullptr;
  try {
    for (auto& j : ReadJsonLines(layout.dir + "/ratings.jsonl").records)
      if (j.is_object() && j.contains("player")) newest = std::move(j);
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("ratings.jsonl unreadable: ") + e.what());
  }
  if (newest.is_object())
    s["newest_rating"] = {{"iteration", newest.value("iteration", int64_t{-1})},
                          {"player", newest.value("player", "")},
                          {"elo", newest.value("elo", nlohmann::json())},
                          {"elo_low", newest.value("elo_low", nlohmann::json())},
                          {"elo_high", newest.value("elo_high", nlohmann::json())},
                          {"anchor", newest.value("anchor", "")},
                          {"complete", newest.value("complete", false)}};
  else s["newest_rating"] = nullptr;
  if (cfg.eval.enabled && est.is_object() && !ev["alive"].get<bool>() && ev.value("state", "") != "stopped")
    warnings.push_back("evaluator not alive (state " + ev.value("state", std::string("unknown")) + ")");

  // Time table: last N iterations, numeric order.
  std::vector<nlohmann::json> gens;
  try {
    for (auto& j : ReadJsonLines(layout.generations()).records)  // a torn last line is skipped
      if (j.contains("iteration") && j["iteration"].is_number_integer()) gens.push_back(std::move(j));
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("generations.jsonl unreadable: ") + e.what());
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
  s["gpu"] = opt.query_gpu ? GpuInfo() : nlohmann::json(nullptr);
  s["warnings"] = warnings;
  return s;
}

}  // namespace gz
