#include "common/status/run_status.h"

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
#include "common/config/config.h"
#include "common/data/host_reload.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
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

namespace {

// One self-play host's server: its reload ack (heartbeat) and its stats.
nlohmann::json HostServer(const RunLayout& layout, const std::string& h, const std::optional<HostAck>& ack,
                          double host_timeout_s, double now, nlohmann::json& warnings) {
  nlohmann::json hs = {{"alive", false}};
  if (ack) {
    const double age = now - ack->updated_at;
    hs["heartbeat_age_s"] = age;
    hs["alive"] = age <= host_timeout_s;
    hs["serving_generation"] = ack->serving_generation;
    hs["pid"] = ack->pid;
    hs["announcement"] = nullptr;
    if (ack->has_announcement)
      hs["announcement"] = {{"generation", ack->announced_generation}, {"ok", ack->announcement_ok},
                            {"reason", ack->announcement_reason},     {"at", ack->announcement_at}};
  }
  nlohmann::json hstat = ReadStatusRecord(layout.server_status(h), kServerStatusRecord, warnings);
  if (hstat.is_object())
    for (const char* key : {fields::server_status::kAvgBatch, fields::server_status::kPositionsPerS,
                            fields::server_status::kAvgForwardMs, fields::server_status::kDevice})
      if (hstat.contains(key)) hs[key] = hstat[key];
  return hs;
}

// One self-play host's workers, from their status/{host}/worker_*.json, by id.
nlohmann::json HostWorkers(const RunLayout& layout, const std::string& h, double worker_stale_s, double now,
                           int* alive_count, nlohmann::json& warnings) {
  namespace f = fields::worker_status;
  nlohmann::json hw = nlohmann::json::array();
  int hw_alive = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layout.status_dir(h), ec)) {
    auto wid = ParseIterationNumber(e.path().filename().string(), RunLayout::kWorkerPrefix, RunLayout::kJsonSuffix);
    if (!wid) continue;
    nlohmann::json st = ReadStatusRecord(e.path().string(), kWorkerStatusRecord, warnings);
    if (!st.is_object()) continue;
    const double age = now - st.value(f::kUpdatedAt, 0.0);
    const bool alive = age <= worker_stale_s;
    hw_alive += alive ? 1 : 0;
    hw.push_back({{"id", *wid}, {"alive", alive}, {"status_age_s", age}, {"mode", st.value(f::kMode, "unknown")},
                  {"games_total", st.value(f::kGamesTotal, int64_t{0})},
                  {"fallbacks_total", st.value(f::kFallbacksTotal, int64_t{0})}});
  }
  std::sort(hw.begin(), hw.end(), [](const auto& a, const auto& b) { return a["id"] < b["id"]; });
  *alive_count = hw_alive;
  return hw;
}

}  // namespace

// Self-play hosts (multi-host run): each from its own status/{host}/ files.
// Ages use the writers' wall clocks here (display only; the trainer's
// liveness rule does not, see trainer/host_acks.h).
nlohmann::json CollectHosts(const RunLayout& layout, const IterationGames& games, const GameRateWindow& rate,
                            double host_timeout_s, double worker_stale_s, double now, nlohmann::json& warnings) {
  std::set<std::string> host_names;
  for (const auto& [h, unused] : games.host_times) host_names.insert(h);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layout.status_dir(), ec))
    if (e.is_directory()) host_names.insert(e.path().filename().string());
  nlohmann::json hosts = nlohmann::json::array();
  for (const std::string& h : host_names) {
    nlohmann::json host = {{"host", h}};
    std::optional<HostAck> ack;
    try {
      ack = ReadHostAck(layout.reload_ack(h));  // its version checked there
    } catch (const GomokuError& e) {
      warnings.push_back(e.what());
    }
    nlohmann::json hs = HostServer(layout, h, ack, host_timeout_s, now, warnings);
    host["server"] = hs;
    int hw_alive = 0;
    host["workers"] = HostWorkers(layout, h, worker_stale_s, now, &hw_alive, warnings);
    host["workers_alive"] = hw_alive;
    const auto ht = games.host_times.find(h);
    host["games_this_iteration"] = ht == games.host_times.end() ? 0 : static_cast<int>(ht->second.size());
    host["games_per_min"] = ht == games.host_times.end() ? 0.0 : rate.PerMinute(ht->second);
    if (ack && !hs["alive"].get<bool>())
      warnings.push_back("self-play host " + h + ": no heartbeat for " +
                         std::to_string(static_cast<int>(hs["heartbeat_age_s"].get<double>())) + " s");
    hosts.push_back(host);
  }
  return hosts;
}

