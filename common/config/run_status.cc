#include "common/config/run_status.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
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
  std::map<int, int> per_worker;     // this machine's workers (no host in the name)
  std::map<int, double> last_game;
  std::vector<double> times;
  std::map<std::string, std::vector<double>> host_times;  // self-play hosts of a multi-host run
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layout.games_for(it), ec)) {
    std::string name = e.path().filename().string();
    if (IsTempName(name)) continue;
    std::optional<GameFileName> parsed = ParseGameFileName(name);
    if (!parsed) continue;
    double t = MtimeSeconds(e.path());
    times.push_back(t);
    if (!parsed->host.empty()) {
      host_times[parsed->host].push_back(t);
      continue;
    }
    ++per_worker[parsed->worker];
    last_game[parsed->worker] = std::max(last_game[parsed->worker], t);
  }
  const int k = static_cast<int>(times.size());
  s["games"] = k;
  const double it_start = md->updated_at > 0 ? md->updated_at : now;
  const double window_start = std::max(it_start, now - opt.rate_window_s);
  const double span = std::max(1.0, now - window_start);
  auto per_min = [&](const std::vector<double>& ts) {
    const auto recent = std::count_if(ts.begin(), ts.end(), [&](double t) { return t >= window_start; });
    return 60.0 * static_cast<double>(recent) / span;
  };
  const double rate = per_min(times) / 60.0;  // games per second
  s["games_per_min"] = rate * 60;
  if (k >= target) s["eta_s"] = 0;
  else if (rate > 0) s["eta_s"] = (target - k) / rate;
  else s["eta_s"] = nullptr;
  s["iteration_elapsed_s"] = now - it_start;

  // Self-play hosts (multi-host run): each from its own status/{host}/ files.
  // Ages use the writers' wall clocks here (display only; the trainer's
  // liveness rule does not, see trainer/host_acks.h).
  std::set<std::string> host_names;
  for (const auto& [h, unused] : host_times) host_names.insert(h);
  for (const auto& e : fs::directory_iterator(layout.status_dir(), ec))
    if (e.is_directory()) host_names.insert(e.path().filename().string());
  nlohmann::json hosts = nlohmann::json::array();
  for (const std::string& h : host_names) {
    nlohmann::json host = {{"host", h}};
    nlohmann::json ack = ReadJsonFileOrNull(layout.reload_ack(h));
    nlohmann::json hs = {{"alive", false}};
    if (ack.is_object()) {
      const double age = now - ack.value("updated_at", 0.0);
      hs["heartbeat_age_s"] = age;
      hs["alive"] = age <= cfg.run.host_timeout_s;
      hs["serving_generation"] = ack.value("serving_generation", int64_t{-1});
      hs["pid"] = ack.value("pid", int64_t{0});
      if (ack.contains("announcement")) hs["announcement"] = ack["announcement"];
    }
    nlohmann::json hstat = ReadJsonFileOrNull(layout.server_status(h));
    if (hstat.is_object())
      for (const char* key : {"avg_batch", "positions_per_s", "avg_forward_ms", "device"})
        if (hstat.contains(key)) hs[key] = hstat[key];
    host["server"] = hs;
    nlohmann::json hw = nlohmann::json::array();
    int hw_alive = 0;
    for (const auto& e : fs::directory_iterator(layout.status_dir(h), ec)) {
      auto wid = ParseIterationNumber(e.path().filename().string(), "worker_", ".json");
      if (!wid) continue;
      nlohmann::json st = ReadJsonFileOrNull(e.path().string());
      if (!st.is_object()) continue;
      const double age = now - st.value("updated_at", 0.0);
      const bool alive = age <= opt.server_stale_s;
      hw_alive += alive ? 1 : 0;
      hw.push_back({{"id", *wid}, {"alive", alive}, {"status_age_s", age}, {"mode", st.value("mode", "unknown")},
                    {"games_total", st.value("games_total", int64_t{0})},
                    {"fallbacks_total", st.value("fallbacks_total", int64_t{0})}});
    }
    std::sort(hw.begin(), hw.end(), [](const auto& a, const auto& b) { return a["id"] < b["id"]; });
    host["workers"] = hw;
    host["workers_alive"] = hw_alive;
    const auto ht = host_times.find(h);
    host["games_this_iteration"] = ht == host_times.end() ? 0 : static_cast<int>(ht->second.size());
    host["games_per_min"] = ht == host_times.end() ? 0.0 : per_min(ht->second);
    if (ack.is_object() && !hs["alive"].get<bool>())
      warnings.push_back("self-play host " + h + ": no heartbeat for " +
                         std::to_string(static_cast<int>(hs["heartbeat_age_s"].get<double>())) + " s");
    hosts.push_back(host);
  }
  s["hosts"] = hosts;
  const bool multi_host = !hosts.empty();

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
  // A multi-host run may have no self-play on this machine at all.
  const bool local_selfplay = !multi_host || sstat.is_object() || spid != 0;
  s["local_selfplay"] = local_selfplay;
  if (!server["alive"].get<bool>() && local_selfplay) warnings.push_back("inference server not alive (stats older than " +
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
