// The status of each process of a run: the self-play hosts of a multi-host
// run, this machine's inference server and workers, and the evaluator, each
// from its pid file and its own status record.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "common/base/errors.h"
#include "common/data/host_reload.h"
#include "common/data/record_fields.h"
#include "common/data/run_layout.h"
#include "common/status/run_status.h"

namespace gz {
namespace fs = std::filesystem;

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

}  // namespace gz
