// Typed, validated configuration shared by every binary.
//
// Sources, later ones win: built-in defaults < JSON file (--config) <
// `--set dotted.key=value` overrides < the environment variables bound to keys
// (Config::EnvironmentBindings: GOMOKU_INFER_SOCK, GOMOKU_MAX_BATCH,
// GOMOKU_MAX_WAIT_MS; read here and nowhere else).  Every value goes through
// the same registry: unknown keys and out-of-range values are ConfigErrors that
// name the key (and the variable).  Each key remembers where its value came
// from (origin()); binaries log the effective config with the origins at start
// (DescribeOrigins), and the trainer saves it in the run directory (see
// docs/configuration.md for every key).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/game/board.h"
#include "common/search/mcts.h"
#include "common/search/selfplay.h"

namespace gz {

struct BoardConfig {
  int size = 15;
  std::string rule = "freestyle";
};
struct NetConfig {
  int channels = 128;
  int blocks = 8;
  std::string heads = "fc";  // fc (one board size) | conv (any size; docs/network.md "Heads")
};
// selfplay.*: the search layer's own SelfPlayParams (the registry binds its
// fields, as mcts.* binds MctsParams; docs/search.md "Self-play recipe"), plus
// the one self-play setting that is the worker's rather than a game's.  The
// inherited `mcts` is no key and is hidden here: selfplay_params() fills it
// from Config::mcts.
struct SelfplayConfig : SelfPlayParams {
  // Mixed board sizes: "SIZE:WEIGHT" entries (or "SIZE", weight 1); each game
  // draws its size with these weights.  Empty = every game on board.size.
  // board.size must be one of them; sizes other than board.size need net.heads conv.
  std::vector<std::string> board_sizes;

