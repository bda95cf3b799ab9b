// The native CPU forward (common/net/native/) against LibTorch's, one thread,
// the same positions, in one run.
//
//   bench_native_forward [--quick] [--net PATH] [--seconds S]
//
// Nets: PATH (default: the newest shipped 15x15 net in nets/), then random
// nets of the 32x4 conv-heads and the 128x8 fc-heads (GPU scale) shapes on
// 15x15.  For each net and batch 1, 4, 16, 64 the two forwards run in
// alternating rounds (so a busy neighbour slows both alike); the best round of
// each gives evaluations (positions) per second of wall clock and per second
// of the process's CPU time (less disturbed by other processes on a shared
// machine), and the ratios native / torch are printed.  Run with
// OMP_NUM_THREADS=1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/net/native/native_forward.h"
#include "common/net/net_api.h"

namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double CpuNow() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

struct Rate {
  double wall = 0, cpu = 0;  // positions per second
};

// Planes of `count` positions from seeded random games (every stage of a game).
std::vector<float> Positions(int size, int count) {
  std::mt19937 rng(11);
  std::vector<float> planes(static_cast<size_t>(count) * gz::PlaneFloats(size));
  for (int i = 0; i < count; ++i) {
    gz::Board b(size, gz::Rule::kFreestyle);
    const int moves = static_cast<int>(rng() % (size * size / 2));
    for (int m = 0; m < moves && !b.terminal(); ++m) {
      const auto legal = b.LegalMoves();
      b.Play(legal[rng() % legal.size()]);
    }
    gz::EncodePosition(b.ToPosition(), 0, planes.data() + static_cast<size_t>(i) * gz::PlaneFloats(size));
  }
  return planes;
}

// Positions per second of one round of about `seconds`, batches of `batch`
// cycling through the positions.
Rate Round(gz::BatchForward& f, const std::vector<float>& planes, int count, int batch, double seconds) {
  const int size = f.board_size();
  std::vector<float> logp(static_cast<size_t>(batch) * size * size), value(batch);
  const double start = Now(), cpu_start = CpuNow();
  long done = 0;
  int at = 0;
  while (Now() - start < seconds) {
    if (at + batch > count) at = 0;
    f.Forward(planes.data() + static_cast<size_t>(at) * gz::PlaneFloats(size), batch, logp.data(), value.data());
    done += batch;
    at += batch;
  }
  return {done / (Now() - start), done / std::max(1e-9, CpuNow() - cpu_start)};
}

void BenchNet(const std::string& path, const std::string& label, double seconds, int rounds) {
  gz::CheckpointInfo info;
  auto torch = gz::LoadForward(path, "cpu", 1, {}, &info);
  auto native = gz::LoadNativeForward(path);
  const int count = 256;
  const std::vector<float> planes = Positions(info.board_size, count);
  std::printf("\n%s: %dx%d %s heads on %dx%d\n  %s\n  %s\n", label.c_str(), info.channels, info.blocks,
              gz::NetHeadsName(info.heads), info.board_size, info.board_size, torch->Describe().c_str(),
              native->Describe().c_str());
  std::printf("  %6s %14s %14s %13s %16s %16s %13s\n", "batch", "torch evals/s", "native evals/s", "native/torch",
              "torch evals/cpu-s", "native evals/cpu-s", "native/torch");
  for (int batch : {1, 4, 16, 64}) {
    Rate t, n;
    for (int r = 0; r < rounds; ++r) {
      const Rate rt = Round(*torch, planes, count, batch, seconds);
      const Rate rn = Round(*native, planes, count, batch, seconds);
      t = {std::max(t.wall, rt.wall), std::max(t.cpu, rt.cpu)};
      n = {std::max(n.wall, rn.wall), std::max(n.cpu, rn.cpu)};
    }
    std::printf("  %6d %14.0f %14.0f %13.2f %16.0f %16.0f %13.2f\n", batch, t.wall, n.wall, n.wall / t.wall, t.cpu,
                n.cpu, n.cpu / t.cpu);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: bench_native_forward [--quick] [--net PATH] [--seconds S]\n";
  gz::CliArgs args = gz::ParseCli(argc, argv, gz::CliSpec{usage, {"--net", "--seconds"}, {"--quick"}});
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const bool quick = args.has("--quick");
  const double seconds = args.has("--seconds") ? std::atof(args.get("--seconds").c_str()) : (quick ? 0.1 : 0.4);
  const int rounds = quick ? 1 : 3;
  std::string net = args.has("--net") ? args.get("--net") : "";
  if (net.empty()) net = std::string(GZ_SOURCE_DIR) + "/nets/gz-15x15-freestyle-2026-12-05.pt";
  BenchNet(net, "net " + net, seconds, rounds);
  const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
  const std::string conv = tmp + "/bench_native_32x4_conv.pt";
  gz::CreateRandomCheckpoint(conv, 15, gz::Rule::kFreestyle, 32, 4, 1, 0, 0, "conv");
  BenchNet(conv, "random net", seconds, rounds);
  const std::string big = tmp + "/bench_native_128x8_fc.pt";
  gz::CreateRandomCheckpoint(big, 15, gz::Rule::kFreestyle, 128, 8, 1, 0, 0, "fc");
  BenchNet(big, "random net (GPU scale)", seconds, rounds);
  return 0;
}
