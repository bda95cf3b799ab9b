// The key registry: every config key's type, bounds and help text, bound to
// the field of the Config it sets.  The field kinds (integer, float, string
// list, ...) read a JSON value, check it and name the key in every error, so
// files, --set and the environment all pass the same checks.
#include "common/config/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "common/base/errors.h"
#include "common/config/config_registry.h"

namespace gz {
namespace config_detail {
namespace {

using nlohmann::json;

[[noreturn]] void Bad(const std::string& key, const std::string& why) {
  GOMOKU_THROW(ConfigError, "config key '" << key << "': " << why);
}

void AddInt(Registry& r, const std::string& key, const char* help, int* p, int lo, int hi) {
  r[key] = Field{[p, lo, hi](const json& v, const std::string& k) {
                   if (!v.is_number_integer()) Bad(k, "expected an integer, got " + v.dump());
                   long long x = v.get<long long>();
                   if (x < lo || x > hi)
                     Bad(k, "value " + std::to_string(x) + " out of range [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
                   *p = static_cast<int>(x);
                 },
                 [p] { return json(*p); }, help};
}
void AddU64(Registry& r, const std::string& key, const char* help, uint64_t* p) {
  r[key] = Field{[p](const json& v, const std::string& k) {
                   if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0))
                     Bad(k, "expected a non-negative integer, got " + v.dump());
                   *p = v.get<uint64_t>();
                 },
                 [p] { return json(*p); }, help};
}
// A finite number in [lo, hi], or a ConfigError naming the key.
double CheckedNumber(const json& v, const std::string& k, double lo, double hi) {
  if (!v.is_number()) Bad(k, "expected a number, got " + v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    std::ostringstream os;
    os << "value " << x << " out of range [" << lo << ", " << hi << "]";
    Bad(k, os.str());
  }
  return x;
}
void AddDouble(Registry& r, const std::string& key, const char* help, double* p, double lo, double hi) {
  r[key] = Field{[p, lo, hi](const json& v, const std::string& k) { *p = CheckedNumber(v, k, lo, hi); },
                 [p] { return json(*p); }, help};
}
// A float field (the search layer keeps floats).  The JSON value is read as a
// double, range-checked, then narrowed, so the stored float equals
// static_cast<float>(value); it is written back as the shortest decimal that
// reads back to the same float ("0.3", not 0.30000001192092896).
void AddFloat(Registry& r, const std::string& key, const char* help, float* p, double lo, double hi) {
  r[key] = Field{[p, lo, hi](const json& v, const std::string& k) {
                   *p = static_cast<float>(CheckedNumber(v, k, lo, hi));
                 },
                 [p] {
                   // The fewest significant digits that read back to *p (what
                   // std::to_chars's shortest form gives; emscripten 3.1.6's
                   // libc++ has no floating-point to_chars: docs/browser.md).
                   char buf[32];
                   for (int digits = 1; digits <= 9; ++digits) {
                     std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(*p));
                     if (std::strtof(buf, nullptr) == *p) break;
                   }
                   return json(std::strtod(buf, nullptr));
                 }, help};
}
void AddBool(Registry& r, const std::string& key, const char* help, bool* p) {
  r[key] = Field{[p](const json& v, const std::string& k) {
                   if (!v.is_boolean()) Bad(k, "expected true or false, got " + v.dump());
                   *p = v.get<bool>();
                 },
                 [p] { return json(*p); }, help};
}
// Runs the optional `check` of a key's value; its error becomes a ConfigError
// naming the key, `context` (which entry) before the check's own words.
void RunCheck(const std::function<void(const std::string&)>& check, const std::string& value, const std::string& k,
              const std::string& context) {
  if (!check) return;
  try {
    check(value);
  } catch (const GomokuError& e) {
    Bad(k, context + e.what());
  }
}
void AddString(Registry& r, const std::string& key, const char* help, std::string* p,
               std::vector<std::string> allowed = {}, std::function<void(const std::string&)> check = nullptr) {
  r[key] = Field{[p, allowed, check](const json& v, const std::string& k) {
                   std::string s;
                   if (v.is_string()) s = v.get<std::string>();
                   else if (v.is_number()) s = v.dump();  // e.g. server.max_wait: 3
                   else Bad(k, "expected a string, got " + v.dump());
                   if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
                     std::string list;
                     for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
                     Bad(k, "value '" + s + "' is not one of: " + list);
                   }
                   RunCheck(check, s, k, "");
                   *p = s;
                 },
                 [p] { return json(*p); }, help};
}

