// export_net (common/net/net_export.h): the exported .npz
// holds the header the docs promise and every tensor of the net byte for byte;
// the check file holds deterministic random positions and exactly what the
// project's forward computes on them; bad input is refused naming the problem
// and leaves no output (nor a temp file) behind.  The Python side is
// test_net_export_python.sh.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/npz.h"
#include "common/game/encoder.h"
#include "common/net/checkpoint.h"
#include "common/net/model.h"
#include "common/net/net_api.h"
#include "common/harness/temp_dir.h"
#include "common/net/net_export.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

namespace gz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json HeaderOf(const std::map<std::string, NpyArray>& arrays) {
  REQUIRE(arrays.count(kNetExportHeaderKey));
  const NpyArray& h = arrays.at(kNetExportHeaderKey);
  REQUIRE(h.dtype == "|u1");
  REQUIRE(h.shape.size() == 1);
  return json::parse(h.data);
}

std::map<std::string, NpyArray> ReadExport(const std::string& path) {
  return ReadNpz(ReadFileOrThrow(path), path);
}

// No temp file of an atomic write is left in `dir`.
bool NoTempFiles(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (IsTempName(e.path().filename().string())) return false;
  return true;
}

void CheckNetFile(const std::string& ckpt, const std::string& npz, const std::string& heads) {
  CheckpointInfo info;
  PolicyValueNet net = LoadCheckpoint(ckpt, {}, &info);
  const auto arrays = ReadExport(npz);
  const json h = HeaderOf(arrays);
  CHECK(h["format"] == "gomoku-zero-net");
  CHECK(h["format_version"] == 1);
  CHECK(h["encoder_version"] == kEncoderVersion);
  CHECK(h["rule"] == info.rule);
  CHECK(h["board_size"] == info.board_size);
  CHECK(h["channels"] == info.channels);
  CHECK(h["blocks"] == info.blocks);
  CHECK(h["heads"] == heads);
  CHECK(h["iteration"] == info.iteration);
  CHECK(h["model_generation"] == info.model_generation);
  CHECK(h["seed"] == info.seed);
  CHECK(h["checkpoint_format_version"] == info.format_version);
  CHECK(h["source"] == fs::path(ckpt).filename().string());
  CHECK(h["architecture"]["batchnorm"]["eps"] == 1e-5);
  CHECK(h["architecture"]["batchnorm"]["momentum"] == 0.1);
  CHECK(h["architecture"]["input_planes"] == kNumPlanes);
  CHECK(h["architecture"]["value_hidden"] == kValueHidden);
  CHECK(h["input"]["shape"][1] == kNumPlanes);
  CHECK(h["outputs"][0]["name"] == "log_policy");
  CHECK(h["outputs"][1]["name"] == "value");
  if (heads == "fc") CHECK(h["board_sizes"] == json::array({info.board_size, info.board_size}));
  else CHECK(h["board_sizes"] == json::array({kMinBoardSize, kMaxBoardSize}));

  // Every parameter and buffer, in order in the header, byte for byte in the file; nothing else.
  std::vector<std::string> names;
  for (const auto& p : net->named_parameters()) names.push_back(p.key());
  for (const auto& b : net->named_buffers()) names.push_back(b.key());
  REQUIRE(h["tensors"].size() == names.size());
  CHECK(arrays.size() == names.size() + 1);
  std::map<std::string, torch::Tensor> all;
  for (const auto& p : net->named_parameters()) all[p.key()] = p.value();
  for (const auto& b : net->named_buffers()) all[b.key()] = b.value();
  for (size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(h["tensors"][i]["name"] == names[i]);
    REQUIRE(arrays.count(names[i]));
    const NpyArray& a = arrays.at(names[i]);
    const torch::Tensor t = all[names[i]].contiguous();
    CHECK(a.shape == std::vector<int64_t>(t.sizes().begin(), t.sizes().end()));
    CHECK(h["tensors"][i]["shape"] == json(a.shape));
    const bool is_count = names[i].find("num_batches_tracked") != std::string::npos;
    CHECK(a.dtype == (is_count ? "<i8" : "<f4"));
    CHECK(h["tensors"][i]["dtype"] == (is_count ? "int64" : "float32"));
    CHECK(h["tensors"][i]["kind"] == (i < net->named_parameters().size() ? "parameter" : "buffer"));
    REQUIRE(a.data.size() == static_cast<size_t>(t.numel() * t.element_size()));
    CHECK(std::memcmp(a.data.data(), t.data_ptr(), a.data.size()) == 0);
  }
}