 private:
  using SelfPlayParams::mcts;  // Config::mcts is the one copy
};
struct InferenceConfig {
  std::string symmetry = "all8";      // none | random | all8
  std::string device = "auto";        // auto | cpu | cuda | cuda:N
  int threads = 1;                    // threads of a net's forward (ChooseForward, common/net/forward_choice.h)
  std::string backend = "auto";       // the forward of every net loaded to play or serve: auto | native | torch
};
// engine.*: the engine's search (common/match/search_player.h: pbrain, play
// and the dashboard's browser games; docs/engine.md "Batched search").
// Settings of that one driver of the search, not of Mcts: self-play, the
// evaluator's and arena's players and the analysis engine ignore them.
struct EngineConfig {
  int batch = 16;    // leaves gathered per evaluation, kept apart by virtual loss (1 = the single-leaf search)
  int threads = 1;   // search threads sharing one tree (1 = the calling thread)
};
struct ServerConfig {
  std::string socket = "";            // "" = <run.dir>/sock/infer.sock; GOMOKU_INFER_SOCK wins
  int max_batch = 20;                 // positions; GOMOKU_MAX_BATCH wins
  std::string max_wait = "3";         // milliseconds, or "auto"; GOMOKU_MAX_WAIT_MS wins
  double auto_wait_ceiling_ms = 5.0;  // upper bound of the adaptive wait
  bool auto_pipeline = false;         // auto: alternate two halves of the clients when measured faster
  double stats_interval_s = 30.0;
  double idle_timeout_s = 120.0;      // a connection silent this long is closed
  int max_clients = 512;
  int max_pending_replies = 64;       // per connection; a client that never reads is cut off
  int cache_entries = 0;              // NN result cache (0 = off)
  std::string precision = "fp32";     // fp32 | bf16 | fp16 (CUDA only)
  bool cuda_graphs = false;           // CUDA only
  bool device_encode = true;          // CUDA only: encode the batch's compact boards on the GPU
  int threads = 0;                    // threads of the server's forward; 0 = inference.threads
  double heartbeat_s = 1.0;           // run.host set: how often the server follows reload.json and rewrites its ack
};
struct WorkerConfig {
  int parallel_games = 1;
  double reconnect_initial_s = 1.0;
  double reconnect_max_s = 30.0;
  double poll_interval_s = 1.0;       // how often an idle worker re-reads metadata.json
};
struct RunConfig {
  std::string dir = "runs/default";
  int worker_count = 20;
  int worker_games_per_worker = 6;
  int target_games = 100;
  int min_games = 50;
  double stall_timeout_s = 600.0;
  double progress_log_s = 30.0;
  uint64_t seed = 1;
  int max_iterations = 0;             // 0 = run until stopped
  std::string host = "";              // "" = one machine; else this host's name in shared file names (docs/operations.md)
  double host_timeout_s = 60.0;       // a self-play host silent this long is excluded from the reload wait
};
struct TrainConfig {
  int train_batches = 32;
  int batch_size = 512;
  int replay_iterations = 5;          // replay window W
  std::string optimizer = "adam";     // adam | sgd
  double learning_rate = 1e-3;
  double momentum = 0.9;
  double weight_decay = 1e-4;         // L2
  std::string lr_schedule = "constant";  // constant | step
  int lr_step_iterations = 50;
  double lr_step_gamma = 0.5;
  double lr_min = 0;                  // floor of the step schedule (0: none)
  int keep_last = 5;
  int keep_every = 10;
  int threads = 2;
  double reload_timeout_s = 60.0;
  std::string init_weights = "";      // cold start from this checkpoint (same net shape and rule); "" = random
  // Self-play recipe, training side (docs/trainer.md "Self-play recipe").
  double value_target_q_weight = 0.0;  // value target (1-w)*z + w*q; 0 = the game result
  double window_power_alpha = 0.0;     // > 0: power-law replay window in samples; 0 = off
  double window_power_beta = 0.4;
  int window_min_samples = 250000;     // c of the power-law window
  double max_samples_per_new_sample = 0.0;  // > 0: steps*batch <= this * new samples; 0 = off
  // Data-parallel training (docs/trainer.md, "Data-parallel training"): the
  // rank is the trainer's --rank flag, not a key (all ranks share the config).
  int world_size = 1;                 // trainer processes; > 1: rank 0 + followers over c10d
  std::string dist_store = "tcp://127.0.0.1:29500";  // rendezvous: tcp://HOST:PORT (TCPStore on rank 0) | file://PATH
  double dist_timeout_s = 60.0;       // rendezvous and every collective; a dead or stuck peer fails after this
  double allreduce_bucket_mb = 25.0;  // gradient allreduce bucket size
  std::string dist_interface = "";    // Gloo's network interface (e.g. eth0); "" = GLOO_SOCKET_IFNAME, else by address
};

// The evaluator (evaluator/, docs/ratings.md): ratings while the run goes on.
struct EvalConfig {
  bool enabled = true;                // launch/start.sh starts build/bin/evaluator
  int every = 1;                      // evaluate every N-th published iteration
  int games = 20;                     // games per opponent and evaluation (colours alternate)
  int simulations = 200;              // the player under test: fixed simulations, no noise
  int threads = 1;                    // threads of the evaluator's net forwards
  int nice = 10;                      // scheduling priority increment (setpriority)
  std::vector<std::string> ladder = {"rollout:1000"};  // rollout:P | checkpoint:N | previous:K | engine:COMMAND
  std::string anchor = "rollout:1000";  // the player whose Elo is 0
  int engine_turn_ms = 1000;          // timeout_turn sent to engine: opponents
  int engine_grace_ms = 2000;         // an engine later than turn + grace loses the game
};
// The web dashboard (dashboard/, docs/dashboard.md).
struct DashboardConfig {
  bool enabled = true;                // launch/start.sh starts build/bin/gz_dashboard
  std::string bind = "127.0.0.1";     // a non-loopback address prints a warning
  int port = 8765;
  int max_games = 4;                  // browser games against the newest net at once
  double idle_timeout_s = 300.0;      // a browser game's engine ends after this long unused
  int simulations = 200;              // the browser opponent's search (as the evaluator's)
};

struct Config {
  BoardConfig board;
  NetConfig net;
  MctsParams mcts;                    // the search layer's own struct; the registry binds its keys
  SelfplayConfig selfplay;            // SelfPlayParams + board_sizes; its mcts part is Config::mcts
  InferenceConfig inference;
  EngineConfig engine;
  ServerConfig server;
  WorkerConfig worker;
  RunConfig run;
  TrainConfig train;
  EvalConfig eval;
  DashboardConfig dashboard;

