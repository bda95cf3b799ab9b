// Raw forward throughput of the policy/value network through TorchForward
// (host planes in, host outputs out), per batch size.
//
//   bench_forward [--threads N] [--quick] [--board S] [--nets CxB,CxB,...] [--heads fc,conv]
//
// Default nets: the seed net (128x8) and the small CPU net (32x4) on 15x15,
// fc heads.  Prints positions/s, the ratio to batch 1, FLOPs per position
// (ForwardFlops) and the achieved GFLOP/s.  With several --heads each net is
// measured with each, and a table of the throughput ratio to the first heads
// (wall and CPU time) follows.  Run with OMP_NUM_THREADS matching --threads.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "common/game/encoder.h"
#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/net/model.h"
#include "common/net/net_api.h"
#include "common/net/torch_forward.h"

namespace {

struct NetShape {
  int channels;
  int blocks;
};

struct Options {
  int threads = 1;
  bool quick = false;
  int board = 15;
  std::vector<NetShape> nets = {{128, 8}, {32, 4}};
  std::vector<std::string> heads = {"fc"};
};

// positions/s (wall) and positions per CPU-second of one batch size.
struct Rate {
  int batch;
  double wall;
  double cpu;
};

// CPU time of the whole process: on a shared machine this is less disturbed
// by other processes than the wall clock (with --threads 1 the two agree when
// the machine is idle).
double CpuNow() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<NetShape> ParseNets(const std::string& s) {
  std::vector<NetShape> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(start, end - start);
    NetShape n{};
    if (std::sscanf(item.c_str(), "%dx%d", &n.channels, &n.blocks) != 2)
      GOMOKU_THROW(gz::ConfigError, "--nets: '" << item << "' is not CxB");
    out.push_back(n);
    start = end + 1;
  }
  return out;
}

Options ParseArgs(int argc, char** argv) {
  const char* usage = "usage: bench_forward [--threads N] [--quick] [--board S] [--nets CxB,...] [--heads fc,conv]\n";
  gz::CliArgs args =
      gz::ParseCli(argc, argv, gz::CliSpec{usage, {"--threads", "--board", "--nets", "--heads"}, {"--quick"}});
  if (args.help) {
    std::fputs(usage, stdout);
    std::exit(0);
  }
  Options o;
  o.threads = static_cast<int>(args.get_int("--threads", o.threads));
  o.quick = args.has("--quick");
  o.board = static_cast<int>(args.get_int("--board", o.board));
  if (args.has("--nets")) o.nets = ParseNets(args.get("--nets"));
  if (args.has("--heads")) {
    o.heads.clear();
    const std::string s = args.get("--heads");
    for (size_t start = 0; start <= s.size();) {
      size_t end = s.find(',', start);
      if (end == std::string::npos) end = s.size();
      o.heads.push_back(s.substr(start, end - start));
      gz::ParseNetHeads(o.heads.back());  // ModelError naming an unknown one
      start = end + 1;
    }
  }
  return o;
}

std::vector<Rate> BenchNet(const Options& opt, NetShape shape, const std::string& heads) {
  gz::PolicyValueNet net(opt.board, shape.channels, shape.blocks, gz::ParseNetHeads(heads));
  net->InitSeeded(1);
  gz::CheckpointInfo info;
  info.board_size = opt.board;
  info.channels = shape.channels;
  info.blocks = shape.blocks;
  info.heads = gz::ParseNetHeads(heads);
  gz::TorchForward forward(net, info, "cpu", opt.threads);
  const double flops = gz::ForwardFlops(opt.board, shape.channels, shape.blocks, info.heads);
  std::vector<Rate> rates;
  std::printf("\nnet %dx%d %s heads on %dx%d: %.1f MFLOP per position; %s\n", shape.channels, shape.blocks,
              heads.c_str(), opt.board, opt.board, flops / 1e6, forward.Describe().c_str());
  std::printf("%6s %10s %12s %10s %9s %14s\n", "batch", "ms/batch", "positions/s", "vs batch1", "GFLOP/s",
              "pos/cpu-second");

  const int stride = gz::PlaneFloats(opt.board);
  const int points = opt.board * opt.board;
  const double target_s = opt.quick ? 0.3 : 1.5;
  std::mt19937 rng(7);
  double base = 0;
  for (int batch : {1, 2, 4, 8, 16, 32, 64}) {
    std::vector<float> planes(static_cast<size_t>(batch) * stride);
    for (float& x : planes) x = (rng() % 4 == 0) ? 1.0f : 0.0f;
    std::vector<float> logp(static_cast<size_t>(batch) * points), values(batch);
    // Warm-up: two forwards, or 10% of the time budget.
    const double warm_start = Now();
    for (int i = 0; i < 2 || Now() - warm_start < 0.1 * target_s; ++i)
      forward.Forward(planes.data(), batch, logp.data(), values.data());
    int iters = 0;
    const double start = Now();
    const double cpu_start = CpuNow();
    double elapsed = 0;
    while (iters < 3 || elapsed < target_s) {
      forward.Forward(planes.data(), batch, logp.data(), values.data());
      ++iters;
      elapsed = Now() - start;
    }
    const double pos_per_s = iters * batch / elapsed;
    const double pos_per_cpu_s = iters * batch / (CpuNow() - cpu_start);
    if (batch == 1) base = pos_per_s;
    rates.push_back({batch, pos_per_s, pos_per_cpu_s});
    std::printf("%6d %10.3f %12.1f %10.2f %9.2f %14.1f\n", batch, 1e3 * elapsed / iters, pos_per_s,
                pos_per_s / base, pos_per_s * flops / 1e9, pos_per_cpu_s);
    std::fflush(stdout);
  }
  return rates;
}

// Throughput of each heads relative to the first, per batch size.
void CompareHeads(const Options& opt, NetShape shape, const std::vector<std::vector<Rate>>& by_heads) {
  std::printf("\nnet %dx%d on %dx%d: throughput relative to %s heads (wall / cpu)\n%6s", shape.channels,
              shape.blocks, opt.board, opt.board, opt.heads[0].c_str(), "batch");
  for (size_t h = 1; h < opt.heads.size(); ++h) std::printf(" %17s", opt.heads[h].c_str());
  std::printf("\n");
  for (size_t i = 0; i < by_heads[0].size(); ++i) {
    std::printf("%6d", by_heads[0][i].batch);
    for (size_t h = 1; h < by_heads.size(); ++h)
      std::printf("      %5.3f / %5.3f", by_heads[h][i].wall / by_heads[0][i].wall,
                  by_heads[h][i].cpu / by_heads[0][i].cpu);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options opt = ParseArgs(argc, argv);
    const char* omp = std::getenv("OMP_NUM_THREADS");
    std::printf("bench_forward: threads %d, OMP_NUM_THREADS=%s, %s\n", opt.threads, omp ? omp : "(unset)",
                opt.quick ? "quick" : "full");
    for (const NetShape& n : opt.nets) {
      std::vector<std::vector<Rate>> by_heads;
      for (const std::string& h : opt.heads) by_heads.push_back(BenchNet(opt, n, h));
      if (by_heads.size() > 1) CompareHeads(opt, n, by_heads);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_forward: %s\n", e.what());
    return 1;
  }
}
