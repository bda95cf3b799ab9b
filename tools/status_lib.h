// The run's status, computed from structured state only (never from logs):
// metadata.json, the game files of the current iteration, status/*.json,
// pid files, generations.jsonl and nvidia-smi when present.
//
// ETA = (target - collected) / recent game rate, where the rate counts the
// games of the current iteration finished in the last `rate_window_s`
// seconds (or since the iteration started, if that is shorter).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gz {

struct StatusOptions {
  std::string run_dir;
  double rate_window_s = 300;
  double server_stale_s = 180;  // server stats older than this => not alive
  int generations = 12;         // rows of the time table
};

nlohmann::json CollectStatus(const StatusOptions& opt);
std::string FormatStatus(const nlohmann::json& status);

// Is `pid` alive and running a program whose command line contains `needle`?
bool PidAlive(int pid, const std::string& needle);

}  // namespace gz
