// Where everything lives in a run directory (docs/file-formats.md).  All
// processes derive paths from here; nothing else hard-codes them.
//
//   <run>/metadata.json                 single source of truth (trainer writes, workers follow)
//   <run>/config.json                   effective config of the run (trainer writes at start)
//   <run>/checkpoints/weights_it{N}.pt  checkpoints, found by numeric N
//   <run>/games/it{N}/w{id}_g{k}.npz    one file per game
//   <run>/generations.jsonl             one JSON line per finished iteration
//   <run>/status/worker_{id}.json       per-worker status (atomic rewrite)
//   <run>/status/server.json            server stats snapshot (atomic rewrite)
//   <run>/logs/*.log                    human logs
//   <run>/pids/*.pid                    process ids (launch scripts)
//   <run>/sock/infer.sock               default inference socket (dir 0700)
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
  std::string game_file(int64_t it, int worker, int64_t k) const {
    return games_for(it) + "/w" + std::to_string(worker) + "_g" + std::to_string(k) + ".npz";
  }
  std::string generations() const { return dir + "/generations.jsonl"; }
  std::string status_dir() const { return dir + "/status"; }
  std::string worker_status(int id) const { return status_dir() + "/worker_" + std::to_string(id) + ".json"; }
  std::string server_status() const { return status_dir() + "/server.json"; }
  std::string logs() const { return dir + "/logs"; }
  std::string pids() const { return dir + "/pids"; }
  std::string default_socket() const { return dir + "/sock/infer.sock"; }
};

// Parses the number N out of names like "weights_it{N}.pt" / "it{N}"; nullopt
// when the name does not match exactly (temp files never match).
std::optional<int64_t> ParseIterationNumber(const std::string& name, const std::string& prefix,
                                            const std::string& suffix);
// Iteration numbers of the complete checkpoints in a directory, ascending
// numerically (9 < 10 < 100).
std::vector<int64_t> ListCheckpointIterations(const std::string& checkpoint_dir);

}  // namespace gz