// A list of strings: a JSON array (integer entries are taken as their text),
// or on the command line either a JSON array, one integer or one
// comma-separated string ("rollout:100,previous:1").  Empty entries are
// errors; `check` (optional) validates each entry.
void AddStringList(Registry& r, const std::string& key, const char* help, std::vector<std::string>* p,
                   std::function<void(const std::string&)> check = nullptr) {
  r[key] = Field{[p, check](const json& v, const std::string& k) {
                   std::vector<std::string> out;
                   if (v.is_array()) {
                     for (const auto& e : v) {
                       if (e.is_number_integer()) out.push_back(e.dump());  // e.g. board sizes: [15, 13]
                       else if (!e.is_string()) Bad(k, "expected a list of strings, got " + v.dump());
                       else out.push_back(e.get<std::string>());
                     }
                   } else if (v.is_number_integer()) {  // --set key=15 parses as a number
                     out.push_back(v.dump());
                   } else if (v.is_string()) {
                     std::string s = v.get<std::string>(), item;
                     std::istringstream in(s);
                     while (std::getline(in, item, ',')) out.push_back(item);
                     if (!s.empty() && s.back() == ',') out.push_back("");
                   } else {
                     Bad(k, "expected a list of strings, got " + v.dump());
                   }
                   for (size_t i = 0; i < out.size(); ++i) {
                     if (out[i].empty()) Bad(k, "entry " + std::to_string(i) + " is empty");
                     RunCheck(check, out[i], k, "entry '" + out[i] + "': ");
                   }
                   *p = std::move(out);
                 },
                 [p] { return json(*p); }, help};
}

// board.* and net.*: the game and the network's shape.
void AddBoardKeys(Registry& r, Config& c) {
  AddInt(r, "board.size", "board side, 5..22", &c.board.size, kMinBoardSize, kMaxBoardSize);
  AddString(r, "board.rule", "freestyle (5+ wins), standard (exactly 5), renju (black: exactly 5, no overline, double four or double three; a draw at 25 empty points), caro (exactly 5, not closed at both ends by the opponent or the edge; Gomocup rule 9) or caro-overline (6+, or as caro; Gomocup rule 8)",
            &c.board.rule, {"freestyle", "standard", "renju", "caro", "caro-overline"});
  AddInt(r, "net.channels", "residual tower width", &c.net.channels, 1, 1024);
  AddInt(r, "net.blocks", "residual blocks", &c.net.blocks, 0, 64);
  AddString(r, "net.heads", "fc (fixed board size) or conv (convolutional policy, pooled value: any size 5..22)",
            &c.net.heads, {"fc", "conv"});
}

// mcts.*: the search layer's MctsParams.
void AddMctsKeys(Registry& r, Config& c) {
  AddInt(r, "mcts.simulations", "new simulations per move", &c.mcts.simulations, 1, 1000000);
  AddFloat(r, "mcts.c_puct", "PUCT exploration constant", &c.mcts.c_puct, 0.0, 100.0);
  AddFloat(r, "mcts.dirichlet_alpha", "root noise alpha (0 = off)", &c.mcts.dirichlet_alpha, 0.0, 100.0);
  AddFloat(r, "mcts.dirichlet_epsilon", "root noise weight", &c.mcts.dirichlet_epsilon, 0.0, 1.0);
  AddFloat(r, "mcts.fpu_value", "Q of unvisited children", &c.mcts.fpu_value, -1.0, 1.0);
  AddBool(r, "mcts.tree_reuse", "keep the chosen subtree between moves", &c.mcts.tree_reuse);
  AddBool(r, "mcts.solver", "threat solver at every expansion: proven wins/losses, forced replies (search.md)",
          &c.mcts.solver);
  AddInt(r, "mcts.solver_vcf_nodes", "node budget of each VCF query of the solver",
         &c.mcts.solver_vcf_nodes, 1, 100000000);
  AddInt(r, "mcts.solver_vct_nodes",
         "node budget of each VCT query (fours and threes) at the search root; 0 = off (search.md)",
         &c.mcts.solver_vct_nodes, 0, 100000000);
  AddFloat(r, "mcts.forced_playouts_k", "forced root visits k*sqrt(prior*total) under noise (0 = off)",
           &c.mcts.forced_playouts_k, 0.0, 100.0);
  AddBool(r, "mcts.policy_target_pruning", "remove forced visits that did not earn their place from the policy target",
          &c.mcts.policy_target_pruning);
  AddFloat(r, "mcts.fpu_reduction_root", "root: unvisited child Q = parent Q - this (0 = mcts.fpu_value)",
           &c.mcts.fpu_reduction_root, 0.0, 2.0);
  AddFloat(r, "mcts.fpu_reduction", "below the root: unvisited child Q = parent Q - this (0 = mcts.fpu_value)",
           &c.mcts.fpu_reduction, 0.0, 2.0);
  AddFloat(r, "mcts.dirichlet_alpha_scaled", "root noise alpha = this / legal moves (0 = mcts.dirichlet_alpha)",
           &c.mcts.dirichlet_alpha_scaled, 0.0, 10000.0);
}

