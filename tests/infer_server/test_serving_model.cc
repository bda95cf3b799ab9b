// The forward the inference server serves with (LoadServingModel over
// NetForwards, common/net/forward_choice.h): on the CPU inference.backend auto
// is the native forward on the server's threads, torch LibTorch's; every lane
// of a reload makes its forward from one read of the checkpoint.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "common/base/errors.h"
#include "common/harness/temp_dir.h"
#include "common/net/forward_choice.h"
#include "infer_server/serving_model.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;

TEST_CASE("serving model: auto serves on the native forward with the server's threads, torch on LibTorch's") {
  const std::string dir = testing::FreshTestDir("serving_model_forward");
  const std::string path = testing::MakeCheckpoint(dir, "fc.gzck", 3, 5);
  ModelRequirements req;
  req.board_size = testing::kTestBoard;
  req.threads = 2;
  req.forward.backend = "auto";
  auto native = LoadServingModel(path, req);
  CHECK(std::string(native->choice.name()) == "native");
  CHECK(native->choice.threads == 2);
  CHECK_THAT(native->forward->Describe(), Catch::Contains("native CPU forward") && Catch::Contains("2 threads"));
  CHECK(native->generation == 5);
  req.forward.backend = "torch";
  req.threads = 1;
  auto torch = LoadServingModel(path, req);
  CHECK(std::string(torch->choice.name()) == "torch");
  CHECK_THAT(torch->forward->Describe(), Catch::StartsWith("torch cpu"));
}

TEST_CASE("serving model: the lanes of a reload make their forwards from one read of a conv net") {
  const std::string dir = testing::FreshTestDir("serving_model_lanes");
  const std::string path = dir + "/conv.gzck";
  CreateRandomCheckpoint(path, 9, Rule::kFreestyle, 8, 1, /*seed=*/4, 6, 6, "conv");
  ModelRequirements req;
  req.forward.backend = "auto";
  const NetForwards net(path, ServingSettings(req), CheckpointExpect{}, req.forward);
  std::filesystem::remove(path);  // what the lanes need is in memory
  for (int size : {7, 9, 11}) {
    INFO("lane " << size);
    req.board_size = size;
    auto m = LoadServingModel(net, req);
    CHECK(m->forward->board_size() == size);
    CHECK(m->generation == 6);
    CHECK(std::string(m->choice.name()) == "native");
  }
  CHECK_THROWS_AS(LoadServingModel(path, req), IoError);  // the file is gone indeed
}
