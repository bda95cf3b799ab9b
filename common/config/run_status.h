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

#include <string>

#include <nlohmann/json.hpp>

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

// The pid in a pid file, 0 when missing or unreadable.
int ReadPidFile(const std::string& path);

}  // namespace gz
