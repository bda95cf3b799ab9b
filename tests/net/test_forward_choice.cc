// Which forward runs (common/net/forward_choice.h): the rule ChooseForward
// writes once (auto = native on the CPU, threads honoured), NetForwards
// reading a checkpoint once and making a forward at every size it plays with
// the file gone, and the native forward on several threads giving the same
// bits as on one.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/harness/temp_dir.h"
#include "common/net/forward_choice.h"
#include "common/net/native/native_forward.h"
#include "common/net/net_api.h"

using namespace gz;

namespace {

std::string Net(const std::string& name, int size, const std::string& heads, int channels = 8, int blocks = 1) {
  const std::string path = testing::TestTmpPath("forward_choice_" + name + ".gzck");
  CreateRandomCheckpoint(path, size, Rule::kFreestyle, channels, blocks, /*seed=*/11, 1, 3, heads);
  return path;
}

// Planes of `count` positions of seeded random games on size x size.
std::vector<float> Planes(int size, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> planes(static_cast<size_t>(count) * PlaneFloats(size));
  for (int i = 0; i < count; ++i) {
    Board b(size, Rule::kFreestyle);
    const int moves = static_cast<int>(rng() % (size * size / 2 + 1));
    for (int m = 0; m < moves && !b.terminal(); ++m) {
      const std::vector<int> legal = b.LegalMoves();
      b.Play(legal[rng() % legal.size()]);
    }
    EncodePosition(b.ToPosition(), 0, planes.data() + static_cast<size_t>(i) * PlaneFloats(size));
  }
  return planes;
}

struct Outputs {
  std::vector<float> log_policy, value;
  int64_t generation = -1;
};

Outputs Run(BatchForward& f, const std::vector<float>& planes, int count) {
  const int size = f.board_size();
  Outputs o;
  o.log_policy.resize(static_cast<size_t>(count) * size * size);
  o.value.resize(static_cast<size_t>(count));
  o.generation = f.Forward(planes.data(), count, o.log_policy.data(), o.value.data());
  return o;
}

InferenceSettings Settings(const std::string& backend, int threads = 1, const std::string& device = "cpu") {
  InferenceSettings s;
  s.backend = backend;
  s.device = device;
  s.threads = threads;
  return s;
}

}  // namespace

TEST_CASE("ChooseForward: auto is the native forward on the CPU with inference.threads, torch when asked") {
  const ForwardChoice def = ChooseForward(InferenceSettings{});  // auto on auto: this machine has no CUDA
  if (!CudaAvailable()) {
    CHECK(def.native);
    CHECK(std::string(def.name()) == "native");
    CHECK(def.device == "cpu");
  }
  const ForwardChoice two = ChooseForward(Settings("auto", 2));
  CHECK(two.native);
  CHECK(two.threads == 2);
  CHECK(two.Describe() == "native forward, 2 threads");
  CHECK(ChooseForward(Settings("native", 1)).Describe() == "native forward, one thread");
  const ForwardChoice torch = ChooseForward(Settings("torch", 3));
  CHECK_FALSE(torch.native);
  CHECK(std::string(torch.name()) == "torch");
  CHECK(torch.threads == 3);
  CHECK(torch.Describe() == "LibTorch forward, threads 3");
  CHECK(ChooseForward(Settings("auto", 0)).threads == 1);
  CHECK_THROWS_WITH(ChooseForward(Settings("fast")), Catch::Contains("inference.backend") && Catch::Contains("'fast'"));
  CHECK_THROWS_WITH(ChooseForward(Settings("auto", 1, "tpu")), Catch::Contains("inference.device"));
}

