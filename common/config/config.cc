#include "common/config/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/run_layout.h"
#include "common/search/symmetric_batch.h"

namespace gz {
namespace {

using nlohmann::json;

// One entry per key: how to set it from JSON (bounds checked), read it back,
// and its help text (the meaning column of docs/configuration.md's key table,
// printed by `worker --print-config-doc` for dev/gen_config_doc.py).
struct Field {
  std::function<void(const json&, const std::string& key)> set;
  std::function<json()> get;
  std::string help;
};
using Registry = std::map<std::string, Field>;

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
                   if (check) {
                     try {
                       check(s);
                     } catch (const GomokuError& e) {
                       Bad(k, e.what());
                     }
                   }
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
                     if (check) {
                       try {
                         check(out[i]);
                       } catch (const GomokuError& e) {
                         Bad(k, "entry '" + out[i] + "': " + e.what());
                       }
                     }
                   }
                   *p = std::move(out);
                 },
                 [p] { return json(*p); }, help};
}

// One selfplay.board_sizes entry: "SIZE" (weight 1) or "SIZE:WEIGHT", with
// kMinBoardSize <= SIZE <= kMaxBoardSize and WEIGHT a finite number > 0.
std::pair<int, double> ParseSizeShare(const std::string& s) {
  const auto colon = s.find(':');
  const std::string size_text = s.substr(0, colon);
  const std::string weight_text = colon == std::string::npos ? "1" : s.substr(colon + 1);
  size_t used = 0;
  int size = 0;
  double weight = 0;
  try {
    size = std::stoi(size_text, &used);
    if (used != size_text.size()) throw std::invalid_argument("trailing");
    weight = std::stod(weight_text, &used);
    if (used != weight_text.size()) throw std::invalid_argument("trailing");
  } catch (const std::logic_error&) {
    GOMOKU_THROW(ConfigError, "expected SIZE or SIZE:WEIGHT (e.g. 15:8)");
  }
  if (size < kMinBoardSize || size > kMaxBoardSize)
    GOMOKU_THROW(ConfigError, "board size " << size << " is outside [" << kMinBoardSize << ", " << kMaxBoardSize << "]");
  if (!(weight > 0) || !std::isfinite(weight)) GOMOKU_THROW(ConfigError, "weight must be a finite number > 0");
  return {size, weight};
}

// An opponent of the evaluator's ladder: rollout:P, classical:N, checkpoint:N,
// previous:K (P, K >= 1, N >= 0; classical's N >= 1) or engine:COMMAND.  Whether a checkpoint exists or an
// engine starts is checked by the evaluator at start, where the run is known.
void CheckLadderEntry(const std::string& s) {
  auto colon = s.find(':');
  std::string kind = s.substr(0, colon), arg = colon == std::string::npos ? "" : s.substr(colon + 1);
  if (kind == "engine") {
    if (arg.empty()) GOMOKU_THROW(ConfigError, "engine: needs a command");
    return;
  }
  if (kind == "net") {  // a fixed net outside the run (e.g. a reference net), at eval.simulations or :SIMS
    if (arg.empty()) GOMOKU_THROW(ConfigError, "net: needs a checkpoint path (net:PATH or net:PATH:SIMS)");
    return;
  }
  if (kind != "rollout" && kind != "classical" && kind != "checkpoint" && kind != "previous")
    GOMOKU_THROW(ConfigError, "unknown opponent kind '" << kind
                                  << "' (rollout:P, classical:N, checkpoint:N, previous:K, net:PATH, engine:COMMAND)");
  char* end = nullptr;
  long long n = arg.empty() ? -1 : std::strtoll(arg.c_str(), &end, 10);
  if (arg.empty() || *end != '\0' || n < (kind == "checkpoint" ? 0 : 1) || n > 100000000)
    GOMOKU_THROW(ConfigError, kind << ": expects " << (kind == "checkpoint" ? "an iteration >= 0" : "a count >= 1")
                                   << ", got '" << arg << "'");
}

