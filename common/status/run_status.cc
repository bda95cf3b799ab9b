// The run's status as one document: metadata.json and its config, the
// current iteration's games, rate and ETA, every process (status_processes.cc),
// the newest rating, the time table of generations.jsonl and the GPUs; each
// warning worth a reader's attention in "warnings".
#include "common/status/run_status.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <utility>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/config/config.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
#include "common/data/run_layout.h"

namespace gz {

namespace {

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
