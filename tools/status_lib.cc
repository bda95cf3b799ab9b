// gz_status's text: one section of the run's status after the other.
#include "tools/status_lib.h"

#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>

namespace gz {

namespace {

// "iteration N: K/T games, R games/min, ETA ... (elapsed ...)".
void FormatIteration(std::ostream& os, const nlohmann::json& s) {
  char buf[512];
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
}

// One line per self-play host of a multi-host run.
void FormatHosts(std::ostream& os, const nlohmann::json& s) {
  char buf[512];
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
}

// This machine's inference server and the table of its workers.
void FormatLocalSelfplay(std::ostream& os, const nlohmann::json& s) {
  char buf[512];
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

// "newest Elo: ...": the newest rating line, or why there is none.
std::string RatingLine(const nlohmann::json& nr) {
  if (nr.is_object() && nr["elo"].is_number()) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "newest Elo: %s (iteration %lld) %+.0f [%+.0f, %+.0f] vs %s%s",
                  nr["player"].get<std::string>().c_str(), static_cast<long long>(nr["iteration"].get<int64_t>()),
                  nr["elo"].get<double>(), nr["elo_low"].get<double>(), nr["elo_high"].get<double>(),
                  nr["anchor"].get<std::string>().c_str(), nr["complete"].get<bool>() ? "" : " (evaluation in progress)");
    return buf;
  }
  if (nr.is_object()) return "newest Elo: " + nr["player"].get<std::string>() + " unrated so far";
  return "no rating yet";
}

// The evaluator's state, then the newest rating.
void FormatEvaluator(std::ostream& os, const nlohmann::json& s) {
  const auto& ev = s["evaluator"];
  const std::string rating = RatingLine(s["newest_rating"]);
  std::string evs = !ev.value("enabled", true)        ? "off (eval.enabled false)"
                    : !ev.contains("state")            ? "no status yet"
                    : ev["alive"].get<bool>()          ? "alive, " + ev["state"].get<std::string>()
                                                       : "NOT ALIVE (state " + ev["state"].get<std::string>() + ")";
  if (ev.contains("games_done") && ev["alive"].get<bool>() && ev["state"] == "playing")
    evs += " " + std::to_string(ev["games_done"].get<int>()) + "/" + std::to_string(ev["games_total"].get<int>()) +
           " games vs " + (ev["opponent"].is_string() ? ev["opponent"].get<std::string>() : std::string("?"));
  os << "evaluator: " << evs << "\n" << rating << "\n";
}

// The time table of the last iterations, then the GPUs.
void FormatGenerationsAndGpus(std::ostream& os, const nlohmann::json& s) {
  char buf[512];
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
}

void FormatWarnings(std::ostream& os, const nlohmann::json& s) {
  for (auto& w : s["warnings"]) os << "WARNING: " << w.get<std::string>() << "\n";
}

}  // namespace

std::string FormatStatus(const nlohmann::json& s) {
  std::ostringstream os;
  os << "run: " << s["run_dir"].get<std::string>() << "\n";
  if (s["iteration"].is_null()) {
    FormatWarnings(os, s);
    return os.str();
  }
  FormatIteration(os, s);
  FormatHosts(os, s);
  if (!s.value("local_selfplay", true)) os << "this machine: no self-play (a multi-host run's trainer host)\n";
  else FormatLocalSelfplay(os, s);
  FormatEvaluator(os, s);
  FormatGenerationsAndGpus(os, s);
  FormatWarnings(os, s);
  return os.str();
}

}  // namespace gz
