// Where everything lives in a run directory (docs/file-formats.md).  All
// processes derive paths from here; nothing else hard-codes them.
//
//   <run>/metadata.json                 single source of truth (trainer writes, workers follow)
//   <run>/config.json                   effective config of the run (trainer writes at start)
//   <run>/checkpoints/weights_it{N}.pt  checkpoints, found by numeric N
//   <run>/games/it{N}/w{id}_g{k}.npz    one file per game ({host}_w{id}_g{k}.npz with run.host)
//   <run>/generations.jsonl             one JSON line per finished iteration
//   <run>/status/worker_{id}.json       per-worker status (atomic rewrite)
//   <run>/status/server.json            server stats snapshot (atomic rewrite)
//   <run>/status/{host}/...             the same per self-play host (run.host set), plus
//   <run>/status/{host}/reload_ack.json that host's server: heartbeat and the generation it serves
//   <run>/reload.json                   the trainer's announcement of new weights (multi-host reload)
//   <run>/logs/*.log                    human logs
//   <run>/pids/*.pid                    process ids (launch scripts)
//   <run>/sock/infer.sock               default inference socket (dir 0700; sock/{host}/ with run.host)
//
// `host` arguments: "" is the single-machine layout (today's names); a
// non-empty name (validated by the config key run.host) selects the
// per-host names, so that hosts sharing the run directory never write the
// same file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gz {

struct RunLayout {
  std::string dir;
  explicit RunLayout(std::string d) : dir(std::move(d)) {}
  std::string metadata() const { return dir + "/metadata.json"; }
  std::string config() const { return dir + "/config.json"; }
  std::string checkpoints() const { return dir + "/checkpoints"; }
  std::string checkpoint(int64_t it) const { return checkpoints() + "/weights_it" + std::to_string(it) + ".pt"; }
  std::string games() const { return dir + "/games"; }
  std::string games_for(int64_t it) const { return games() + "/it" + std::to_string(it); }
  // "w{id}_g" or "{host}_w{id}_g": the prefix of one worker's game files.
  static std::string game_prefix(int worker, const std::string& host = "") {
    return (host.empty() ? "" : host + "_") + "w" + std::to_string(worker) + "_g";
  }
  std::string game_file(int64_t it, int worker, int64_t k, const std::string& host = "") const {
    return games_for(it) + "/" + game_prefix(worker, host) + std::to_string(k) + ".npz";
  }
  std::string generations() const { return dir + "/generations.jsonl"; }
  std::string status_dir() const { return dir + "/status"; }
  std::string status_dir(const std::string& host) const { return host.empty() ? status_dir() : status_dir() + "/" + host; }
  std::string worker_status(int id, const std::string& host = "") const {
    return status_dir(host) + "/worker_" + std::to_string(id) + ".json";
  }
  std::string server_status(const std::string& host = "") const { return status_dir(host) + "/server.json"; }
  std::string reload_ack(const std::string& host) const { return status_dir(host) + "/reload_ack.json"; }
  std::string reload_announcement() const { return dir + "/reload.json"; }
  std::string logs() const { return dir + "/logs"; }
  std::string pids() const { return dir + "/pids"; }
  std::string default_socket(const std::string& host = "") const {
    return dir + "/sock/" + (host.empty() ? "" : host + "/") + "infer.sock";
  }
};

// A self-play host's name as it may appear in file names: 1..64 letters,
// digits, '-' and '.', not starting with '.' (so never "..", never a path,
// never an '_', which separates the parts of a game file name).
bool IsValidHostName(const std::string& host);

// A game file name split into its parts: "{host}_w{id}_g{k}.npz" or
// "w{id}_g{k}.npz" (host ""); nullopt for any other name (temp files, paths,
// hosts that fail IsValidHostName).
struct GameFileName {
  std::string host;
  int worker = 0;
  int64_t index = 0;
};
std::optional<GameFileName> ParseGameFileName(const std::string& name);

// Parses the number N out of names like "weights_it{N}.pt" / "it{N}"; nullopt
// when the name does not match exactly (temp files never match).
std::optional<int64_t> ParseIterationNumber(const std::string& name, const std::string& prefix,
                                            const std::string& suffix);
// Iteration numbers of the complete checkpoints in a directory, ascending
// numerically (9 < 10 < 100).
std::vector<int64_t> ListCheckpointIterations(const std::string& checkpoint_dir);

}  // namespace gz