TEST_CASE("NetForwards reads the file once: a conv net plays other sizes with the file gone, as a fresh load would") {
  for (const std::string backend : {"native", "torch"}) {
    INFO("backend " << backend);
    const std::string path = Net("conv7_" + backend, 7, "conv");
    NetForwards net(path, Settings(backend));
    CHECK(net.info().board_size == 7);
    CHECK(net.info().heads == NetHeads::kConv);
    CHECK(std::string(net.choice().name()) == backend);
    // The references, from the file, before it goes.
    std::vector<std::unique_ptr<BatchForward>> fresh;
    for (int size : {9, 11})
      fresh.push_back(LoadInferenceForward(path, Settings(backend), CheckpointExpect{size, -1, -1}));
    std::filesystem::remove(path);
    REQUIRE_FALSE(std::filesystem::exists(path));
    CHECK_THROWS_AS(NetForwards(path, Settings(backend)), IoError);  // gone indeed
    for (size_t i = 0; i < 2; ++i) {
      const int size = i == 0 ? 9 : 11;
      auto made = net.Make(size);
      REQUIRE(made->board_size() == size);
      const std::vector<float> planes = Planes(size, 6, 3 + size);
      const Outputs a = Run(*made, planes, 6), b = Run(*fresh[i], planes, 6);
      CHECK(a.generation == 3);
      CHECK(a.log_policy == b.log_policy);
      CHECK(a.value == b.value);
    }
    CHECK(net.Make()->board_size() == 7);  // the checkpoint's own size by default
  }
}

TEST_CASE("NetForwards: an fc net plays only its size, refused in the loaders' words; expect is checked at the read") {
  const std::string path = Net("fc7", 7, "fc");
  NetForwards net(path, Settings("auto"));
  CHECK(net.Make(7)->board_size() == 7);
  CHECK_THROWS_WITH(net.Make(9), Catch::Contains("has board size 7 but 9 was expected") && Catch::Contains("fc heads"));
  CHECK_THROWS_AS(NetForwards(path, Settings("auto"), CheckpointExpect{9, -1, -1}), ModelError);
  CHECK_THROWS_AS(NetForwards(path, Settings("torch"), CheckpointExpect{-1, 16, -1}), ModelError);
}

TEST_CASE("the native forward on 2 and 3 threads gives the bits of 1 thread, at every batch size") {
  for (const std::string heads : {"conv", "fc"}) {
    INFO(heads << " heads");
    const std::string path = Net("threads_" + heads, 9, heads, 16, 2);
    NetForwards one(path, Settings("auto", 1)), two(path, Settings("auto", 2)), three(path, Settings("native", 3));
    auto f1 = one.Make(), f2 = two.Make(), f3 = three.Make();
    CHECK_THAT(f1->Describe(), Catch::Contains("native CPU forward") && Catch::Contains("1 thread)"));
    CHECK_THAT(f2->Describe(), Catch::Contains("native CPU forward") && Catch::Contains("2 threads)"));
    CHECK_THAT(f3->Describe(), Catch::Contains("3 threads)"));
    const std::vector<float> planes = Planes(9, 80, 17);
    for (int n : {1, 2, 3, 7, 16, 33, 80}) {
      INFO("batch " << n);
      const Outputs a = Run(*f1, planes, n), b = Run(*f2, planes, n), c = Run(*f3, planes, n);
      CHECK(a.generation == 3);
      CHECK(b.generation == 3);
      CHECK(c.generation == 3);
      CHECK(a.log_policy == b.log_policy);
      CHECK(a.value == b.value);
      CHECK(a.log_policy == c.log_policy);
      CHECK(a.value == c.value);
    }
    CHECK(Run(*f2, planes, 0).generation == 3);  // an empty batch
  }
}

TEST_CASE("LoadForward with options goes through ChooseForward: auto native with its threads, torch by name") {
  const std::string path = Net("options", 7, "fc");
  ForwardOptions options;
  options.backend = "auto";
  CHECK_THAT(LoadForward(path, "cpu", 2, options)->Describe(),
             Catch::Contains("native CPU forward") && Catch::Contains("2 threads"));
  options.backend = "torch";
  CHECK_THAT(LoadForward(path, "cpu", 1, options)->Describe(), Catch::StartsWith("torch cpu"));
  // The plain overload is LibTorch's, whatever the backend default.
  CHECK_THAT(LoadForward(path, "cpu", 1)->Describe(), Catch::StartsWith("torch cpu"));
}