// A self-play host's name goes into file and directory names on the shared
// run directory (games/it{N}/{host}_w{id}_g{k}.npz, status/{host}/): letters,
// digits, '-' and '.', not starting with '.', at most 64 characters.
void CheckHostName(const std::string& s) {
  if (s.empty()) return;  // one machine: today's names
  if (s.size() > 64) GOMOKU_THROW(ConfigError, "a host name has at most 64 characters, got " << s.size());
  if (s[0] == '.') GOMOKU_THROW(ConfigError, "a host name may not start with '.', got '" << s << "'");
  if (!IsValidHostName(s))
    GOMOKU_THROW(ConfigError, "a host name has only letters, digits, '-' and '.', got '" << s << "'");
}

// The c10d rendezvous of data-parallel training: tcp://HOST:PORT (a TCPStore
// served by rank 0) or file://PATH (a FileStore every rank can open).
void CheckDistStore(const std::string& s) {
  if (s.rfind("file://", 0) == 0) {
    if (s.size() == 7) GOMOKU_THROW(ConfigError, "file:// needs a path");
    return;
  }
  if (s.rfind("tcp://", 0) != 0)
    GOMOKU_THROW(ConfigError, "expected tcp://HOST:PORT or file://PATH, got '" << s << "'");
  const std::string rest = s.substr(6);
  const auto colon = rest.rfind(':');
  char* end = nullptr;
  const long port = colon == std::string::npos ? -1 : std::strtol(rest.c_str() + colon + 1, &end, 10);
  if (colon == 0 || colon == std::string::npos || colon + 1 == rest.size() || *end != '\0' || port < 1 ||
      port > 65535)
    GOMOKU_THROW(ConfigError, "expected tcp://HOST:PORT with a port in 1..65535, got '" << s << "'");
}

Registry MakeRegistry(Config& c) {
  Registry r;
  AddInt(r, "board.size", "board side, 5..22", &c.board.size, kMinBoardSize, kMaxBoardSize);
  AddString(r, "board.rule", "freestyle (5+ wins), standard (exactly 5), renju (black: exactly 5, no overline, double four or double three; a draw at 25 empty points), caro (exactly 5, not closed at both ends by the opponent or the edge; Gomocup rule 9) or caro-overline (6+, or as caro; Gomocup rule 8)",
            &c.board.rule, {"freestyle", "standard", "renju", "caro", "caro-overline"});
  AddInt(r, "net.channels", "residual tower width", &c.net.channels, 1, 1024);
  AddInt(r, "net.blocks", "residual blocks", &c.net.blocks, 0, 64);
  AddString(r, "net.heads", "fc (fixed board size) or conv (convolutional policy, pooled value: any size 5..22)",
            &c.net.heads, {"fc", "conv"});
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
  return r;
}

// The new name of a renamed key (Config::RenamedKeys), or nullptr.
const std::string* RenamedTo(const std::string& key) {
  for (const auto& [old_key, new_key] : Config::RenamedKeys())
    if (old_key == key) return &new_key;
  return nullptr;
}

void Flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, const json*>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it.value().is_object()) Flatten(it.value(), key, out);
    else out.emplace_back(key, &it.value());
  }
}

}  // namespace

SelfPlayParams Config::selfplay_params() const {
  SelfPlayParams p = selfplay;  // the selfplay.* keys (board_sizes is the worker's, not the game's)
  p.mcts = mcts;
  return p;
}

void Config::Apply(const json& j, const std::string& source) {
  if (!j.is_object()) GOMOKU_THROW(ConfigError, source << ": the config must be a JSON object");
  Registry reg = MakeRegistry(*this);
  std::vector<std::pair<std::string, const json*>> leaves;
  Flatten(j, "", leaves);
  for (auto& [written, val] : leaves) {
    std::string key = written, from = source;
    if (const std::string* renamed = RenamedTo(written)) {  // an old file: the value goes to the new key
      for (const auto& other : leaves)
        if (other.first == *renamed)
          GOMOKU_THROW(ConfigError, source << ": config key '" << written << "' is the old name of '" << *renamed
                                           << "': give only '" << *renamed << "'");
      key = *renamed;
      from = source + " (as " + written + ")";
    }
    auto it = reg.find(key);
    if (it == reg.end()) GOMOKU_THROW(ConfigError, source << ": unknown config key '" << key << "'");
    try {
      it->second.set(*val, key);
    } catch (const ConfigError& e) {
      GOMOKU_THROW(ConfigError, from << ": " << e.what());
    }
    origins_[key] = from;
  }
}

