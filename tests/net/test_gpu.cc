// Tests of the CPU-visible parts of the GPU path (docs/gpu.md): batch
// buckets, the compact rows and the per-point encoding the CUDA kernel runs
// (executed here on the host, bit for bit against EncodePosition),
// ForwardOptions validation on the CPU and MeasurePeakFlops.  The kernel and
// CudaForward themselves run only on a device machine (bench_gpu).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/cuda/batch_buckets.h"
#include "common/net/cuda/compact_batch.h"
#include "common/net/net_api.h"
#include "common/game/symmetry.h"
#include "common/harness/temp_dir.h"

namespace gz {
namespace {

std::string TmpPath(const std::string& name) { return gz::testing::TestTmpPath("gpu_" + name); }

// Any cells, either colour to move, last move none / in range / out of range.
Position RandomPosition(int size, std::mt19937& rng) {
  Position pos;
  pos.size = size;
  pos.cells.resize(size * size);
  const int fill = static_cast<int>(rng() % 101);
  for (int8_t& c : pos.cells) {
    const int r = static_cast<int>(rng() % 200);
    c = r < fill ? kBlack : (r < 2 * fill ? kWhite : (r == 199 ? kBlocked : kEmpty));
  }
  pos.to_move = (rng() % 2) ? kBlack : kWhite;
  const int kind = static_cast<int>(rng() % 6);
  const int points = size * size;
  pos.last_move = kind == 0 ? kNoMove : (kind == 1 ? points + static_cast<int>(rng() % 40) : static_cast<int>(rng() % points));
  pos.rule = static_cast<Rule>(rng() % 3);  // renju: the forbidden-points plane (bit 2 of a cell byte)
  return pos;
}

// Packs `pos` under `sym`, runs the kernel's per-point code on the host into
// NaN-filled planes and compares with EncodePosition byte for byte.
bool CompactEncodingMatches(const Position& pos, int sym) {
  std::vector<uint8_t> row(CompactRowBytes(pos.size));
  PackCompactRow(pos, sym, row.data());
  std::vector<float> got(PlaneFloats(pos.size), std::numeric_limits<float>::quiet_NaN());
  std::vector<float> expect(PlaneFloats(pos.size));
  EncodeCompactRowsOnHost(row.data(), 1, pos.size, got.data());
  EncodePosition(pos, sym, expect.data());
  return std::memcmp(got.data(), expect.data(), sizeof(float) * got.size()) == 0;
}

}  // namespace

TEST_CASE("graph batch buckets: powers of two and 3 x powers of two, up to max_batch", "[gpu]") {
  CHECK(GraphBatchBuckets(1) == std::vector<int>{1});
  CHECK(GraphBatchBuckets(5) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(GraphBatchBuckets(20) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 20});
  CHECK(GraphBatchBuckets(256) == std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256});
  CHECK(GraphBatchBuckets(kMaxForwardBatch).back() == kMaxForwardBatch);
  CHECK_THROWS_AS(GraphBatchBuckets(0), ConfigError);
  CHECK_THROWS_AS(GraphBatchBuckets(-3), ConfigError);
  CHECK_THROWS_AS(GraphBatchBuckets(kMaxForwardBatch + 1), ConfigError);
}

TEST_CASE("BucketFor picks the smallest bucket that holds the batch; padding stays under a third", "[gpu]") {
  for (int max_batch : {1, 7, 20, 100, 160, 256, 1000}) {
    const std::vector<int> buckets = GraphBatchBuckets(max_batch);
    for (int n = 1; n <= max_batch; ++n) {
      const int b = BucketFor(buckets, n);
      INFO("max_batch " << max_batch << " n " << n << " bucket " << b);
      REQUIRE(b >= n);
      REQUIRE(std::find(buckets.begin(), buckets.end(), b) != buckets.end());
      for (int other : buckets) REQUIRE((other < n || other >= b));  // nothing smaller fits
      REQUIRE(3 * (b - n) < b);                                       // padding < 1/3 of the forward
    }
    CHECK_THROWS_AS(BucketFor(buckets, 0), GomokuError);
    CHECK_THROWS_AS(BucketFor(buckets, max_batch + 1), GomokuError);
  }
  CHECK_THROWS_AS(BucketFor({}, 1), GomokuError);
}