nlohmann::json CollectServer(const RunLayout& layout, double stale_s, double now, nlohmann::json& warnings) {
  nlohmann::json server = {{"alive", false}};
  int spid = ReadPidFile(layout.pid_file("server"));
  bool server_proc = PidAlive(spid, "infer_server");
  nlohmann::json sstat = ReadStatusRecord(layout.server_status(), kServerStatusRecord, warnings);
  if (sstat.is_object()) {
    namespace f = fields::server_status;
    double age = now - sstat.value(f::kUpdatedAt, sstat.value(f::kTimestamp, 0.0));
    server["stats_age_s"] = age;
    server["alive"] = age <= stale_s && (spid == 0 || server_proc);
    for (const char* key : {f::kAvgBatch, f::kRequestsPerS, f::kPositionsPerS, f::kModelGeneration, f::kAvgForwardMs,
                            f::kCacheHitRate, f::kDevice})
      if (sstat.contains(key)) server[key] = sstat[key];
  }
  server["pid"] = spid;
  server["process_alive"] = server_proc;
  return server;
}

// Workers: ids 0..worker_count-1 from metadata's config, never a constant.
nlohmann::json CollectWorkers(const RunLayout& layout, int worker_count, const IterationGames& games,
                              bool server_alive, double now, nlohmann::json& warnings) {
  nlohmann::json workers = nlohmann::json::array();
  int local_while_server = 0;
  for (int id = 0; id < worker_count; ++id) {
    nlohmann::json w = {{"id", id}};
    int pid = ReadPidFile(layout.pid_file(RunLayout::worker_name(id)));
    nlohmann::json st = ReadStatusRecord(layout.worker_status(id), kWorkerStatusRecord, warnings);
    namespace f = fields::worker_status;
    if (pid == 0 && st.is_object()) pid = st.value(f::kPid, 0);
    w["pid"] = pid;
    w["alive"] = PidAlive(pid, "worker");
    w["mode"] = st.is_object() ? st.value(f::kMode, "unknown") : "unknown";
    w["fallbacks_total"] = st.is_object() ? st.value(f::kFallbacksTotal, int64_t{0}) : int64_t{0};
    const auto n = games.per_worker.find(id);
    w["games_this_iteration"] = n != games.per_worker.end() ? n->second : 0;
    const auto last = games.last_game.find(id);
    if (last != games.last_game.end()) w["since_last_game_s"] = now - last->second;
    else w["since_last_game_s"] = nullptr;
    if (w["alive"].get<bool>() && w["mode"] == "local" && server_alive) ++local_while_server;
    workers.push_back(w);
  }
  if (local_while_server > 0)
    warnings.push_back(std::to_string(local_while_server) +
                       " worker(s) run LOCAL inference while the server is up (check their logs for 'falling back')");
  return workers;
}

// Evaluator (docs/ratings.md): liveness from its status file.
nlohmann::json CollectEvaluator(const RunLayout& layout, bool enabled, double now, nlohmann::json& warnings) {
  namespace f = fields::evaluator_status;
  nlohmann::json ev = {{"alive", false}, {"enabled", enabled}};
  const int epid = ReadPidFile(layout.pid_file("evaluator"));
  nlohmann::json est = ReadStatusRecord(layout.evaluator_status(), kEvaluatorStatusRecord, warnings);
  if (est.is_object()) {
    const std::string state = est.value(f::kState, "unknown");
    const double age = now - est.value(f::kHeartbeat, 0.0);
    ev["state"] = state;
    ev["heartbeat_age_s"] = age;
    ev["pid"] = est.value(f::kPid, epid);
    ev["alive"] = state != "stopped" && state != "error" && age <= 10.0 && PidAlive(ev["pid"].get<int>(), "evaluator");
    for (const char* key : {f::kCheckpoint, f::kOpponent, f::kGamesDone, f::kGamesTotal, f::kMessage})
      if (est.contains(key)) ev[key] = est[key];
  }
  return ev;
}

// The newest rating, from the last line of ratings.jsonl that names a player.
nlohmann::json CollectNewestRating(const RunLayout& layout, nlohmann::json& warnings) {
  namespace f = fields::rating;
  nlohmann::json newest = nullptr;
  try {
    for (auto& j : ReadRecordLines(layout.ratings(), kRatingRecord))
      if (j.contains(f::kPlayer)) newest = std::move(j);
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("ratings.jsonl unreadable: ") + e.what());
  }
  if (!newest.is_object()) return nullptr;
  return {{"iteration", newest.value(f::kIteration, int64_t{-1})},
          {"player", newest.value(f::kPlayer, "")},
          {"elo", newest.value(f::kElo, nlohmann::json())},
          {"elo_low", newest.value(f::kEloLow, nlohmann::json())},
          {"elo_high", newest.value(f::kEloHigh, nlohmann::json())},
          {"anchor", newest.value(f::kAnchor, "")},
          {"complete", newest.value(f::kComplete, false)}};
}