  Rule rule() const { return ParseRule(board.rule); }
  // The self-play parameters of a game: selfplay.* with `mcts` = Config::mcts.
  SelfPlayParams selfplay_params() const;
  // selfplay.board_sizes as (size, weight) pairs in the order given; empty
  // when every game is on board.size.
  std::vector<std::pair<int, double>> board_size_shares() const;
  // Every board size the run's games use, ascending (at least board.size).
  std::vector<int> board_sizes() const;

  // Applies a JSON object (possibly partial).  Throws ConfigError naming the key.
  void Apply(const nlohmann::json& j, const std::string& source);
  // Applies "dotted.key=value" (origin "--set").
  void ApplyOverride(const std::string& assignment);
  // Sets one key from text as --set does (JSON, or a plain string), recording
  // `source` as its origin (e.g. "--run-dir").  Throws ConfigError.
  void Set(const std::string& key, const std::string& raw, const std::string& source);
  // Applies the bound environment variables that are set and non-empty.
  void ApplyEnvironment();
  // Takes the run's geometry (board.*, inference.symmetry) from `shared`, the
  // config of the run's metadata.json, so both ends of the socket agree.
  void AdoptRunGeometry(const Config& shared, const std::string& source);

  // Where the key's value came from: "default", the file or source name given
  // to Apply, "--set", "env NAME" or the AdoptRunGeometry source.
  std::string origin(const std::string& key) const;
  bool from_environment(const std::string& key) const { return origin(key).rfind("env ", 0) == 0; }
  // "key=value (origin), ..." for every key not at its default, in key order.
  std::string DescribeOrigins() const;

  // Play settings: the search settings a trained net plays with, saved in its
  // checkpoint (CheckpointInfo::play) so that the engine, play, the dashboard,
  // the evaluator and arena play it as the run did.  Self-play-only knobs
  // (noise, forced playouts, simulations) are not among them.
  static const std::vector<std::string>& PlaySettingKeys();
  // This config's values of PlaySettingKeys(), as `--set` text.
  std::map<std::string, std::string> PlaySettings() const;
  // Sets every key of `settings` whose origin is still "default" (nobody set
  // it: an explicit file, --set or environment value always wins) to its
  // value, with origin `source`.  Returns the keys it set.  A key outside
  // PlaySettingKeys() or a bad value is a ConfigError naming it and `source`.
  std::vector<std::string> AdoptPlaySettings(const std::map<std::string, std::string>& settings,
                                             const std::string& source);
  // "key=value (origin), ..." for every play setting, defaults included: the
  // line players log so that each setting's source is visible.
  std::string DescribePlaySettings() const;
  // Cross-field checks.  Throws ConfigError.
  void Validate() const;
  nlohmann::json ToJson() const;
  std::string ToJsonString(int indent = 2) const;

  // Defaults < file < overrides, validated.  Relative file paths written in
  // `file` (train.init_weights, eval.ladder's net:PATH) are taken relative to
  // the file's own directory, so a config names its nets wherever it is run
  // from; paths given by overrides or the environment stay as given (the
  // caller's working directory).
  static Config Load(const std::string& file, const std::vector<std::string>& overrides);
  static Config FromJson(const nlohmann::json& j, const std::string& source);
  // Every dotted key the config accepts.
  static std::vector<std::string> Keys();
  // [{"key", "default", "help"}, ...] in key order: the registry's own key
  // table (worker --print-config-doc; dev/gen_config_doc.py prints it).
  static nlohmann::json DocJson();
  // Keys renamed after programs had written them into files: (old, new).  In
  // a JSON config (Apply: a run's config.json and metadata.json, an engine
  // settings file's "config") the old name still sets the new key, origin
  // "<source> (as OLD)"; giving both is an error.  --set and Set refuse the
  // old name with an error naming the new one.  ToJson writes new names only.
  static const std::vector<std::pair<std::string, std::string>>& RenamedKeys();
  // (environment variable, key) pairs, in the order they are applied.
  static const std::vector<std::pair<std::string, std::string>>& EnvironmentBindings();

 private:
  void ResolveFilePaths(const std::string& file);  // see Load
  std::map<std::string, std::string> origins_;  // key -> source; absent = default
};

// The inference server's socket for a config: server.socket if non-empty
// (Config::Load binds GOMOKU_INFER_SOCK to it), else
// RunLayout(run.dir).default_socket(run.host).  Server, workers, trainer and
// infer_ctl all take it from here, so they agree.
std::string ResolveSocketPath(const Config& c);


}  // namespace gz