TEST_CASE("the kernel's symmetry mapping is TransformPoint", "[gpu]") {
  for (int size = kMinBoardSize; size <= kMaxBoardSize; ++size)
    for (int s = 0; s < kNumSymmetries; ++s)
      for (int p = 0; p < size * size; ++p) REQUIRE(CompactTransformPoint(s, p, size) == TransformPoint(s, p, size));
}

TEST_CASE("compact rows encode exactly like EncodePosition (all sizes, all symmetries)", "[gpu]") {
  std::mt19937 rng(2024);
  int checked = 0;
  for (int size = kMinBoardSize; size <= kMaxBoardSize; ++size) {
    for (int i = 0; i < 12; ++i) {
      const Position pos = RandomPosition(size, rng);
      for (int s = 0; s < kNumSymmetries; ++s) {
        INFO("size " << size << " position " << i << " symmetry " << s << " last " << pos.last_move);
        REQUIRE(CompactEncodingMatches(pos, s));
        ++checked;
      }
    }
    // Positions from play (renju on every other size), and the empty board (no last move).
    Board b(size, size % 2 ? Rule::kRenju : Rule::kFreestyle);
    for (int m = 0; m < 2 * size && !b.terminal(); ++m) {
      const auto legal = b.LegalMoves();
      b.Play(legal[rng() % legal.size()]);
      for (int s = 0; s < kNumSymmetries; ++s) REQUIRE(CompactEncodingMatches(b.ToPosition(), s));
    }
    for (int s = 0; s < kNumSymmetries; ++s) REQUIRE(CompactEncodingMatches(Board(size).ToPosition(), s));
  }
  CHECK(checked == (kMaxBoardSize - kMinBoardSize + 1) * 12 * kNumSymmetries);
}

TEST_CASE("several rows encode independently into consecutive plane blocks", "[gpu]") {
  std::mt19937 rng(7);
  const int size = 9, n = 20;
  std::vector<Position> positions;
  std::vector<uint8_t> syms;
  for (int i = 0; i < n; ++i) {
    positions.push_back(RandomPosition(size, rng));
    syms.push_back(static_cast<uint8_t>(rng() % kNumSymmetries));
  }
  std::vector<uint8_t> rows(n * CompactRowBytes(size));
  PackCompactRows(positions, syms, size, rows.data());
  std::vector<float> got(n * PlaneFloats(size), std::numeric_limits<float>::quiet_NaN()), expect(got.size());
  EncodeCompactRowsOnHost(rows.data(), n, size, got.data());
  for (int i = 0; i < n; ++i) EncodePosition(positions[i], syms[i], expect.data() + i * PlaneFloats(size));
  CHECK(std::memcmp(got.data(), expect.data(), sizeof(float) * got.size()) == 0);
}