// selfplay.*: SelfPlayParams and the mixed board sizes.
void AddSelfplayKeys(Registry& r, Config& c) {
  AddInt(r, "selfplay.temperature_moves", "moves sampled with tau=1", &c.selfplay.temperature_moves, 0, 1000);
  AddFloat(r, "selfplay.final_temperature", "tau afterwards (0 = argmax)", &c.selfplay.final_temperature, 0.0, 10.0);
  AddInt(r, "selfplay.random_opening_moves", "uniformly random first moves (not samples)",
         &c.selfplay.random_opening_moves, 0, 100);
  AddInt(r, "selfplay.max_moves", "draw after this many moves (0 = full board)",
         &c.selfplay.max_moves, 0, kMaxBoardSize * kMaxBoardSize);
  AddBool(r, "selfplay.adjudicate_proven", "end a self-play game as soon as its root is proven (mcts.solver)",
          &c.selfplay.adjudicate_proven);
  AddFloat(r, "selfplay.initial_temperature", "tau of the first move", &c.selfplay.initial_temperature, 0.0, 10.0);
  AddFloat(r, "selfplay.temperature_halflife_moves", "tau decays to final_temperature with this half-life in moves (0 = hard switch after temperature_moves)",
           &c.selfplay.temperature_halflife_moves, 0.0, 1000.0);
  AddDouble(r, "selfplay.playout_cap_p_full", "share of moves with the full search (policy targets); the rest cheap, value-only (1 = off)",
            &c.selfplay.playout_cap_p_full, 0.0, 1.0);
  AddInt(r, "selfplay.playout_cap_cheap_simulations", "simulations of a cheap move",
         &c.selfplay.playout_cap_cheap_simulations, 0, 1000000);
  AddFloat(r, "selfplay.resign_threshold", "resign when the root value stays below this (-1 = never)",
           &c.selfplay.resign_threshold, -1.0, 1.0);
  AddInt(r, "selfplay.resign_consecutive", "own searches in a row below the threshold",
         &c.selfplay.resign_consecutive, 1, 1000);
  AddDouble(r, "selfplay.resign_disabled_share", "share of games that never resign (false-positive measurement)",
            &c.selfplay.resign_disabled_share, 0.0, 1.0);
  AddInt(r, "selfplay.balanced_opening_moves", "random opening stones kept only when the net's value is near even (0 = off)",
         &c.selfplay.balanced_opening_moves, 0, 100);
  AddFloat(r, "selfplay.balanced_opening_max_value", "|value| an opening may have",
           &c.selfplay.balanced_opening_max_value, 0.0, 1.0);
  AddInt(r, "selfplay.balanced_opening_simulations", "search of the opening's evaluation",
         &c.selfplay.balanced_opening_simulations, 1, 1000000);
  AddInt(r, "selfplay.balanced_opening_tries", "openings drawn before taking the most even",
         &c.selfplay.balanced_opening_tries, 1, 100000);
  AddDouble(r, "selfplay.open_opening_share", "share of games from the empty board or 1..max stones near the centre (the openings players meet; 0 = off)",
            &c.selfplay.open_opening_share, 0.0, 1.0);
  AddDouble(r, "selfplay.even_opening_share", "share of games from the board's even opening set under a random symmetry (boards without one: none; 0 = off)",
            &c.selfplay.even_opening_share, 0.0, 1.0);
  AddInt(r, "selfplay.open_opening_max_stones", "most stones of such an opening (the count is uniform in 0..max)",
         &c.selfplay.open_opening_max_stones, 0, 8);
  AddInt(r, "selfplay.open_opening_radius", "their stones lie within this distance of the centre",
         &c.selfplay.open_opening_radius, 1, 10);
  AddStringList(r, "selfplay.board_sizes", "mixed sizes: SIZE:WEIGHT entries drawn per game (must include board.size; others need net.heads conv); empty = board.size only",
                &c.selfplay.board_sizes, [](const std::string& e) { ParseSizeShare(e); });
}

