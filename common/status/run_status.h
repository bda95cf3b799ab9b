// The run's live state, computed from structured state only (never from logs):
// metadata.json, the game files of the current iteration, status/*.json, pid
// files, generations.jsonl and nvidia-smi when asked and present.  Shared by
// gz_status (tools/) and the dashboard (dashboard/), so both show one truth.
//
// ETA = (target - collected) / recent game rate, where the rate counts the
// games of the current iteration finished in the last `rate_window_s`
// seconds (or since the iteration started, if that is shorter).
// Thread-safety: free functions, no shared state; safe from any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/data/record_format.h"
#include "common/data/run_layout.h"

namespace gz {

struct StatusOptions {
  std::string run_dir;
  double rate_window_s = 300;
  double server_stale_s = 180;  // server stats older than this => not alive
  int generations = 12;         // rows of the time table
  bool query_gpu = true;        // run nvidia-smi (a subprocess: the dashboard polls without it)
};

// Never throws for missing or broken files: what cannot be read becomes a
// null field plus a line in "warnings".
nlohmann::json CollectStatus(const StatusOptions& opt);

// Is `pid` alive and running a program whose command line contains `needle`?
bool PidAlive(int pid, const std::string& needle);

// The JSON document in `path`, or null when it is missing or not JSON.
nlohmann::json ReadJsonFileOrNull(const std::string& path);

// A record another process wrote (status file, reload ack), checked as
// `format` (common/data/record_format.h): null when missing or not JSON (a
// writer that has not started yet), null plus a line in `warnings` naming the
// file and its version when this build does not read that version.
nlohmann::json ReadStatusRecord(const std::string& path, const RecordFormat& format, nlohmann::json& warnings);

// The pid in a pid file, 0 when missing or unreadable.
int ReadPidFile(const std::string& path);

// The collectors CollectStatus is made of, one per part of the status (public
// for the tests).  Each reads only its own files; `now` is wall-clock seconds;
// a collector that finds something worth a warning appends it to `warnings`.

// The finished game files of one iteration's folder, by writer (temp files and
// foreign names skipped; a missing folder is no games).
struct IterationGames {
  std::map<int, int> per_worker;       // this machine's workers (no host in the name) -> games
  std::map<int, double> last_game;     // ... -> mtime of the newest
  std::vector<double> times;           // every game's mtime (all writers)
  std::map<std::string, std::vector<double>> host_times;  // self-play hosts of a multi-host run
};
IterationGames CollectIterationGames(const std::string& games_dir);

// Games per minute among `times` finished at or after window_start, over the
// window's span (at least 1 s).
struct GameRateWindow {
  double window_start = 0;
  double span = 1;
  double PerMinute(const std::vector<double>& times) const;
};

// "hosts": one entry per self-play host (game files or a status/{host}/
// folder), with its reload ack, server stats and workers.
nlohmann::json CollectHosts(const RunLayout& layout, const IterationGames& games, const GameRateWindow& rate,
                            double host_timeout_s, double worker_stale_s, double now, nlohmann::json& warnings);
// "server": this machine's inference server from its pid file and status/server.json.
nlohmann::json CollectServer(const RunLayout& layout, double stale_s, double now, nlohmann::json& warnings);
// "workers": ids 0..worker_count-1, each from its pid file, status file and game files.
nlohmann::json CollectWorkers(const RunLayout& layout, int worker_count, const IterationGames& games,
                              bool server_alive, double now, nlohmann::json& warnings);
// "evaluator": liveness from status/evaluator.json (no liveness warning, see
// CollectStatus; a warning only for a file of an unknown version).
nlohmann::json CollectEvaluator(const RunLayout& layout, bool enabled, double now, nlohmann::json& warnings);
// "newest_rating": the last rating line of ratings.jsonl, or null.
nlohmann::json CollectNewestRating(const RunLayout& layout, nlohmann::json& warnings);
// "generations": the last `count` lines of generations.jsonl in iteration order.
nlohmann::json CollectGenerations(const RunLayout& layout, int count, nlohmann::json& warnings);

}  // namespace gz