// Time table: last N iterations, numeric order.
nlohmann::json CollectGenerations(const RunLayout& layout, int count, nlohmann::json& warnings) {
  namespace f = fields::generation;
  std::vector<nlohmann::json> gens;
  try {
    for (auto& j : ReadRecordLines(layout.generations(), kGenerationRecord))  // a torn last line is skipped
      if (j.contains(f::kIteration) && j[f::kIteration].is_number_integer()) gens.push_back(std::move(j));
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("generations.jsonl unreadable: ") + e.what());
  }
  std::sort(gens.begin(), gens.end(), [](const auto& a, const auto& b) {
    return a[f::kIteration].template get<int64_t>() < b[f::kIteration].template get<int64_t>();
  });
  if (static_cast<int>(gens.size()) > count) gens.erase(gens.begin(), gens.end() - count);
  nlohmann::json table = nlohmann::json::array();
  for (auto& g : gens)
    table.push_back({{"iteration", g[f::kIteration]},
                     {"selfplay_s", g.value(f::kSelfplayS, 0.0)},
                     {"training_s", g.value(f::kTrainingS, 0.0)},
                     {"total_s", g.value(f::kTotalS, 0.0)},
                     {"games_used", g.value(f::kGamesUsed, 0)}});
  return table;
}

namespace {

// The run's metadata.json and the config in it; nullopt (after the warning
// that says why) when there is none or it is unusable.
std::optional<std::pair<Metadata, Config>> ReadRunState(const RunLayout& layout, nlohmann::json& warnings) {
  std::optional<Metadata> md;
  try {
    md = ReadMetadata(layout.metadata());
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("metadata.json unreadable: ") + e.what());
  }
  if (!md) {
    warnings.push_back("no metadata.json yet (the trainer has not started or not finished its cold start)");
    return std::nullopt;
  }
  try {
    Config cfg = Config::FromJson(md->config, "metadata.json");
    return std::make_pair(std::move(*md), std::move(cfg));
  } catch (const GomokuError& e) {
    warnings.push_back(std::string("metadata.json has an unusable config: ") + e.what());
    return std::nullopt;
  }
}

}  // namespace

nlohmann::json CollectStatus(const StatusOptions& opt) {
  RunLayout layout(opt.run_dir);
  const double now = NowSeconds();
  nlohmann::json s = {{"run_dir", opt.run_dir}, {"now", now}};
  nlohmann::json warnings = nlohmann::json::array();
  auto state = ReadRunState(layout, warnings);
  if (!state) {
    s["iteration"] = nullptr;
    s["warnings"] = warnings;
    return s;
  }
  const Metadata& md = state->first;
  const Config& cfg = state->second;
  const int64_t it = md.iteration;
  const int target = cfg.run.target_games;
  s["iteration"] = it;
  s["model_generation_published"] = md.model_generation;
  s["target_games"] = target;
  s["worker_count"] = cfg.run.worker_count;
  s["games_per_worker"] = cfg.run.worker_games_per_worker;

  // Games of the current iteration, from the files themselves.
  const IterationGames games = CollectIterationGames(layout.games_for(it));
  const int k = static_cast<int>(games.times.size());
  s["games"] = k;
  const double it_start = md.updated_at > 0 ? md.updated_at : now;
  GameRateWindow window;
  window.window_start = std::max(it_start, now - opt.rate_window_s);
  window.span = std::max(1.0, now - window.window_start);
  const double rate = window.PerMinute(games.times) / 60.0;  // games per second
  s["games_per_min"] = rate * 60;
  if (k >= target) s["eta_s"] = 0;
  else if (rate > 0) s["eta_s"] = (target - k) / rate;
  else s["eta_s"] = nullptr;
  s["iteration_elapsed_s"] = now - it_start;

  s["hosts"] = CollectHosts(layout, games, window, cfg.run.host_timeout_s, opt.server_stale_s, now, warnings);
  const bool multi_host = !s["hosts"].empty();
  const nlohmann::json server = CollectServer(layout, opt.server_stale_s, now, warnings);
  s["server"] = server;
  const bool server_alive = server["alive"].get<bool>();
  s["workers"] = CollectWorkers(layout, cfg.run.worker_count, games, server_alive, now, warnings);
  int alive = 0;
  for (auto& w : s["workers"]) alive += w["alive"].get<bool>() ? 1 : 0;
  s["workers_alive"] = alive;
  // A multi-host run may have no self-play on this machine at all (no server
  // stats, no server pid file).
  const bool local_selfplay = !multi_host || server.contains("stats_age_s") || server["pid"].get<int>() != 0;
  s["local_selfplay"] = local_selfplay;
  if (!server_alive && local_selfplay) warnings.push_back("inference server not alive (stats older than " +
                                        std::to_string(static_cast<int>(opt.server_stale_s)) + " s or missing)");

  const nlohmann::json ev = CollectEvaluator(layout, cfg.eval.enabled, now, warnings);
  s["evaluator"] = ev;
  s["newest_rating"] = CollectNewestRating(layout, warnings);
  if (cfg.eval.enabled && ev.contains("state") && !ev["alive"].get<bool>() && ev.value("state", "") != "stopped")
    warnings.push_back("evaluator not alive (state " + ev.value("state", std::string("unknown")) + ")");

  s["generations"] = CollectGenerations(layout, opt.generations, warnings);
  s["gpu"] = opt.query_gpu ? GpuInfo() : nlohmann::json(nullptr);
  s["warnings"] = warnings;
  return s;
}

}  // namespace gz