// inference.* (every net's forward) and engine.* (the engine's search).
void AddInferenceKeys(Registry& r, Config& c) {
  AddString(r, "inference.symmetry", "none, random or all8", &c.inference.symmetry, {"none", "random", "all8"});
  AddString(r, "inference.device", "auto, cpu, cuda or cuda:N", &c.inference.device, {}, [](const std::string& s) {
    if (s != "auto" && s != "cpu" && s.rfind("cuda", 0) != 0)
      GOMOKU_THROW(ConfigError, "expected auto, cpu, cuda or cuda:N");
  });
  AddInt(r, "inference.threads", "threads of a network's forward (the native forward cuts a batch over them, LibTorch's runs them intra-op): the engine, analysis, the dashboard, arena, a worker's local inference, the server (unless server.threads)", &c.inference.threads, 1, 256);
  AddString(r, "inference.backend", "the network forward wherever a net is loaded to play or serve (engine, analysis, dashboard, arena, evaluator, inference server, a worker's local inference): auto (native on the CPU, LibTorch on CUDA), native (own CPU kernels) or torch (LibTorch)",
            &c.inference.backend, {"auto", "native", "torch"});
  // The engine's search (common/match/search_player.h).  In-flight counts are int16 per edge:
  // threads x batch + batch stays below 32767.
  AddInt(r, "engine.batch", "the engine's search (pbrain, play, dashboard games): leaves gathered per evaluation with virtual loss (1 = the single-leaf search; engine.md)",
         &c.engine.batch, 1, 512);
  AddInt(r, "engine.threads", "the engine's search: threads sharing one tree (network evaluations serialised; 1 = the calling thread)",
         &c.engine.threads, 1, 32);
}

// server.*: the inference server.
void AddServerKeys(Registry& r, Config& c) {
  AddString(r, "server.socket", "socket path (empty = <run>/sock/infer.sock); env GOMOKU_INFER_SOCK", &c.server.socket);
  AddInt(r, "server.max_batch", "positions per forward; env GOMOKU_MAX_BATCH", &c.server.max_batch, 1, 65536);
  AddString(r, "server.max_wait", "ms a batch waits after its first request, or \"auto\"; env GOMOKU_MAX_WAIT_MS",
            &c.server.max_wait, {}, [](const std::string& s) {
    if (s == "auto") return;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1000)
      GOMOKU_THROW(ConfigError, "expected milliseconds in [0, 1000] or \"auto\", got '" << s << "'");
  });
  AddDouble(r, "server.auto_wait_ceiling_ms", "longest an auto batch stays open while the device is free",
            &c.server.auto_wait_ceiling_ms, 0.0, 1000.0);
  AddBool(r, "server.auto_pipeline", "EXPERIMENTAL, off by default (its benchmark did not show a gain in self-play): with auto wait, alternate two halves of the clients when measured faster than lockstep",
          &c.server.auto_pipeline);
  AddDouble(r, "server.stats_interval_s", "period of the stats log line and status/server.json",
            &c.server.stats_interval_s, 0.1, 86400.0);
  AddDouble(r, "server.idle_timeout_s", "a silent or dripping connection is closed after this",
            &c.server.idle_timeout_s, 0.1, 86400.0);
  AddInt(r, "server.max_clients", "connection limit", &c.server.max_clients, 1, 100000);
  AddInt(r, "server.max_pending_replies", "per-connection reply queue cap (a client that never reads is cut off)",
         &c.server.max_pending_replies, 1, 100000);
  AddInt(r, "server.cache_entries", "NN result cache size (0 = off)", &c.server.cache_entries, 0, 100000000);
  AddString(r, "server.precision", "fp32, bf16 or fp16 (CUDA only)", &c.server.precision, {"fp32", "bf16", "fp16"});
  AddBool(r, "server.cuda_graphs", "CUDA Graph capture (CUDA only)", &c.server.cuda_graphs);
  AddBool(r, "server.device_encode", "CUDA only: batches cross to the GPU as compact boards and are encoded there (false = encoded on the host)",
          &c.server.device_encode);
  AddInt(r, "server.threads", "threads of the server's forward (0 = inference.threads); the server owns the CPU, so on a CPU machine give it the cores",
         &c.server.threads, 0, 256);
  AddDouble(r, "server.heartbeat_s", "with run.host and --run-dir: how often the server follows reload.json and rewrites status/{host}/reload_ack.json",
            &c.server.heartbeat_s, 0.05, 3600.0);
}

