#include "tools/status_lib.h"

#include <cstdio>
#include <sstream>
#include <string>

namespace gz {

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
  const bool local_selfplay = s.value("local_selfplay", true);
  for (const auto& h : s.value("hosts", nlohmann::json::array())) {
    const auto& hs = h["server"];
    std::string server = !hs.contains("heartbeat_age_s") ? "no heartbeat yet"
                         : hs["alive"].get<bool>()
                             ? "alive, serving generation " + std::to_string(hs.value("serving_generation", int64_t{-1}))
                             : "SILENT for " + std::to_string(static_cast<int>(hs["heartbeat_age_s"].get<double>())) + " s";
    std::snprintf(buf, sizeof buf, "host %s: server %s; workers %d alive; %d games this iteration, %.1f games/min\n",
                  h["host"].get<std::string>().c_str(), server.c_str(), h.value("workers_alive", 0),
                  h.value("games_this_iteration", 0), h.value("games_per_min", 0.0));
    os << buf;
  }
  if (!local_selfplay) {
    os << "this machine: no self-play (a multi-host run's trainer host)\n";
  } else {
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
  }
  const auto& ev = s["evaluator"];
  const auto& nr = s["newest_rating"];
  std::string rating = "no rating yet";
  if (nr.is_object() && nr["elo"].is_number()) {
    std::snprintf(buf, sizeof buf, "newest Elo: %s (iteration %lld) %+.0f [%+.0f, %+.0f] vs %s%s",
                  nr["player"].get<std::string>().c_str(), static_cast<long long>(nr["iteration"].get<int64_t>()),
                  nr["elo"].get<double>(), nr["elo_low"].get<double>(), nr["elo_high"].get<double>(),
                  nr["anchor"].get<std::string>().c_str(), nr["complete"].get<bool>() ? "" : " (evaluation in progress)");
    rating = buf;
  } else if (nr.is_object()) {
    rating = "newest Elo: " + nr["player"].get<std::string>() + " unrated so far";
  }
  std::string evs = !ev.value("enabled", true)        ? "off (eval.enabled false)"
                    : !ev.contains("state")            ? "no status yet"
                    : ev["alive"].get<bool>()          ? "alive, " + ev["state"].get<std::string>()
                                                       : "NOT ALIVE (state " + ev["state"].get<std::string>() + ")";
  if (ev.contains("games_done") && ev["alive"].get<bool>() && ev["state"] == "playing")
    evs += " " + std::to_string(ev["games_done"].get<int>()) + "/" + std::to_string(ev["games_total"].get<int>()) +
           " games vs " + (ev["opponent"].is_string() ? ev["opponent"].get<std::string>() : std::string("?"));
  os << "evaluator: " << evs << "\n" << rating << "\n";
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