void Config::ApplyOverride(const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    GOMOKU_THROW(ConfigError, "--set expects dotted.key=value, got '" << assignment << "'");
  std::string key = assignment.substr(0, eq), raw = assignment.substr(eq + 1);
  Set(key, raw, "--set");
}

void Config::Set(const std::string& key, const std::string& raw, const std::string& source) {
  if (const std::string* renamed = RenamedTo(key))
    GOMOKU_THROW(ConfigError, source << ": config key '" << key << "' was renamed to '" << *renamed << "'");
  Registry reg = MakeRegistry(*this);
  auto it = reg.find(key);
  if (it == reg.end()) GOMOKU_THROW(ConfigError, source << ": unknown config key '" << key << "'");
  json v;
  try {
    v = json::parse(raw);
    if (v.is_object() || v.is_null()) v = raw;  // arrays stay arrays (string lists)
  } catch (const json::exception&) {
    v = raw;  // plain strings need no quotes
  }
  try {
    it->second.set(v, key);
  } catch (const ConfigError& e) {
    GOMOKU_THROW(ConfigError, source << ": " << e.what());
  }
  origins_[key] = source;
}

const std::vector<std::pair<std::string, std::string>>& Config::RenamedKeys() {
  // The engine's batch and threads were mcts.* keys (in MctsParams) until the
  // search's own settings and the engine's were separated.
  static const std::vector<std::pair<std::string, std::string>> kRenamed = {
      {"mcts.engine_batch", "engine.batch"},
      {"mcts.engine_threads", "engine.threads"},
  };
  return kRenamed;
}

const std::vector<std::pair<std::string, std::string>>& Config::EnvironmentBindings() {
  static const std::vector<std::pair<std::string, std::string>> kBindings = {
      {"GOMOKU_INFER_SOCK", "server.socket"},   // also: workers use the server iff it is set
      {"GOMOKU_MAX_BATCH", "server.max_batch"},
      {"GOMOKU_MAX_WAIT_MS", "server.max_wait"},
  };
  return kBindings;
}

void Config::ApplyEnvironment() {
  for (const auto& [var, key] : EnvironmentBindings()) {
    const char* v = std::getenv(var.c_str());
    if (v && *v) Set(key, v, "env " + var);
  }
}

void Config::AdoptRunGeometry(const Config& shared, const std::string& source) {
  board = shared.board;
  inference.symmetry = shared.inference.symmetry;
  selfplay.board_sizes = shared.selfplay.board_sizes;
  net.heads = shared.net.heads;
  for (const char* key : {"board.size", "board.rule", "inference.symmetry", "selfplay.board_sizes", "net.heads"})
    origins_[key] = source;
}

std::vector<std::pair<int, double>> Config::board_size_shares() const {
  std::vector<std::pair<int, double>> out;
  for (const auto& e : selfplay.board_sizes) out.push_back(ParseSizeShare(e));
  return out;
}

