// bench_selfplay: the same self-play workload (same seeds, games, network and
// simulations) in several modes, in one run, with the ratios between them.
//   (a) every worker with local inference (the seed's "before")
//   (b) inference server, 1 game per worker (the seed's "after")
//   (c) inference server, k games per worker (leaves batched per worker)
//   (d) (c) with the server's NN result cache
// --backends torch,native runs each server mode once per server forward
// (inference.backend), one after the other; --config FILE and --weights NET
// give the workers and the server a run's settings and a trained net (the
// main job's workload: its search, solver and openings) instead of defaults
// and a random net.
// Real binaries (build/bin/worker, infer_server, infer_ctl), real sockets.
//
// "steady fill" is the fill while every worker still had k games in flight:
// the server's counters at the moment the first worker freed a slot with no
// game left to start (its tail; a real run streams games without end and has
// none).  "fill" is over the whole run, tail included.
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "common/base/cli.h"
#include "common/base/fileio.h"
#include "common/net/net_api.h"
#include "common/harness/infer_server_process.h"
#include "common/harness/test_process.h"
#include "common/harness/wait_until.h"

using namespace gz;
namespace fs = std::filesystem;

namespace {

struct Opts {
  std::string bin;
  int workers = 8, games = 2, k = 4, board = 15, channels = 32, blocks = 4, sims = 32, groups = 2, max_batch_b = 0;
  int cache = 200000;
  int server_threads = 0;  // 0 = the machine's cores: the server owns the CPU
  std::string symmetry = "random", max_wait = "3";
  std::string device = "cpu";             // inference.device of the server and of (a)'s workers (server
                                          // modes' workers: cpu)
  std::vector<std::string> server_sets;   // extra KEY=VALUE settings of the server
  std::vector<std::string> backends;      // server modes once per inference.backend (empty: the config's)
  std::string config;                     // --config of the server and the workers (empty: defaults)
  std::string weights;                    // the net (empty: a random one of --net's shape)
  std::string dir;
};

// argv[0] as a child with its output in `log` (replacing an earlier one) and
// the bench's environment less GOMOKU_INFER_SOCK, plus `env`.
std::unique_ptr<testing::TestProcess> Spawn(const std::vector<std::string>& argv, const std::string& log,
                                            const std::map<std::string, std::string>& env) {
  std::remove(log.c_str());
  return std::make_unique<testing::TestProcess>(argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()), log,
                                                env, std::vector<std::string>{"GOMOKU_INFER_SOCK"});
}

struct ModeResult {
  std::string name;
  double seconds = 0, games = 0, evals = 0, avg_batch = 0, fill = 0, hit_rate = -1, busy = -1;
  double steady_fill = -1;  // -1: no steady window measured
  double forward_ms = 0;    // server modes: average forward time
  double mfu = -1;          // server modes: forward FLOPs / wall time / measured peak (-1: no peak)
  double flops_at_start = 0;  // the server's forward_flops_total before the workers started
  std::string closes;  // batch close reasons (server modes)
  int max_batch = 0;
};

nlohmann::json FetchServerStats(const Opts& o, const std::string& sock, const std::string& out) {
  if (std::system((o.bin + "/infer_ctl --socket " + sock + " stats > " + out).c_str()) != 0)
    throw std::runtime_error("infer_ctl stats failed on " + sock);
  return nlohmann::json::parse(ReadFileOrThrow(out));
}

// True once some worker has finished `finished` games (w<id>_g<n>.npz files):
// it then has a slot free and no game left to start.
bool FirstTailStarted(const std::string& games_dir, int workers, int finished) {
  std::vector<int> count(workers, 0);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(games_dir, ec)) {
    const std::string f = e.path().filename().string();
    int id = -1, g = -1;
    if (f.size() > 4 && f.compare(f.size() - 4, 4, ".npz") == 0 && std::sscanf(f.c_str(), "w%d_g%d", &id, &g) == 2 &&
        id >= 0 && id < workers && ++count[id] >= finished)
      return true;
  }
  return false;
}

// The inference server of a server mode, serving before it returns.
std::unique_ptr<testing::InferServerProcess> StartServer(const Opts& o, const std::string& ckpt, int max_batch,
                                                         int cache, const std::vector<std::string>& common,
                                                         const std::map<std::string, std::string>& env,
                                                         const std::string& sock, const std::string& dir) {
  std::vector<std::string> sargs = {"--weights", ckpt, "--set", "server.max_batch=" + std::to_string(max_batch),
                                    "--set", "server.max_wait=" + o.max_wait, "--set",
                                    "server.cache_entries=" + std::to_string(cache), "--set",
                                    "server.threads=" + std::to_string(o.server_threads)};
  for (const auto& kv : o.server_sets) {
    sargs.push_back("--set");
    sargs.push_back(kv);
  }
  sargs.insert(sargs.end(), common.begin(), common.end());
  std::map<std::string, std::string> senv = env;
  senv["GOMOKU_INFER_SOCK"] = sock;
  std::remove((dir + "/server.log").c_str());
  auto server = std::make_unique<testing::InferServerProcess>(sargs, dir + "/server.log", senv, o.bin + "/infer_server");
  const bool up = testing::WaitUntil([&] { return testing::ServedGeneration(sock) >= 0; }, 30,
                                     std::chrono::milliseconds(100));
  if (!up) throw std::runtime_error("server did not start; see " + dir + "/server.log");
  return server;
}