TEST_CASE("export_net writes every tensor and the header, fc and conv heads") {
  const std::string dir = testing::FreshTestDir("export_net/heads");
  for (const std::string heads : {"fc", "conv"}) {
    SECTION(heads) {
      const std::string ckpt = dir + "/" + heads + ".pt";
      CreateRandomCheckpoint(ckpt, 7, Rule::kRenju, 8, 2, 3, 5, 4, heads);
      ExportOptions o;
      o.weights = ckpt;
      o.out = dir + "/" + heads + ".npz";
      const ExportSummary s = ExportNet(o);
      CHECK(NetHeadsName(s.info.heads) == heads);
      CHECK(s.tensors > 0);
      CHECK_FALSE(fs::exists(dir + "/" + heads + ".check.npz"));
      CheckNetFile(ckpt, o.out, heads);
      CHECK(NoTempFiles(dir));
    }
  }
}

TEST_CASE("the check file holds deterministic positions and the project's forward outputs") {
  const std::string dir = testing::FreshTestDir("export_net/check");
  const std::string ckpt = dir + "/net.pt";
  CreateRandomCheckpoint(ckpt, 7, Rule::kFreestyle, 8, 1, 9, 1, 2);
  const ExportOptions o{
      .weights = ckpt, .out = dir + "/net.npz", .check_positions = 50, .check_out = dir + "/check.npz", .check_seed = 3};
  ExportNet(o);
  const auto c = ReadExport(o.check_out);
  const json h = HeaderOf(c);
  CHECK(h["format"] == "gomoku-zero-net-check");
  CHECK(h["format_version"] == 1);
  CHECK(h["encoder_version"] == kEncoderVersion);
  CHECK(h["positions"] == 50);
  CHECK(h["seed"] == 3);
  CHECK(h["board_size"] == 7);
  CHECK(h["source"] == "net.pt");
  CHECK(h["model_generation"] == 2);
  REQUIRE(c.at("planes").shape == std::vector<int64_t>{50, kNumPlanes, 7, 7});
  REQUIRE(c.at("log_policy").shape == std::vector<int64_t>{50, 49});
  REQUIRE(c.at("value").shape == std::vector<int64_t>{50});
  REQUIRE(c.at("move_count").shape == std::vector<int64_t>{50});

  // The planes are EncodePosition of RandomCheckPositions(seed).
  const auto positions = RandomCheckPositions(7, Rule::kFreestyle, 50, 3);
  std::vector<float> planes(50 * PlaneFloats(7));
  for (int i = 0; i < 50; ++i) EncodePosition(positions[i], 0, planes.data() + i * PlaneFloats(7));
  CHECK(c.at("planes").As<float>() == planes);

  // The outputs are what the project's own forward (LoadForward) computes.
  auto forward = LoadForward(ckpt, "cpu", 1);
  std::vector<float> lp(50 * 49), v(50);
  forward->Forward(planes.data(), 50, lp.data(), v.data());
  const auto got_lp = c.at("log_policy").As<float>(), got_v = c.at("value").As<float>();
  float dp = 0, dv = 0;
  for (size_t i = 0; i < lp.size(); ++i) dp = std::max(dp, std::abs(lp[i] - got_lp[i]));
  for (size_t i = 0; i < v.size(); ++i) dv = std::max(dv, std::abs(v[i] - got_v[i]));
  CHECK(dp <= 1e-6f);
  CHECK(dv <= 1e-6f);

  // Same options, same bytes.
  const std::string first = ReadFileOrThrow(o.check_out);
  ExportNet(o);
  CHECK(ReadFileOrThrow(o.check_out) == first);
}

