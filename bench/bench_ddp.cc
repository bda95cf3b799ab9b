// Data-parallel training on the CPU (trainer/data_parallel.h): the time of
// one training step of the same global batch on 1 rank and on 2 Gloo ranks
// (two processes on 127.0.0.1), and the allreduce's share of the 2-rank step.
//
//   bench_ddp [--config configs/cpu.json] [--steps N] [--rounds R] [--no-pin]
//
// Every measurement runs in a child process of this program: 1 rank with 1
// intra-op thread, 1 rank with 2 threads (the fair one-process use of 2
// cores), and 2 ranks with 1 thread each (torch::set_num_threads(1),
// OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1, each rank pinned to its own core
// unless --no-pin).  The rounds interleave the three, and the figures are
// medians, printed as ratios measured in this run.  The net, board, batch and
// optimizer are the config's (the default 15x15 32x4 CPU net, batch 256).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/base/logging.h"
#include "common/harness/free_port.h"
#include "common/harness/random_game.h"
#include "common/harness/test_process.h"
#include "common/net/model.h"
#include "trainer/data_parallel.h"
#include "trainer/net_trainer.h"
#include "trainer/rank_follower.h"
#include "trainer/replay_buffer.h"

namespace {

using namespace gz;
using namespace gz::testing;
using Clock = std::chrono::steady_clock;

const char* kUsage =
    "usage: bench_ddp [--config FILE (default configs/cpu.json)] [--steps N (default 20)] [--rounds R (default 3)]\n"
    "                 [--no-pin]\n";

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)), &set);
  sched_setaffinity(0, sizeof set, &set);
}

ReplayBuffer BenchBuffer(const Config& c) {
  ReplayBuffer buffer(c.board.size, 1);
  std::vector<GameRecord> games;
  for (int g = 0; g < 24; ++g) games.push_back(RandomGame(c.board.size, 1, 777 + g));
  std::vector<const GameRecord*> ptrs;
  for (auto& g : games) ptrs.push_back(&g);
  buffer.AddIteration(1, ptrs);
  return buffer;
}

// `reps` allreduces of `floats` floats after one to line the ranks up: the
// mean seconds of one.
double PureAllreduce(DataParallel& dp, int64_t floats, int reps) {
  std::vector<torch::Tensor> t = {torch::ones({floats})};
  dp.AllreduceSum(t);
  const auto start = Clock::now();
  for (int i = 0; i < reps; ++i) dp.AllreduceSum(t);
  return std::chrono::duration<double>(Clock::now() - start).count() / reps;
}

// A child: trains `steps` timed steps (after 3 warm-up steps) and prints
// "result: step_s=... allreduce_s=... broadcast_s=...".
int Child(const CliArgs& args) {
  Config c = Config::Load(args.config, args.sets);
  const int steps = static_cast<int>(args.get_int("--steps", 20));
  const int threads = static_cast<int>(args.get_int("--threads", 1));
  const int rank = static_cast<int>(args.get_int("--rank", 0));
  if (args.has("--pin")) Pin(static_cast<int>(args.get_int("--pin", 0)));
  torch::set_num_threads(threads);
  c.inference.device = "cpu";
  std::unique_ptr<DataParallel> dp;
  if (c.train.world_size > 1)
    dp = std::make_unique<DataParallel>(c.train, DataParallelFingerprint(c), rank, torch::kCPU);
  PolicyValueNet net(c.board.size, c.net.channels, c.net.blocks);
  net->InitSeeded(1);
  NetTrainer trainer(std::move(net), c.train, torch::kCPU);
  trainer.SetDataParallel(dp.get());
  if (dp && rank > 0) {  // RankFollower's loop, plus the bench's own "allreduce" command
    for (;;) {
      const nlohmann::json cmd = *dp->Next(nullptr);
      const std::string op = cmd.value("op", "");
      if (op == "train") trainer.Follow(cmd);
      else if (op == "allreduce") PureAllreduce(*dp, cmd["floats"].get<int64_t>(), cmd["reps"].get<int>());
      else return op == "stop" ? 0 : 1;
    }
  }
  ReplayBuffer buffer = BenchBuffer(c);
  trainer.Train(buffer, 1, 3, c.train.batch_size, 1);  // warm-up
  const auto start = Clock::now();
  trainer.Train(buffer, 1, steps, c.train.batch_size, 2);
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  const DistStats st = dp ? dp->stats() : DistStats();
  double pure = 0;
  if (dp) {  // the same bytes allreduced with both ranks waiting for it: the transport's own cost
    const int64_t floats = st.allreduce_bytes / std::max(1, steps) / 4;
    const int reps = 20;
    dp->Post({{"op", "allreduce"}, {"floats", floats}, {"reps", reps}});
    pure = PureAllreduce(*dp, floats, reps);
  }
  std::printf("result: step_s=%.6f allreduce_s=%.6f broadcast_s=%.6f state_bytes=%lld allreduce_bytes=%lld "
              "pure_allreduce_s=%.6f\n",
              secs / steps, st.allreduce_s / steps, st.broadcast_s / steps, static_cast<long long>(st.state_bytes),
              static_cast<long long>(st.allreduce_bytes / std::max(1, steps)), pure);
  std::fflush(stdout);
  return 0;
}