TEST_CASE("PackCompactRow writes the documented layout and refuses bad input", "[gpu]") {
  const int size = 19, points = size * size;
  Board b(size);
  b.Play(0);
  b.Play(300);  // white; black to move, last move 300 = 0x012C
  std::vector<uint8_t> row(CompactRowBytes(size));
  REQUIRE(row.size() == static_cast<size_t>(points + 4));
  PackCompactRow(b.ToPosition(), 5, row.data());
  CHECK(row[0] == kBlack);
  CHECK(row[300] == kWhite);
  CHECK(row[1] == kEmpty);
  CHECK(row[points] == 0x2C);
  CHECK(row[points + 1] == 0x01);
  CHECK(row[points + 2] == kBlack);
  CHECK(row[points + 3] == 5);

  Position none = Board(size).ToPosition();
  PackCompactRow(none, 0, row.data());
  CHECK(row[points] == 0xFF);
  CHECK(row[points + 1] == 0xFF);
  none.last_move = 100000;  // out of range: no last-move stone, stored as none
  PackCompactRow(none, 0, row.data());
  CHECK(row[points] == 0xFF);

  // Renju: an empty point forbidden for black carries bit 2 (X X X . X X: the gap is an overline).
  Board rj(size, Rule::kRenju);
  for (int m : {0, 300, 1, 301, 2, 302, 4, 320, 5, 340}) rj.Play(m);
  PackCompactRow(rj.ToPosition(), 0, row.data());
  CHECK(row[3] == 4);
  CHECK(row[0] == kBlack);
  CHECK(row[6] == kEmpty);
  Position fs = rj.ToPosition();
  fs.rule = Rule::kFreestyle;
  PackCompactRow(fs, 0, row.data());
  CHECK(row[3] == kEmpty);

  CHECK_THROWS_AS(PackCompactRow(none, 8, row.data()), GomokuError);
  CHECK_THROWS_AS(PackCompactRow(none, -1, row.data()), GomokuError);
  Position broken = none;
  broken.cells.pop_back();
  CHECK_THROWS_AS(PackCompactRow(broken, 0, row.data()), GomokuError);

  std::vector<Position> positions = {none, Board(9).ToPosition()};
  std::vector<uint8_t> syms = {0, 0};
  std::vector<uint8_t> rows(2 * CompactRowBytes(size));
  CHECK_THROWS_AS(PackCompactRows(positions, syms, size, rows.data()), ModelError);  // 9x9 on a 19x19 net
  std::vector<uint8_t> one_sym = {0};
  CHECK_THROWS_AS(PackCompactRows(positions, one_sym, size, rows.data()), GomokuError);
}

TEST_CASE("ForwardOptions: CUDA-only settings are refused on the CPU, naming the setting", "[gpu]") {
  ForwardOptions fp32;
  CHECK_NOTHROW(ValidateForwardOptions(fp32, "cpu"));
  ForwardOptions cl = fp32;
  cl.channels_last = false;
  CHECK_NOTHROW(ValidateForwardOptions(cl, "cpu"));  // channels_last is ignored on the CPU

  for (const char* p : {"bf16", "fp16"}) {
    ForwardOptions o;
    o.precision = p;
    CHECK_THROWS_WITH(ValidateForwardOptions(o, "cpu"), Catch::Contains("server.precision") && Catch::Contains(p));
    CHECK_THROWS_AS(ValidateForwardOptions(o, "cpu"), ConfigError);
  }
  ForwardOptions graphs;
  graphs.cuda_graphs = true;
  CHECK_THROWS_AS(ValidateForwardOptions(graphs, "cpu"), ConfigError);
  CHECK_THROWS_WITH(ValidateForwardOptions(graphs, "cpu"), Catch::Contains("server.cuda_graphs"));

  ForwardOptions unknown;
  unknown.precision = "fp64";
  CHECK_THROWS_WITH(ValidateForwardOptions(unknown, "cpu"), Catch::Contains("server.precision"));
  CHECK_THROWS_AS(ValidateForwardOptions(unknown, "cuda"), ConfigError);  // malformed anywhere

  for (int bad : {0, -1, kMaxForwardBatch + 1}) {
    ForwardOptions o;
    o.max_batch = bad;
    CHECK_THROWS_AS(ValidateForwardOptions(o, "cpu"), ConfigError);
  }

  ForwardOptions bf16;
  bf16.precision = "bf16";
  bf16.cuda_graphs = true;
#if defined(GOMOKU_WITH_CUDA)
  CHECK_NOTHROW(ValidateForwardOptions(bf16, "cuda"));
  CHECK_NOTHROW(ValidateForwardOptions(bf16, "cuda:1"));
#else
  // A CPU-only build has no CUDA path even if asked for a CUDA device.
  CHECK_THROWS_WITH(ValidateForwardOptions(bf16, "cuda"), Catch::Contains("no CUDA path"));
#endif
}