TEST_CASE("check positions: legal unfinished games of varied lengths, deterministic in the seed") {
  for (Rule rule : {Rule::kFreestyle, Rule::kRenju}) {
    const auto a = RandomCheckPositions(9, rule, 200, 7);
    const auto b = RandomCheckPositions(9, rule, 200, 7);
    const auto other = RandomCheckPositions(9, rule, 200, 8);
    REQUIRE(a.size() == 200);
    std::set<int> lengths;
    bool differs = false;
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].cells == b[i].cells);
      CHECK(a[i].rule == rule);
      differs |= a[i].cells != other[i].cells;
      const int stones =
          static_cast<int>(std::count_if(a[i].cells.begin(), a[i].cells.end(), [](int8_t x) { return x != kEmpty; }));
      lengths.insert(stones);
      // Side to move follows from the stone count (black moves first).
      CHECK(a[i].to_move == (stones % 2 == 0 ? kBlack : kWhite));
    }
    CHECK(differs);
    CHECK(lengths.count(0) + lengths.size() >= 20);  // many different lengths
    CHECK(*lengths.rbegin() >= 20);
  }
}

TEST_CASE("bad input is refused naming the problem, and nothing is written") {
  const std::string dir = testing::FreshTestDir("export_net/bad");
  const std::string good = dir + "/good.pt";
  CreateRandomCheckpoint(good, 7, Rule::kFreestyle, 8, 1, 1, 0, 0);
  // The weights: each section's.
  ExportOptions o{.weights = "", .out = dir + "/out.npz", .check_positions = 5, .check_out = dir + "/check.npz"};

  SECTION("missing checkpoint") {
    o.weights = dir + "/missing.pt";
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("missing.pt"));
  }
  SECTION("corrupt checkpoint (a flipped bit)") {
    std::string bytes = ReadFileOrThrow(good);
    bytes[bytes.size() / 2] ^= 0x10;
    o.weights = dir + "/flipped.pt";
    WriteFileAtomic(o.weights, bytes);
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("flipped.pt") && Catch::Contains("CRC-32"));
  }
  SECTION("truncated checkpoint") {
    std::string bytes = ReadFileOrThrow(good);
    o.weights = dir + "/short.pt";
    WriteFileAtomic(o.weights, bytes.substr(0, 10));
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("short.pt") && Catch::Contains("truncated"));
  }
  SECTION("not a checkpoint") {
    o.weights = dir + "/text.pt";
    WriteFileAtomic(o.weights, "hello, this is not a checkpoint at all");
    CHECK_THROWS_AS(ExportNet(o), ExportInputError);
  }
  SECTION("malformed options") {
    o.weights = good;
    o.check_out.clear();
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("--check-out"));
    o.check_out = o.out;
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("same file"));
    o.check_out = dir + "/check.npz";
    o.check_positions = kMaxCheckPositions + 1;
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("--check-positions"));
    o.check_positions = 5;
    o.check_board_size = 9;  // fc heads play only 7
    CHECK_THROWS_WITH(ExportNet(o), Catch::Contains("--check-board-size 9"));
  }
  CHECK_FALSE(fs::exists(o.out));
  CHECK_FALSE(fs::exists(dir + "/check.npz"));
  CHECK(NoTempFiles(dir));
}

TEST_CASE("a failed export leaves an existing output untouched") {
  const std::string dir = testing::FreshTestDir("export_net/keep");
  ExportOptions o;
  o.out = dir + "/out.npz";
  WriteFileAtomic(o.out, "previous");
  o.weights = dir + "/broken.pt";
  WriteFileAtomic(o.weights, std::string(100, 'x'));
  CHECK_THROWS_AS(ExportNet(o), ExportInputError);
  CHECK(ReadFileOrThrow(o.out) == "previous");
  CHECK(NoTempFiles(dir));
}

TEST_CASE("a conv net's check positions may be on another board size") {
  const std::string dir = testing::FreshTestDir("export_net/conv_size");
  const std::string ckpt = dir + "/conv.pt";
  CreateRandomCheckpoint(ckpt, 9, Rule::kFreestyle, 8, 1, 4, 0, 0, "conv");
  const ExportOptions o{.weights = ckpt, .out = dir + "/conv.npz", .check_positions = 10,
                        .check_out = dir + "/check.npz", .check_seed = 1, .check_board_size = 6};
  ExportNet(o);
  const auto c = ReadExport(o.check_out);
  CHECK(HeaderOf(c)["board_size"] == 6);
  CHECK(c.at("planes").shape == std::vector<int64_t>{10, kNumPlanes, 6, 6});
  CHECK(HeaderOf(ReadExport(o.out))["board_size"] == 9);  // the net's own size
}

}  // namespace
}  // namespace gz