// worker.* and run.*: self-play workers and the run directory.
void AddRunKeys(Registry& r, Config& c) {
  AddInt(r, "worker.parallel_games", "games one worker advances together (their leaves batched)",
         &c.worker.parallel_games, 1, 4096);
  AddDouble(r, "worker.reconnect_initial_s", "first reconnect backoff", &c.worker.reconnect_initial_s, 0.01, 3600.0);
  AddDouble(r, "worker.reconnect_max_s", "backoff ceiling", &c.worker.reconnect_max_s, 0.01, 3600.0);
  AddDouble(r, "worker.poll_interval_s", "metadata.json polling period", &c.worker.poll_interval_s, 0.01, 3600.0);
  AddString(r, "run.dir", "run directory", &c.run.dir);
  AddInt(r, "run.worker_count", "number of workers", &c.run.worker_count, 1, 4096);
  AddInt(r, "run.worker_games_per_worker", "games each worker produces per iteration",
         &c.run.worker_games_per_worker, 1, 1000000);
  AddInt(r, "run.target_games", "games the trainer waits for", &c.run.target_games, 1, 10000000);
  AddInt(r, "run.min_games", "fewest games the stall timeout may train on", &c.run.min_games, 1, 10000000);
  AddDouble(r, "run.stall_timeout_s", "no new game this long: train on what is there (if at least min_games)",
            &c.run.stall_timeout_s, 0.1, 86400.0 * 7);
  AddDouble(r, "run.progress_log_s", "period of the trainer's progress lines", &c.run.progress_log_s, 0.1, 86400.0);
  AddU64(r, "run.seed", "run seed (game seeds, initial weights)", &c.run.seed);
  AddInt(r, "run.max_iterations", "stop after this many iterations (0 = run until stopped)",
         &c.run.max_iterations, 0, 100000000);
  AddString(r, "run.host", "this machine's name on a shared run directory (\"\" = one machine); in game files, status, logs, pids, socket (operations.md, Many hosts)",
            &c.run.host, {}, CheckHostName);
  AddDouble(r, "run.host_timeout_s", "a self-play host whose heartbeat stops this long is excluded from the reload wait, by name",
            &c.run.host_timeout_s, 0.1, 86400.0);
}

// train.*: the trainer, its recipe and data-parallel training.
void AddTrainKeys(Registry& r, Config& c) {
  AddInt(r, "train.train_batches", "optimizer steps per iteration", &c.train.train_batches, 1, 1000000);
  AddInt(r, "train.batch_size", "samples per step", &c.train.batch_size, 1, 65536);
  AddInt(r, "train.replay_iterations", "replay window W (iterations)", &c.train.replay_iterations, 1, 100000);
  AddString(r, "train.optimizer", "adam or sgd (with momentum)", &c.train.optimizer, {"adam", "sgd"});
  AddDouble(r, "train.learning_rate", "learning rate", &c.train.learning_rate, 1e-9, 10.0);
  AddDouble(r, "train.momentum", "SGD momentum", &c.train.momentum, 0.0, 1.0);
  AddDouble(r, "train.weight_decay", "L2 coefficient", &c.train.weight_decay, 0.0, 1.0);
  AddString(r, "train.lr_schedule", "constant or step", &c.train.lr_schedule, {"constant", "step"});
  AddInt(r, "train.lr_step_iterations", "step schedule period", &c.train.lr_step_iterations, 1, 1000000);
  AddDouble(r, "train.lr_step_gamma", "step schedule factor", &c.train.lr_step_gamma, 1e-6, 1.0);
  AddDouble(r, "train.lr_min", "floor of the step schedule (0: none; at most train.learning_rate applies)",
            &c.train.lr_min, 0.0, 10.0);
  AddInt(r, "train.keep_last", "checkpoints kept", &c.train.keep_last, 1, 1000000);
  AddInt(r, "train.keep_every", "also keep every M-th checkpoint (0 = none)", &c.train.keep_every, 0, 1000000);
  AddInt(r, "train.threads", "trainer intra-op threads", &c.train.threads, 1, 256);
  AddDouble(r, "train.reload_timeout_s", "how long the trainer retries the server reload",
            &c.train.reload_timeout_s, 0.1, 86400.0);
  AddString(r, "train.init_weights", "cold start from this checkpoint instead of random weights (same net shape and rule; e.g. a net of nets/)",
            &c.train.init_weights);
  AddDouble(r, "train.value_target_q_weight", "value target = (1-w) z + w q (0 = the game result)",
            &c.train.value_target_q_weight, 0.0, 1.0);
  AddDouble(r, "train.window_power_alpha", "power-law replay window exponent (0 = off: the iteration window)",
            &c.train.window_power_alpha, 0.0, 1.0);
  AddDouble(r, "train.window_power_beta", "power-law window growth factor", &c.train.window_power_beta, 0.0, 100.0);
  AddInt(r, "train.window_min_samples", "power-law window's initial size", &c.train.window_min_samples, 1, 1000000000);
  AddDouble(r, "train.max_samples_per_new_sample", "cap on trained samples per new sample (0 = off)",
            &c.train.max_samples_per_new_sample, 0.0, 1000000.0);
  AddInt(r, "train.world_size", "data-parallel trainer ranks (c10d; rank 0 = the trainer, --rank R for the others)",
         &c.train.world_size, 1, 64);
  AddString(r, "train.dist_store", "rendezvous of the ranks: tcp://HOST:PORT (TCPStore on rank 0) or file://PATH (FileStore)",
            &c.train.dist_store, {}, CheckDistStore);
  AddDouble(r, "train.dist_timeout_s", "rendezvous and every collective fail after this (a dead or stuck rank)",
            &c.train.dist_timeout_s, 1.0, 86400.0);
  AddDouble(r, "train.allreduce_bucket_mb", "gradient allreduce bucket size",
            &c.train.allreduce_bucket_mb, 0.001, 4096.0);
  AddString(r, "train.dist_interface", "Gloo's network interface (\"\" = the host name's address)",
            &c.train.dist_interface);
}