ModeResult RunMode(const Opts& o, const std::string& name, const std::string& ckpt, bool server, int k, int cache,
                   const std::string& backend = "") {
  ModeResult r;
  r.name = name;
  static int runs = 0;  // a mode may run more than once (--backends torch,native,torch)
  const std::string run_name = std::to_string(++runs) + "-" + name;
  std::string dir = o.dir + "/" + run_name;
  fs::create_directories(dir);
  std::vector<std::string> common = {"--set", "board.size=" + std::to_string(o.board),
                                     "--set", "mcts.simulations=" + std::to_string(o.sims),
                                     "--set", "inference.symmetry=" + o.symmetry,
                                     "--set", "inference.device=" + o.device};
  if (!o.config.empty()) common.insert(common.begin(), {"--config", o.config});
  // In server modes the server alone uses the device; a worker's fallback
  // (which would be logged) runs on the CPU.
  std::vector<std::string> worker_common = common;
  if (server) worker_common.back() = "inference.device=cpu";
  if (!backend.empty()) common.insert(common.end(), {"--set", "inference.backend=" + backend});
  std::string sock = "/tmp/gz-bench-" + std::to_string(getpid()) + "-" + run_name + "/s.sock";
  std::unique_ptr<testing::InferServerProcess> server_process;
  // (b): one position per worker, max_batch = workers (the seed's setting).
  // (c)/(d): workers x k positions in flight, max_batch = that / groups, so a
  // full batch assembles while the previous one is in the forward.
  r.max_batch = o.max_batch_b > 0 ? o.max_batch_b : k == 1 ? o.workers : std::max(1, o.workers * k / o.groups);
  std::map<std::string, std::string> env = {{"OMP_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1"}};
  if (server) {
    server_process = StartServer(o, ckpt, r.max_batch, cache, common, env, sock, dir);
    env["GOMOKU_INFER_SOCK"] = sock;
    r.flops_at_start = FetchServerStats(o, sock, dir + "/start.json").value("forward_flops_total", 0.0);
  }
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<testing::TestProcess>> workers;
  for (int w = 0; w < o.workers; ++w) {
    std::vector<std::string> a = {o.bin + "/worker", "--id", std::to_string(w), "--games", std::to_string(o.games),
                                  "--weights", ckpt, "--out", dir + "/games", "--summary",
                                  dir + "/sum" + std::to_string(w) + ".json", "--set",
                                  "worker.parallel_games=" + std::to_string(k)};
    a.insert(a.end(), worker_common.begin(), worker_common.end());
    workers.push_back(Spawn(a, dir + "/worker" + std::to_string(w) + ".log", env));
  }
  // Wait for the workers; in server modes with k < games, snapshot the
  // server's counters when the first worker enters its tail.
  const bool watch_tail = server && k > 1 && o.games > k;
  std::vector<bool> done(workers.size(), false);
  size_t running = workers.size();
  while (running > 0) {
    for (size_t w = 0; w < workers.size(); ++w) {
      if (done[w]) continue;
      const std::optional<int> code = watch_tail ? workers[w]->Poll() : workers[w]->Wait();
      if (!code) continue;
      if (*code != 0) throw std::runtime_error("a worker failed in mode " + name);
      done[w] = true;
      --running;
    }
    if (watch_tail && r.steady_fill < 0 && running > 0) {
      if (FirstTailStarted(dir + "/games", o.workers, o.games - k + 1)) {
        auto s = FetchServerStats(o, sock, dir + "/steady.json");
        const double forwards = s.value("forwards_total", 0.0);
        if (forwards >= 10) r.steady_fill = s.value("avg_batch_total", 0.0) / r.max_batch;
        else r.steady_fill = -2;  // too short to say
      }
    }
    if (running > 0 && watch_tail) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  mode %s: workers done in %.1f s\n", name.c_str(), r.seconds);
  for (int w = 0; w < o.workers; ++w) {
    auto j = nlohmann::json::parse(ReadFileOrThrow(dir + "/sum" + std::to_string(w) + ".json"));
    r.games += j["games"].get<double>();
    r.evals += j["evaluations"].get<double>();
    if (server && j["mode"] != "remote") std::fprintf(stderr, "warning: worker %d ended in %s mode\n", w,
                                                      j["mode"].get<std::string>().c_str());
  }
  if (server) {
    auto s = FetchServerStats(o, sock, dir + "/stats.json");
    r.avg_batch = s.value("avg_batch_total", 0.0);
    r.fill = r.avg_batch / r.max_batch;
    r.forward_ms = s.value("avg_forward_ms_total", 0.0);
    r.busy = s.value("forwards_total", 0.0) * r.forward_ms / 1000.0 / r.seconds;
    // Whole-run MFU: the run's forward FLOPs over its wall time, against the
    // device's measured peak (absent on a server that did not measure one).
    if (s.value("peak_flops", 0.0) > 0)
      r.mfu = (s.value("forward_flops_total", 0.0) - r.flops_at_start) / r.seconds / s["peak_flops"].get<double>();
    if (const std::string closes = bench::BatchCloses(s); !closes.empty()) r.closes += " " + closes;
    if (s.contains("cache_hit_rate_total")) r.hit_rate = s["cache_hit_rate_total"].get<double>();
    else if (s.contains("cache_hit_rate")) r.hit_rate = s["cache_hit_rate"].get<double>();
    server_process->Signal(SIGTERM);
    server_process->Wait();
  } else {
    r.avg_batch = 1;
    r.max_batch = 1;
    r.fill = 1;
  }
  return r;
}

// A crash of the bench itself (not of a child) prints its stack to stderr:
// device runs have no debugger beside them.
void PrintStackAndDie(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char msg[] = "bench_selfplay: fatal signal, stack:\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGSEGV, PrintStackAndDie);
  signal(SIGABRT, PrintStackAndDie);
  setvbuf(stdout, nullptr, _IOLBF, 0);  // progress survives a crash
  try {
    CliSpec spec{"bench_selfplay [--workers W] [--games G] [--k K] [--board N] [--net CxB] [--sims S] "
                 "[--symmetry none|random|all8] [--max-wait MS|auto] [--cache N] [--modes abcd] [--server-threads T] [--groups G] "
                 "[--max-batch B] [--device cpu|cuda|cuda:N] [--server-set KEY=VALUE[,KEY=VALUE...]] "
                 "[--backends torch,native] [--config FILE] [--weights NET]",
                 {"--workers", "--games", "--k", "--board", "--net", "--sims", "--symmetry", "--max-wait", "--cache",
                  "--modes", "--server-threads", "--groups", "--max-batch", "--device", "--server-set", "--backends",
                  "--weights"},
                 {}};
    CliArgs args = ParseCli(argc, argv, spec);
    if (args.help) {
      std::puts(spec.usage.c_str());
      return 0;
    }
    Opts o;
    o.bin = fs::canonical("/proc/self/exe").parent_path().string();
    o.workers = static_cast<int>(args.get_int("--workers", o.workers));
    o.games = static_cast<int>(args.get_int("--games", o.games));
    o.k = static_cast<int>(args.get_int("--k", o.k));
    o.board = static_cast<int>(args.get_int("--board", o.board));
    o.sims = static_cast<int>(args.get_int("--sims", o.sims));
    o.cache = static_cast<int>(args.get_int("--cache", o.cache));
    o.symmetry = args.get("--symmetry", o.symmetry);
    o.max_wait = args.get("--max-wait", o.max_wait);
    o.server_threads = static_cast<int>(args.get_int("--server-threads", 0));
    o.groups = static_cast<int>(args.get_int("--groups", o.groups));
    o.max_batch_b = static_cast<int>(args.get_int("--max-batch", 0));  // forces max_batch in every server mode
    if (o.groups < 1) throw std::runtime_error("--groups must be >= 1");
    o.device = args.get("--device", o.device);
    o.server_sets = bench::ParseServerSets(args.get("--server-set", ""));
    for (std::string rest = args.get("--backends", ""); !rest.empty();) {
      const size_t comma = rest.find(',');
      o.backends.push_back(rest.substr(0, comma));
      if (o.backends.back() != "torch" && o.backends.back() != "native" && o.backends.back() != "auto")
        throw std::runtime_error("--backends: '" + o.backends.back() + "' is not torch, native or auto");
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
    o.config = args.config;  // ParseCli takes --config itself
    o.weights = args.get("--weights", "");
    if (o.server_threads <= 0) o.server_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::string modes = args.get("--modes", "abcd");
    if (args.has("--net") && std::sscanf(args.get("--net").c_str(), "%dx%d", &o.channels, &o.blocks) != 2)
      throw std::runtime_error("--net expects CxB, e.g. 32x4");
    if (o.games % o.k != 0) std::fprintf(stderr, "note: games %d is not a multiple of k %d\n", o.games, o.k);
    o.dir = "/tmp/gz-bench-selfplay-" + std::to_string(getpid());
    fs::create_directories(o.dir);
    std::string ckpt = o.dir + "/net.pt";
    if (o.weights.empty()) CreateRandomCheckpoint(ckpt, o.board, Rule::kFreestyle, o.channels, o.blocks, 1, 0, 0);
    else ckpt = o.weights;
    std::string sets;
    for (const auto& kv : o.server_sets) sets += " " + kv;
    std::printf("bench_selfplay: %d workers x %d games, board %d, net %dx%d, %d simulations, symmetry %s, "
                "max_wait %s ms, k %d, server threads %d (workers 1 each), groups %d, device %s%s%s\n",
                o.workers, o.games, o.board, o.channels, o.blocks, o.sims, o.symmetry.c_str(), o.max_wait.c_str(), o.k,
                o.server_threads, o.groups, o.device.c_str(), sets.empty() ? "" : ", server:", sets.c_str());
    if (!o.config.empty()) std::printf("  config %s for the server and the workers%s%s\n", o.config.c_str(),
                                       o.weights.empty() ? "" : ", net ", o.weights.c_str());
    std::vector<ModeResult> res;
    // Server modes run once per --backends entry, one after the other, so
    // their ratio lines compare the forwards under the same load.
    const std::vector<std::string> backends = o.backends.empty() ? std::vector<std::string>{""} : o.backends;
    auto server_mode = [&](const std::string& name, int k, int cache) {
      for (const std::string& b : backends)
        res.push_back(RunMode(o, b.empty() ? name : name + "-" + b, ckpt, true, k, cache, b));
    };
    if (modes.find('a') != std::string::npos) res.push_back(RunMode(o, "a-local", ckpt, false, 1, 0));
    if (modes.find('b') != std::string::npos) server_mode("b-server-k1", 1, 0);
    if (modes.find('c') != std::string::npos) server_mode("c-server-k" + std::to_string(o.k), o.k, 0);
    if (modes.find('d') != std::string::npos) server_mode("d-server-k" + std::to_string(o.k) + "-cache", o.k, o.cache);
    std::printf("%-22s %9s %10s %12s %10s %9s %6s %12s %9s %9s %7s\n", "mode", "seconds", "games/min", "evals/s",
                "avg batch", "max_batch", "fill", "steady fill", "cache hit", "fwd busy", "MFU");
    for (const auto& r : res) {
      char hit[32] = "-";
      if (r.hit_rate >= 0) std::snprintf(hit, sizeof hit, "%.3f", r.hit_rate);
      char busy[32] = "-";
      if (r.busy >= 0) std::snprintf(busy, sizeof busy, "%.2f", r.busy);
      char steady[32] = "-";
      if (r.steady_fill >= 0) std::snprintf(steady, sizeof steady, "%.2f", r.steady_fill);
      char mfu[32] = "-";
      if (r.mfu >= 0) std::snprintf(mfu, sizeof mfu, "%.1f%%", r.mfu * 100);
      std::printf("%-22s %9.1f %10.2f %12.0f %10.2f %9d %6.2f %12s %9s %9s %7s\n", r.name.c_str(), r.seconds,
                  r.games / r.seconds * 60, r.evals / r.seconds, r.avg_batch, r.max_batch, r.fill, steady, hit, busy,
                  mfu);
    }
    for (const auto& r : res)
      if (!r.closes.empty()) std::printf("  %s batch closes:%s\n", r.name.c_str(), r.closes.c_str());
    // What a mode could reach if its server's forward never idled: the
    // average batch over the average forward time (Little's law with the
    // positions a mode keeps in flight; a bound, not a prediction).
    const ModeResult* local = res.empty() || res[0].name[0] != 'a' ? nullptr : &res[0];
    for (const auto& r : res) {
      if (r.forward_ms <= 0) continue;
      const double ceiling = r.avg_batch / (r.forward_ms / 1000.0);
      std::printf("  %s: %.0f evals/s with the forward always busy (avg batch / forward time %.3f ms)", r.name.c_str(),
                  ceiling, r.forward_ms);
      if (local) std::printf(" = %.2f x (a)'s evals/s", ceiling / (local->evals / local->seconds));
      std::printf("\n");
    }
    auto gpm = [](const ModeResult& r) { return r.games / r.seconds * 60; };
    for (size_t i = 1; i < res.size(); ++i)
      std::printf("ratio %s / %s (games/min): %.2f\n", res[i].name.c_str(), res[i - 1].name.c_str(),
                  gpm(res[i]) / gpm(res[i - 1]));
    if (res.size() >= 2) std::printf("ratio %s / %s (games/min): %.2f\n", res.back().name.c_str(), res[0].name.c_str(),
                                     gpm(res.back()) / gpm(res[0]));
    fs::remove_all(o.dir);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_selfplay: %s\n", e.what());
    return 1;
  }
}
