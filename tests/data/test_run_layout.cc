#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "common/harness/temp_dir.h"

using namespace gz;
namespace fs = std::filesystem;

TEST_CASE("checkpoints are ordered numerically, temp files ignored") {
  std::string dir = gz::testing::FreshTestDir("layout_ckpt");
  for (int i : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99, 100, 101})
    WriteFileAtomic(dir + "/weights_it" + std::to_string(i) + ".pt", "x");
  WriteFileAtomic(dir + "/weights_it102.pt.tmp.1.0", "partial");
  WriteFileAtomic(dir + "/weights_itX.pt", "junk");
  auto its = ListCheckpointIterations(dir);
  REQUIRE(its.size() == 15);
  CHECK(its.back() == 101);
  CHECK(its.front() == 1);
  CHECK(std::is_sorted(its.begin(), its.end()));
  CHECK(ParseIterationNumber("weights_it9.pt", "weights_it", ".pt") == 9);
  CHECK_FALSE(ParseIterationNumber("weights_it.pt", "weights_it", ".pt"));
  CHECK_FALSE(ParseIterationNumber("weights_it9.pt.tmp", "weights_it", ".pt"));
}

TEST_CASE("metadata round trip and corrupt metadata") {
  std::string dir = gz::testing::FreshTestDir("layout_md");
  RunLayout l(dir);
  CHECK_FALSE(ReadMetadata(l.metadata()).has_value());
  Metadata m;
  m.iteration = 7;
  m.weights = l.checkpoint(6);
  m.model_generation = 6;
  m.config = {{"board", {{"size", 9}}}};
  WriteMetadata(l.metadata(), m);
  auto r = ReadMetadata(l.metadata());
  REQUIRE(r);
  CHECK(r->iteration == 7);
  CHECK(r->weights == l.checkpoint(6));
  CHECK(r->config["board"]["size"] == 9);
  WriteFileAtomic(l.metadata(), "{\"iteration\": ");
  CHECK_THROWS_AS(ReadMetadata(l.metadata()), IoError);
}

TEST_CASE("game file names carry the host on a shared run directory, and parse back") {
  RunLayout run("/r");
  CHECK(run.game_file(3, 7, 12) == "/r/games/it3/w7_g12.npz");
  CHECK(run.game_file(3, 7, 12, "gpu-a.lab") == "/r/games/it3/gpu-a.lab_w7_g12.npz");
  CHECK(run.worker_status(2) == "/r/status/worker_2.json");
  CHECK(run.worker_status(2, "hostB") == "/r/status/hostB/worker_2.json");
  CHECK(run.server_status("hostB") == "/r/status/hostB/server.json");
  CHECK(run.reload_ack("hostB") == "/r/status/hostB/reload_ack.json");
  CHECK(run.default_socket() == "/r/sock/infer.sock");
  CHECK(run.default_socket("hostB") == "/r/sock/hostB/infer.sock");

  auto plain = ParseGameFileName("w7_g12.npz");
  REQUIRE(plain);
  CHECK(plain->host.empty());
  CHECK(plain->worker == 7);
  CHECK(plain->index == 12);
  auto hosted = ParseGameFileName("w1_w7_g12.npz");  // a host named "w1"
  REQUIRE(hosted);
  CHECK(hosted->host == "w1");
  CHECK(hosted->worker == 7);
  CHECK(hosted->index == 12);
  for (const char* bad : {"w7_g12.npz.tmp.1.2", "x_y_w7_g12.npz", "_w7_g12.npz", "hostA_w7_g.npz", "hostA_wx_g1.npz",
                          "w7g12.npz", "hostA_w7_g12.npy", "weights_it3.pt"}) {
    INFO(bad);
    CHECK_FALSE(ParseGameFileName(bad));
  }
}

TEST_CASE("every run path comes from one accessor, and the examples list them all") {
  RunLayout run("/r");
  CHECK(run.checkpoint(12) == "/r/checkpoints/weights_it12.pt");
  CHECK(ParseIterationNumber(RunLayout::checkpoint_name(12), RunLayout::kCheckpointPrefix,
                             RunLayout::kCheckpointSuffix) == 12);
  CHECK(run.eval_results() == "/r/eval/results.jsonl");
  CHECK(run.ratings() == "/r/ratings.jsonl");
  CHECK(run.evaluator_status() == "/r/status/evaluator.json");
  CHECK(run.log_file("trainer") == "/r/logs/trainer.log");
  CHECK(run.pid_file(RunLayout::worker_name(3)) == "/r/pids/worker_3.pid");
  CHECK(run.trainer_dir() == "/r/trainer");
  // The examples are relative and unique (gz_status --layout, runlib.py --check-layout).
  std::set<std::string> names, paths;
  for (const auto& [name, path] : RunLayoutExamples()) {
    INFO(name << " " << path);
    CHECK(names.insert(name).second);
    CHECK(paths.insert(path).second);
    CHECK(!path.empty());
    CHECK(path[0] != '/');
  }
  CHECK(paths.count("metadata.json") == 1);
  CHECK(paths.count("checkpoints/weights_it7.pt") == 1);
}

TEST_CASE("host names in game file names cannot name a path") {
  for (const char* bad : {".._w1_g1.npz", "a/b_w1_g1.npz", ".x_w1_g1.npz", "a b_w1_g1.npz"}) {
    INFO(bad);
    CHECK_FALSE(ParseGameFileName(bad));
  }
  CHECK(IsValidHostName("gpu-a.lab"));
  CHECK_FALSE(IsValidHostName(""));
  CHECK_FALSE(IsValidHostName(".."));
  CHECK_FALSE(IsValidHostName("a_b"));
  CHECK_FALSE(IsValidHostName(std::string(65, 'a')));
  CHECK(IsValidHostName(std::string(64, 'a')));
}