// eval.* and dashboard.*: the evaluator and the web dashboard.
void AddEvalKeys(Registry& r, Config& c) {
  AddBool(r, "eval.enabled", "launch/start.sh starts the evaluator", &c.eval.enabled);
  AddInt(r, "eval.every", "evaluate every N-th published iteration", &c.eval.every, 1, 1000000);
  AddInt(r, "eval.games", "games per opponent and evaluation (colours alternate)", &c.eval.games, 1, 100000);
  AddInt(r, "eval.simulations", "simulations of the net under test (no noise)", &c.eval.simulations, 1, 1000000);
  AddInt(r, "eval.threads", "threads of the evaluator's network forward", &c.eval.threads, 1, 256);
  AddInt(r, "eval.nice", "the evaluator's scheduling priority increment", &c.eval.nice, 0, 19);
  AddStringList(r, "eval.ladder", "opponents: rollout:P, classical:N (the classical alpha-beta player, N nodes a move), checkpoint:N, previous:K, net:PATH[:SIMS] (a fixed net, e.g. a reference net), engine:COMMAND (a list, or one comma-separated string)",
                &c.eval.ladder, CheckLadderEntry);
  AddString(r, "eval.anchor", "the player whose Elo is 0", &c.eval.anchor, {}, CheckLadderEntry);
  AddInt(r, "eval.engine_turn_ms", "timeout_turn sent to engine: opponents", &c.eval.engine_turn_ms, 1, 3600000);
  AddInt(r, "eval.engine_grace_ms", "an engine later than turn + grace loses the game",
         &c.eval.engine_grace_ms, 0, 3600000);
  AddBool(r, "dashboard.enabled", "launch/start.sh starts gz_dashboard", &c.dashboard.enabled);
  AddString(r, "dashboard.bind", "listen address (non-loopback prints a warning)", &c.dashboard.bind);
  AddInt(r, "dashboard.port", "HTTP port", &c.dashboard.port, 1, 65535);
  AddInt(r, "dashboard.max_games", "browser games against the newest net at once", &c.dashboard.max_games, 0, 1000);
  AddDouble(r, "dashboard.idle_timeout_s", "a browser game ends after this long unused",
            &c.dashboard.idle_timeout_s, 1.0, 86400.0);
  AddInt(r, "dashboard.simulations", "the browser opponent's simulations per move",
         &c.dashboard.simulations, 1, 1000000);
}

}  // namespace

Registry MakeRegistry(Config& c) {
  Registry r;
  AddBoardKeys(r, c);
  AddMctsKeys(r, c);
  AddSelfplayKeys(r, c);
  AddInferenceKeys(r, c);
  AddServerKeys(r, c);
  AddRunKeys(r, c);
  AddTrainKeys(r, c);
  AddEvalKeys(r, c);
  return r;
}

}  // namespace config_detail
}  // namespace gz