std::vector<int> Config::board_sizes() const {
  std::vector<int> out{board.size};
  for (const auto& [size, weight] : board_size_shares()) out.push_back(size);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string Config::origin(const std::string& key) const {
  auto it = origins_.find(key);
  return it == origins_.end() ? "default" : it->second;
}

std::string Config::DescribeOrigins() const {
  const json defaults = Config().ToJson(), now = ToJson();
  std::string out;
  for (const auto& key : Keys()) {
    std::string ptr = "/" + key;
    std::replace(ptr.begin(), ptr.end(), '.', '/');
    const json& v = now.at(json::json_pointer(ptr));
    const bool known = origins_.count(key) > 0;
    if (v == defaults.at(json::json_pointer(ptr)) && !known) continue;
    out += (out.empty() ? "" : ", ") + key + "=" + v.dump() + " (" + (known ? origin(key) : "set by the program") + ")";
  }
  return out.empty() ? "all defaults" : out;
}

const std::vector<std::string>& Config::PlaySettingKeys() {
  // inference.symmetry too: how a position is evaluated is part of how the net
  // was rated (the evaluator plays with the run's), and it sets the engine's
  // cost per evaluation (all8 is 8 rows of a forward, random one).
  static const std::vector<std::string> keys = {"mcts.c_puct",        "mcts.fpu_value",  "mcts.fpu_reduction_root",
                                                "mcts.fpu_reduction", "mcts.solver",     "mcts.solver_vcf_nodes",
                                                "mcts.solver_vct_nodes",
                                                "inference.symmetry"};
  return keys;
}

namespace {
// The value of `key` as --set text (strings bare, everything else as JSON).
std::string SettingText(const json& all, const std::string& key) {
  std::string ptr = "/" + key;
  std::replace(ptr.begin(), ptr.end(), '.', '/');
  const json& v = all.at(json::json_pointer(ptr));
  return v.is_string() ? v.get<std::string>() : v.dump();
}
}  // namespace

std::map<std::string, std::string> Config::PlaySettings() const {
  const json all = ToJson();
  std::map<std::string, std::string> out;
  for (const auto& key : PlaySettingKeys()) out[key] = SettingText(all, key);
  return out;
}

std::vector<std::string> Config::AdoptPlaySettings(const std::map<std::string, std::string>& settings,
                                                   const std::string& source) {
  const auto& keys = PlaySettingKeys();
  std::vector<std::string> set;
  for (const auto& [key, text] : settings) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      GOMOKU_THROW(ConfigError, source << ": '" << key << "' is not a play setting (those are the search settings "
                                       << "a net plays with: mcts.c_puct, mcts.fpu_*, mcts.solver*, inference.symmetry)");
    if (origins_.count(key)) continue;  // set explicitly: that wins
    Set(key, text, source);
    set.push_back(key);
  }
  return set;
}

std::string Config::DescribePlaySettings() const {
  const json all = ToJson();
  std::string out;
  for (const auto& key : PlaySettingKeys())
    out += (out.empty() ? "" : ", ") + key + "=" + SettingText(all, key) + " (" + origin(key) + ")";
  return out;
}

void Config::Validate() const {
  if (run.min_games > run.target_games)
    GOMOKU_THROW(ConfigError, "config key 'run.min_games': " << run.min_games << " exceeds run.target_games "
                                                             << run.target_games);
  if (selfplay.random_opening_moves >= board.size * board.size)
    GOMOKU_THROW(ConfigError, "config key 'selfplay.random_opening_moves': too many for the board");
  if (selfplay.playout_cap_p_full < 1.0 &&
      (selfplay.playout_cap_cheap_simulations < 1 || selfplay.playout_cap_cheap_simulations > mcts.simulations))
    GOMOKU_THROW(ConfigError, "config key 'selfplay.playout_cap_cheap_simulations': "
                                  << selfplay.playout_cap_cheap_simulations
                                  << " must be in [1, mcts.simulations " << mcts.simulations
                                  << "] when selfplay.playout_cap_p_full < 1");
  if (mcts.policy_target_pruning && mcts.forced_playouts_k <= 0)
    GOMOKU_THROW(ConfigError, "config key 'mcts.policy_target_pruning': needs mcts.forced_playouts_k > 0 (it "
                              "removes forced playouts)");
  // Random first moves replace every other way of starting a game: each of
  // these keys, set together with them, is refused by its own name.
  if (selfplay.random_opening_moves > 0) {
    const std::pair<const char*, bool> openings[] = {
        {"selfplay.balanced_opening_moves", selfplay.balanced_opening_moves > 0},
        {"selfplay.even_opening_share", selfplay.even_opening_share > 0},
        {"selfplay.open_opening_share", selfplay.open_opening_share > 0}};
    for (const auto& [key, on] : openings)
      if (on)
        GOMOKU_THROW(ConfigError, "config key '" << key << "': use it or selfplay.random_opening_moves, not both");
  }
  if (selfplay.balanced_opening_moves >= board.size * board.size)
    GOMOKU_THROW(ConfigError, "config key 'selfplay.balanced_opening_moves': too many for the board");
  if (worker.reconnect_initial_s > worker.reconnect_max_s)
    GOMOKU_THROW(ConfigError, "config key 'worker.reconnect_initial_s' exceeds worker.reconnect_max_s");
  if (run.dir.empty()) GOMOKU_THROW(ConfigError, "config key 'run.dir' must not be empty");
  if (train.world_size > train.batch_size)
    GOMOKU_THROW(ConfigError, "config key 'train.world_size': " << train.world_size << " ranks exceed train.batch_size "
                                                                << train.batch_size << " (each rank needs a row)");
  if (net.heads == "conv" && train.world_size > 1)  // trainer/rank_follower.cc builds fc nets
    GOMOKU_THROW(ConfigError, "config key 'net.heads': conv heads are not supported with train.world_size > 1 yet "
                              "(the follower ranks build fc nets)");
  if (!selfplay.board_sizes.empty()) {
    const auto shares = board_size_shares();
    bool has_primary = false;
    for (size_t i = 0; i < shares.size(); ++i) {
      has_primary = has_primary || shares[i].first == board.size;
      for (size_t j = 0; j < i; ++j)
        if (shares[j].first == shares[i].first)
          GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': size " << shares[i].first << " is listed twice");
      if (shares[i].first != board.size && net.heads != "conv")
        GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': size " << shares[i].first << " differs from board.size "
                                  << board.size << " and needs net.heads conv (fc heads play one size)");
      if (selfplay.random_opening_moves >= shares[i].first * shares[i].first ||
          selfplay.balanced_opening_moves >= shares[i].first * shares[i].first)
        GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': size " << shares[i].first
                                  << " is too small for the opening moves");
    }
    if (!has_primary)
      GOMOKU_THROW(ConfigError, "config key 'selfplay.board_sizes': must include board.size " << board.size
                                << " (the checkpoints' and the engine's default size)");
  }
  ParseSymmetryMode(inference.symmetry);
}

