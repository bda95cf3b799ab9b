// The native CPU forward's kernel choices, measured in one run (own
// kernels or Eigen, whichever is faster at these sizes):
//   avx2     the own product and transforms with AVX2+FMA (the default)
//   generic  the same code for the baseline instruction set (SSE2 on x86-64)
//   eigen    the avx2 table with Eigen 3.4's matrix product (Map * Map,
//            noalias, this file compiled with AVX2+FMA) in place of the own one
//
//   bench_native_kernels [--net PATH] [--seconds S]
//
// Evaluations per CPU-second of each at batch 1, 4, 16, 64 (rounds
// alternate; the best of 3), ratios to avx2.  Default nets: the shipped
// 2026-12-05 net (32x4, fc) and a random 128x8 fc net on 15x15.
#include <Eigen/Core>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/game/encoder.h"
#include "common/net/native/kernels.h"
#include "common/net/native/native_forward.h"
#include "common/net/net_api.h"

namespace {

void EigenGemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
               const float* bias, bool relu) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<const Matrix, 0, Stride> am(a, m, k, Stride(lda));
  Eigen::Map<const Matrix, 0, Stride> bm(b, k, n, Stride(ldb));
  Eigen::Map<Matrix, 0, Stride> cm(c, m, n, Stride(ldc));
  cm.noalias() = am * bm;
  if (bias) cm.rowwise() += Eigen::Map<const Eigen::Matrix<float, 1, Eigen::Dynamic>>(bias, n);
  if (relu) cm = cm.cwiseMax(0.0f);
}

double CpuNow() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

void BenchNet(const std::string& path, double seconds) {
  std::vector<std::string> names;
  std::vector<std::unique_ptr<gz::BatchForward>> forwards;
  for (const char* name : {"avx2", "generic"})
    if (gz::native::KernelsNamed(name)) {
      names.push_back(name);
      forwards.push_back(gz::LoadNativeForwardWith(path, name));
    }
  static gz::native::Kernels eigen = gz::native::BestKernels();
  eigen.name = "eigen";
  eigen.gemm = &EigenGemm;
  names.push_back("eigen");
  forwards.push_back(gz::LoadNativeForwardWithTable(path, eigen));
  const int size = forwards[0]->board_size();
  std::printf("\n%s (%dx%d)\n  %6s", path.c_str(), size, size, "batch");
  for (const auto& n : names) std::printf(" %14s", (n + " evals/cpu-s").c_str());
  for (size_t i = 1; i < names.size(); ++i) std::printf(" %14s", (names[0] + "/" + names[i]).c_str());
  std::printf("\n");
  for (int batch : {1, 4, 16, 64}) {
    std::vector<float> planes(static_cast<size_t>(batch) * gz::PlaneFloats(size), 0.0f);
    std::vector<float> logp(static_cast<size_t>(batch) * size * size), value(batch);
    for (size_t i = 0; i < planes.size(); i += 7) planes[i] = 1.0f;  // some stones everywhere
    std::vector<double> best(forwards.size(), 0.0);
    for (int round = 0; round < 3; ++round)
      for (size_t f = 0; f < forwards.size(); ++f) {
        const double start = CpuNow();
        long done = 0;
        while (CpuNow() - start < seconds) {
          forwards[f]->Forward(planes.data(), batch, logp.data(), value.data());
          done += batch;
        }
        best[f] = std::max(best[f], done / (CpuNow() - start));
      }
    std::printf("  %6d", batch);
    for (double b : best) std::printf(" %14.0f", b);
    for (size_t i = 1; i < best.size(); ++i) std::printf(" %14.2f", best[0] / best[i]);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: bench_native_kernels [--net PATH] [--seconds S]\n";
  gz::CliArgs args = gz::ParseCli(argc, argv, gz::CliSpec{usage, {"--net", "--seconds"}, {}});
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const double seconds = args.has("--seconds") ? std::atof(args.get("--seconds").c_str()) : 0.3;
  if (args.has("--net")) {
    BenchNet(args.get("--net"), seconds);
    return 0;
  }
  BenchNet(std::string(GZ_SOURCE_DIR) + "/nets/gz-15x15-freestyle-2026-12-05.pt", seconds);
  const std::string tmp = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  const std::string big = tmp + "/bench_native_kernels_128x8.pt";
  gz::CreateRandomCheckpoint(big, 15, gz::Rule::kFreestyle, 128, 8, 1, 0, 0, "fc");
  BenchNet(big, seconds);
  return 0;
}