TEST_CASE("LoadForward with default ForwardOptions on the CPU is the plain fp32 path", "[gpu]") {
  const std::string path = TmpPath("fp32.gzck");
  CreateRandomCheckpoint(path, 7, Rule::kFreestyle, 8, 1, /*seed=*/11, /*iteration=*/1, /*generation=*/4);
  CheckpointInfo info_plain, info_opts;
  auto plain = LoadForward(path, "cpu", 1, CheckpointExpect{}, &info_plain);
  auto with_options = LoadForward(path, "cpu", 1, ForwardOptions{}, CheckpointExpect{}, &info_opts);
  CHECK(info_opts.model_generation == 4);
  CHECK(info_opts.channels == info_plain.channels);
  CHECK(with_options->Describe() == plain->Describe());

  std::mt19937 rng(3);
  const int n = 6, points = 49;
  std::vector<float> planes(n * PlaneFloats(7));
  for (int i = 0; i < n; ++i) EncodePosition(RandomPosition(7, rng), i % kNumSymmetries, planes.data() + i * PlaneFloats(7));
  std::vector<float> lp1(n * points), lp2(n * points), v1(n), v2(n);
  CHECK(plain->Forward(planes.data(), n, lp1.data(), v1.data()) == 4);
  CHECK(with_options->Forward(planes.data(), n, lp2.data(), v2.data()) == 4);
  CHECK(lp1 == lp2);  // bit for bit: the same TorchForward
  CHECK(v1 == v2);

  ForwardOptions bf16;
  bf16.precision = "bf16";
  CHECK_THROWS_AS(LoadForward(path, "cpu", 1, bf16), ConfigError);
  ForwardOptions graphs;
  graphs.cuda_graphs = true;
  CHECK_THROWS_WITH(LoadForward(path, "cpu", 1, graphs), Catch::Contains("server.cuda_graphs"));
  // Options are checked before the file is read.
  CHECK_THROWS_AS(LoadForward(TmpPath("missing.gzck"), "cpu", 1, graphs), ConfigError);
  CHECK_THROWS_AS(LoadForward(TmpPath("missing.gzck"), "cpu", 1, ForwardOptions{}), IoError);
}

TEST_CASE("MeasurePeakFlops on the CPU is positive and finite and refuses bad arguments", "[gpu]") {
  const double fp32 = MeasurePeakFlops("cpu");
  CHECK(std::isfinite(fp32));
  CHECK(fp32 > 0);
  const double small = MeasurePeakFlops("cpu", "fp32", 64, 0.05);
  CHECK(std::isfinite(small));
  CHECK(small > 0);
  const double bf16 = MeasurePeakFlops("cpu", "bf16", 32, 0.02);
  CHECK(std::isfinite(bf16));
  CHECK(bf16 > 0);
  // On the CPU in fp32 the peak is the better of the product and the 3x3
  // convolution (the forward's library); in other precisions the product alone.
  const PeakFlops both = MeasurePeak("cpu", "fp32", 64, 0.05);
  CHECK(both.matmul_flops > 0);
  CHECK(both.conv_flops > 0);
  CHECK(both.flops == std::max(both.matmul_flops, both.conv_flops));
  const PeakFlops half = MeasurePeak("cpu", "bf16", 32, 0.02);
  CHECK(half.conv_flops == 0);
  CHECK(half.flops == half.matmul_flops);
  // A 1 GFLOP forward at the measured peak takes a positive, finite time: the
  // MFU denominator is usable.
  const double seconds_per_position = ForwardFlops(15, 128, 8) / fp32;
  CHECK(std::isfinite(seconds_per_position));
  CHECK(seconds_per_position > 0);

  CHECK_THROWS_AS(MeasurePeakFlops("cpu", "int8"), ConfigError);
  CHECK_THROWS_AS(MeasurePeakFlops("cpu", "fp32", 8), ConfigError);
  CHECK_THROWS_AS(MeasurePeakFlops("cpu", "fp32", -64), ConfigError);
  CHECK_THROWS_AS(MeasurePeakFlops("cpu", "fp32", 40000), ConfigError);
  CHECK_THROWS_AS(MeasurePeakFlops("cpu", "fp32", 64, 0), ConfigError);
  CHECK_THROWS_AS(MeasurePeakFlops("tpu"), ConfigError);
  if (!CudaAvailable()) CHECK_THROWS_AS(MeasurePeakFlops("cuda"), ConfigError);
}

}  // namespace gz