json Config::ToJson() const {
  Registry reg = MakeRegistry(const_cast<Config&>(*this));
  json out = json::object();
  // Not a structured binding: clang 14 (emscripten 3.1.6) cannot capture one in a lambda.
  for (auto& entry : reg) {
    std::string k = entry.first;
    std::replace(k.begin(), k.end(), '.', '/');
    out[json::json_pointer("/" + k)] = entry.second.get();
  }
  return out;
}

std::string Config::ToJsonString(int indent) const { return ToJson().dump(indent); }

json Config::DocJson() {
  Config c;
  json out = json::array();
  for (auto& [key, field] : MakeRegistry(c)) out.push_back({{"key", key}, {"default", field.get()}, {"help", field.help}});
  return out;
}

std::vector<std::string> Config::Keys() {
  Config c;
  std::vector<std::string> keys;
  for (auto& [k, f] : MakeRegistry(c)) keys.push_back(k);
  return keys;
}

Config Config::FromJson(const json& j, const std::string& source) {
  Config c;
  c.Apply(j, source);
  c.Validate();
  return c;
}

namespace {

// `path` made relative to `dir` when it is relative (lexically normal).
std::string AgainstDir(const std::filesystem::path& dir, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (dir / path).lexically_normal().string();
}

}  // namespace

void Config::ResolveFilePaths(const std::string& file) {
  const std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
  train.init_weights = AgainstDir(dir, train.init_weights);
  for (std::string& entry : eval.ladder) {
    if (entry.rfind("net:", 0) != 0) continue;
    std::string rest = entry.substr(4), sims;
    const auto colon = rest.rfind(':');
    if (colon != std::string::npos && colon + 1 < rest.size() &&
        rest.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      sims = rest.substr(colon);
      rest.resize(colon);
    }
    entry = "net:" + AgainstDir(dir, rest) + sims;
  }
}

Config Config::Load(const std::string& file, const std::vector<std::string>& overrides) {
  Config c;
  if (!file.empty()) {
    std::string text = ReadFileOrThrow(file);
    json j;
    try {
      j = json::parse(text);
    } catch (const json::parse_error& e) {
      GOMOKU_THROW(ConfigError, file << ": invalid JSON: " << e.what());
    }
    c.Apply(j, file);
    c.ResolveFilePaths(file);
  }
  for (const auto& o : overrides) c.ApplyOverride(o);
  c.ApplyEnvironment();
  c.Validate();
  return c;
}

std::string ResolveSocketPath(const Config& c) {
  if (!c.server.socket.empty()) return c.server.socket;
  return RunLayout(c.run.dir).default_socket(c.run.host);
}

}  // namespace gz