std::map<std::string, double> Result(const std::string& log) {
  std::ifstream in(log);
  std::string line;
  std::map<std::string, double> out;
  while (std::getline(in, line)) {
    if (line.rfind("result: ", 0) != 0) continue;
    std::istringstream ss(line.substr(8));
    std::string kv;
    while (ss >> kv) {
      const auto eq = kv.find('=');
      out[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
    }
  }
  if (out.empty()) GOMOKU_THROW(GomokuError, "bench child wrote no result; see " << log);
  return out;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One 2-rank run (ranks on a fresh TCP store port, pinned to cores 0 and 1
// when `pin`); returns rank 0's result line.
nlohmann::json RunTwoRanks(const std::string& exe, const std::vector<std::string>& base, bool pin,
                           const std::string& tmp, int* run, const std::map<std::string, std::string>& env) {
  const int port = FreePort();
  std::vector<std::string> extra = {"--set", "train.world_size=2", "--set",
                                    "train.dist_store=tcp://127.0.0.1:" + std::to_string(port)};
  auto a0 = base, a1 = base;
  a0.insert(a0.end(), extra.begin(), extra.end());
  a1.insert(a1.end(), extra.begin(), extra.end());
  a0.insert(a0.end(), {"--rank", "0"});
  a1.insert(a1.end(), {"--rank", "1"});
  if (pin) {
    a0.insert(a0.end(), {"--pin", "0"});
    a1.insert(a1.end(), {"--pin", "1"});
  }
  const std::string log0 = tmp + "/run" + std::to_string((*run)++) + ".log";
  const std::string log1 = tmp + "/run" + std::to_string((*run)++) + ".log";
  TestProcess p0(exe, a0, log0, env);
  TestProcess p1(exe, a1, log1, env);
  if (p0.Wait() != 0 || p1.Wait() != 0) GOMOKU_THROW(GomokuError, "2-rank run failed; see " << log0 << ", " << log1);
  return Result(log0);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    CliSpec spec;
    spec.usage = kUsage;
    spec.value_flags = {"--steps", "--rounds", "--threads", "--rank", "--pin"};
    spec.switches = {"--no-pin", "--child"};
    CliArgs args = ParseCli(argc, argv, spec);
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    if (args.has("--child")) return Child(args);

    const std::string config = args.config.empty() ? std::string(GZ_SOURCE_DIR) + "/configs/cpu.json" : args.config;
    const int steps = static_cast<int>(args.get_int("--steps", 20));
    const int rounds = static_cast<int>(args.get_int("--rounds", 3));
    const bool pin = !args.has("--no-pin");
    Config c = Config::Load(config, args.sets);
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) GOMOKU_THROW(GomokuError, "cannot read /proc/self/exe");
    exe[n] = '\0';
    char tmpl[] = "/tmp/bench_ddp-XXXXXX";
    const std::string tmp = mkdtemp(tmpl);

    std::printf("bench_ddp: %s: %dx%d board, net %dx%d, batch %d, %s; %d timed steps per run, %d rounds%s\n",
                config.c_str(), c.board.size, c.board.size, c.net.channels, c.net.blocks, c.train.batch_size,
                c.train.optimizer.c_str(), steps, rounds, pin ? ", ranks pinned to cores" : "");
    const std::map<std::string, std::string> one_thread = {{"OMP_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1"}};
    const std::map<std::string, std::string> two_threads = {{"OMP_NUM_THREADS", "2"}, {"OPENBLAS_NUM_THREADS", "2"}};
    std::vector<double> single1, single2, ddp, ddp_allreduce, ddp_broadcast, ddp_pure;
    double state_bytes = 0, allreduce_bytes = 0;
    int run = 0;
    for (int r = 0; r < rounds; ++r) {
      auto base = [&](int threads) {
        std::vector<std::string> a = {"--child", "--config", config, "--steps", std::to_string(steps), "--threads",
                                      std::to_string(threads)};
        for (const auto& s : args.sets) a.insert(a.end(), {"--set", s});
        return a;
      };
      {
        auto a = base(1);
        if (pin) a.insert(a.end(), {"--pin", "0"});
        const std::string log = tmp + "/run" + std::to_string(run++) + ".log";
        TestProcess p(exe, a, log, one_thread);
        if (p.Wait() != 0) GOMOKU_THROW(GomokuError, "1-rank run failed; see " << log);
        single1.push_back(Result(log)["step_s"]);
      }
      {
        const std::string log = tmp + "/run" + std::to_string(run++) + ".log";
        TestProcess p(exe, base(2), log, two_threads);
        if (p.Wait() != 0) GOMOKU_THROW(GomokuError, "1-rank 2-thread run failed; see " << log);
        single2.push_back(Result(log)["step_s"]);
      }
      {
        const nlohmann::json res = RunTwoRanks(exe, base(1), pin, tmp, &run, one_thread);
        ddp.push_back(res["step_s"]);
        ddp_allreduce.push_back(res["allreduce_s"]);
        ddp_broadcast.push_back(res["broadcast_s"]);
        ddp_pure.push_back(res["pure_allreduce_s"]);
        state_bytes = res["state_bytes"];
        allreduce_bytes = res["allreduce_bytes"];
      }
      std::printf("  round %d: 1 rank x 1 thread %.1f ms, 1 rank x 2 threads %.1f ms, 2 ranks x 1 thread %.1f ms "
                  "(allreduce %.1f ms, of which transport %.1f ms; broadcasts %.1f ms)\n",
                  r + 1, 1e3 * single1.back(), 1e3 * single2.back(), 1e3 * ddp.back(), 1e3 * ddp_allreduce.back(),
                  1e3 * ddp_pure.back(), 1e3 * ddp_broadcast.back());
      std::fflush(stdout);
    }
    const double s1 = Median(single1), s2 = Median(single2), d = Median(ddp), ar = Median(ddp_allreduce),
                 bc = Median(ddp_broadcast), pure = Median(ddp_pure);
    std::printf("median step (global batch %d):\n", c.train.batch_size);
    std::printf("  1 rank  x 1 thread : %8.1f ms   1.00\n", 1e3 * s1);
    std::printf("  1 rank  x 2 threads: %8.1f ms   %.2fx faster than 1x1\n", 1e3 * s2, s1 / s2);
    std::printf("  2 ranks x 1 thread : %8.1f ms   %.2fx faster than 1x1, %.2fx vs 1x2\n", 1e3 * d, s1 / d, s2 / d);
    std::printf("  2-rank step: allreduce %.1f ms (%.0f%% of the step, %.0f kB per step; it includes waiting for the\n"
                "    slower rank: the same bytes allreduced by waiting ranks take %.1f ms = %.0f%% of the step),\n"
                "    batch+state broadcasts %.1f ms (%.0f%%), compute and the rest %.1f ms; state per Train %.0f kB\n",
                1e3 * ar, 100 * ar / d, allreduce_bytes / 1e3, 1e3 * pure, 100 * pure / d, 1e3 * bc, 100 * bc / d,
                1e3 * (d - ar - bc), state_bytes / 1e3);
    std::filesystem::remove_all(tmp);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_ddp: %s\n", e.what());
    return 1;
  }
}
