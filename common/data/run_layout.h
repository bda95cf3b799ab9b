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
//   <run>/status/evaluator.json         the evaluator's status (heartbeat, pinned checkpoints)
//   <run>/eval/results.jsonl            every evaluation game (evaluator, append-only)
//   <run>/ratings.jsonl                 one rating line per evaluated checkpoint (evaluator rewrites)
//   <run>/trainer/...                   the trainer's private files (trainer/trainer_paths.h)
//   <run>/logs/{process}.log            human logs
//   <run>/pids/{process}.pid            process ids (launch scripts); process "worker_{id}" etc.
//   <run>/sock/infer.sock               default inference socket (dir 0700; sock/{host}/ with run.host)
//
// Every name is spelled once, in the constants below; RunLayoutExamples()
// lists each accessor's answer for `gz_status --layout`, which
// experiments/runlib.py --check-layout compares with its own copy.
//
// `host` arguments: "" is the single-machine layout (today's names); a
// non-empty name (validated by the config key run.host) selects the
// per-host names, so that hosts sharing the run directory never write the
// same file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gz {

struct RunLayout {
  // Run-relative names.
  static constexpr const char* kMetadataFile = "metadata.json";
  static constexpr const char* kConfigFile = "config.json";
  static constexpr const char* kReloadFile = "reload.json";
  static constexpr const char* kGenerationsFile = "generations.jsonl";
  static constexpr const char* kRatingsFile = "ratings.jsonl";
  static constexpr const char* kCheckpointPrefix = "weights_it";  // checkpoints/weights_it{N}.pt
  static constexpr const char* kCheckpointSuffix = ".pt";
  static constexpr const char* kWorkerPrefix = "worker_";  // status/worker_{id}.json, logs/worker_{id}.log, pids/
  static constexpr const char* kJsonSuffix = ".json";
  static constexpr const char* kReloadAckFile = "reload_ack.json";
  static constexpr const char* kGamesDirPrefix = "it";  // games/it{N}/

  std::string dir;
  explicit RunLayout(std::string d) : dir(std::move(d)) {}
  std::string metadata() const { return dir + "/" + kMetadataFile; }
  std::string config() const { return dir + "/" + kConfigFile; }
  std::string checkpoints() const { return dir + "/checkpoints"; }
  // "weights_it{N}.pt"
  static std::string checkpoint_name(int64_t it) { return kCheckpointPrefix + std::to_string(it) + kCheckpointSuffix; }
  std::string checkpoint(int64_t it) const { return checkpoints() + "/" + checkpoint_name(it); }
  std::string games() const { return dir + "/games"; }
  std::string games_for(int64_t it) const { return games() + "/" + kGamesDirPrefix + std::to_string(it); }
  // "w{id}_g" or "{host}_w{id}_g": the prefix of one worker's game files.
  static std::string game_prefix(int worker, const std::string& host = "") {
    return (host.empty() ? "" : host + "_") + "w" + std::to_string(worker) + "_g";
  }
  // "w{id}_g{k}.npz" or "{host}_w{id}_g{k}.npz" (also the names of `worker --out DIR`).
  static std::string game_file_name(int worker, int64_t k, const std::string& host = "") {
    return game_prefix(worker, host) + std::to_string(k) + ".npz";
  }
  std::string game_file(int64_t it, int worker, int64_t k, const std::string& host = "") const {
    return games_for(it) + "/" + game_file_name(worker, k, host);
  }
  std::string generations() const { return dir + "/" + kGenerationsFile; }
  std::string status_dir() const { return dir + "/status"; }
  std::string status_dir(const std::string& host) const { return host.empty() ? status_dir() : status_dir() + "/" + host; }
  // "worker_{id}": the worker's name in its status, log and pid file names.
  static std::string worker_name(int id) { return kWorkerPrefix + std::to_string(id); }
  std::string worker_status(int id, const std::string& host = "") const {
    return status_dir(host) + "/" + worker_name(id) + kJsonSuffix;
  }
  std::string server_status(const std::string& host = "") const { return status_dir(host) + "/server.json"; }
  std::string evaluator_status() const { return status_dir() + "/evaluator.json"; }
  std::string reload_ack(const std::string& host) const { return status_dir(host) + "/" + kReloadAckFile; }
  std::string reload_announcement() const { return dir + "/" + kReloadFile; }
  std::string eval_results() const { return dir + "/eval/results.jsonl"; }
  std::string ratings() const { return dir + "/" + kRatingsFile; }
  std::string trainer_dir() const { return dir + "/trainer"; }
  std::string logs() const { return dir + "/logs"; }
  // logs/{process}.log, e.g. "trainer", "evaluator", worker_name(3).
  std::string log_file(const std::string& process) const { return logs() + "/" + process + ".log"; }
  std::string pids() const { return dir + "/pids"; }
  // pids/{process}.pid, e.g. "server", "evaluator", worker_name(3) (written by launch/start.sh).
  std::string pid_file(const std::string& process) const { return pids() + "/" + process + ".pid"; }
  std::string default_socket(const std::string& host = "") const {
    return dir + "/sock/" + (host.empty() ? "" : host + "/") + "infer.sock";
  }
  // The files at the top of the run directory that only the trainer writes.
  static std::vector<std::string> TrainerRootFiles() { return {kMetadataFile, kConfigFile, kReloadFile}; }
};

// (accessor, its path relative to the run directory) for every accessor,
// with example arguments (iteration 7, worker 2, game 3, host "hostA",
// process "trainer"): the layout as data, for gz_status --layout.
std::vector<std::pair<std::string, std::string>> RunLayoutExamples();

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
