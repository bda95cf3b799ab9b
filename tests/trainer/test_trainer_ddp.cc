// build/bin/trainer with train.world_size 2 (docs/trainer.md, "Data-parallel
// training"): a --rank or world_size out of range is refused naming the flag
// or key, a rendezvous nobody completes and a differing config fail with one
// clear line, a 2-rank run trains with rank 0 alone writing the run, and a
// follower killed in the middle of a training step makes rank 0 fail; the
// restarted ranks resume from the last published iteration.
#include "tests/trainer/dp_test_util.h"
#include "trainer/generation_log.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

using namespace gz;
using namespace gz::testing;

namespace {

// The exit code of a trainer that must end by itself (60 s guards a hang).
int ExitOf(TestProcess& p) {
  auto rc = p.WaitExit(std::chrono::seconds(60));
  if (!rc) p.Kill();
  return rc.value_or(-1);
}

bool Has(const TestProcess& p, const std::string& text) { return p.Log().find(text) != std::string::npos; }

}  // namespace

TEST_CASE("a --rank or train.world_size out of range is refused, naming the flag or the key") {
  const std::string dir = FreshTestDir("ddp_bad_flags");
  const std::string cfg = WriteConfigFile(DpConfig(dir + "/run", 2, FreePort()), dir + "/c.json");
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {{"--rank", "2"}, {"--rank 2 is out of range", "train.world_size' is 2"}},
      {{"--rank", "-1"}, {"--rank -1 is out of range"}},
      {{"--rank", "x"}, {"--rank"}},
      {{"--set", "train.world_size=65"}, {"train.world_size"}},
      {{"--set", "train.world_size=0"}, {"train.world_size"}},
      {{"--set", "train.world_size=16", "--set", "train.batch_size=8"}, {"train.world_size", "train.batch_size"}},
      {{"--set", "train.dist_store=udp://h:1"}, {"train.dist_store"}},
      {{"--set", "train.dist_store=tcp://127.0.0.1"}, {"train.dist_store", "port"}},
      {{"--set", "train.dist_timeout_s=0"}, {"train.dist_timeout_s"}},
      {{"--set", "train.allreduce_bucket_mb=0"}, {"train.allreduce_bucket_mb"}},
  };
  int k = 0;
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--config", cfg};
    args.insert(args.end(), c.args.begin(), c.args.end());
    TestProcess p(BinPath("trainer"), args, dir + "/case" + std::to_string(k++) + ".log");
    INFO(p.Log());
    CHECK(ExitOf(p) == 2);
    for (const std::string& s : c.says) CHECK(Has(p, s));
  }
  CHECK_FALSE(std::filesystem::exists(dir + "/run"));  // refused before touching the run
}

TEST_CASE("a rendezvous that never completes fails after train.dist_timeout_s with one clear line") {
  const std::string dir = FreshTestDir("ddp_rendezvous");
  Config c = DpConfig(dir + "/run", 2, FreePort());
  c.train.dist_timeout_s = 2.0;
  const std::string cfg = WriteConfigFile(c, dir + "/c.json");
  {  // rank 0 alone: the follower never comes
    TestProcess p(BinPath("trainer"), {"--config", cfg}, dir + "/r0.log");
    INFO(p.Log());
    CHECK(ExitOf(p) == 1);
    CHECK(Has(p, "rendezvous timed out after train.dist_timeout_s = 2 s: rank(s) 1 of train.world_size = 2 never "
                 "joined the store tcp://127.0.0.1:"));
    CHECK_FALSE(std::filesystem::exists(RunLayout(dir + "/run").metadata()));  // nothing published
  }
  {  // a follower alone: no store to reach
    TestProcess p(BinPath("trainer"), {"--config", cfg, "--rank", "1"}, dir + "/r1.log");
    INFO(p.Log());
    CHECK(ExitOf(p) == 1);
    CHECK(Has(p, "trainer rank 1 failed: data-parallel rendezvous: rank 1 of 2 could not reach the store"));
  }
}

TEST_CASE("ranks whose configs differ are refused, naming the key") {
  const std::string dir = FreshTestDir("ddp_mismatch");
  Config c = DpConfig(dir + "/run", 2, FreePort());
  const std::string cfg = WriteConfigFile(c, dir + "/c.json");
  TestProcess r0(BinPath("trainer"), {"--config", cfg}, dir + "/r0.log");
  TestProcess r1(BinPath("trainer"), {"--config", cfg, "--rank", "1", "--set", "net.channels=4"}, dir + "/r1.log");
  INFO(r0.Log() << "\n" << r1.Log());
  CHECK(ExitOf(r1) == 2);
  CHECK(ExitOf(r0) == 1);
  CHECK(Has(r1, "config differs from rank 0's: net.channels (4 here, 8 on rank 0)"));
  CHECK(Has(r0, "rank 1's config differs from rank 0's: net.channels"));
}

TEST_CASE("2 ranks train the run; a follower killed in a training step fails rank 0; a restart resumes") {
  const std::string dir = FreshTestDir("ddp_run");
  RunLayout run(dir + "/run");
  Config c = DpConfig(run.dir, 2, FreePort());
  c.run.max_iterations = 3;
  c.train.train_batches = 300;  // long enough for a kill to land in the steps
  c.server.socket = run.dir + "/sock/none.sock";
  c.train.reload_timeout_s = 0.2;
  const std::string cfg = WriteConfigFile(c, dir + "/c.json");
  FakeWorkers workers(run, c.board.size, 4);
  {
    TestProcess r0(BinPath("trainer"), {"--config", cfg}, dir + "/r0_first.log");
    TestProcess r1(BinPath("trainer"), {"--config", cfg, "--rank", "1"}, dir + "/r1_first.log");
    REQUIRE(WaitUntil([&] { return Has(r1, "training iteration 2 with rank 0"); }));
    r1.Kill();
    INFO(r0.Log());
    CHECK(ExitOf(r0) == 1);
    CHECK(Has(r0, "trainer failed: data-parallel"));
    CHECK(Has(r0, "failed on rank 0 of 2"));
    CHECK(MetadataIteration(run) == 2);  // iteration 2 never published
  }
  // The restarted ranks resume at iteration 2, like a one-process trainer.
  TestProcess r0(BinPath("trainer"), {"--config", cfg}, dir + "/r0.log");
  TestProcess r1(BinPath("trainer"), {"--config", cfg, "--rank", "1"}, dir + "/r1.log");
  INFO(r0.Log() << "\n" << r1.Log());
  CHECK(ExitOf(r0) == 0);
  CHECK(ExitOf(r1) == 0);
  CHECK(MetadataIteration(run) == 4);
  CHECK(Has(r0, "resuming run at iteration 2"));
  for (int it = 2; it <= 3; ++it) {
    CHECK(Has(r0, "data-parallel: iteration " + std::to_string(it) + " on 2 ranks (gloo)"));
    CHECK(Has(r1, "trainer rank 1: iteration " + std::to_string(it) + " trained: steps=300"));
  }
  CHECK(Has(r1, "rank 0 finished; stopping"));
  GenerationLog log = ReadGenerationLog(run.generations());
  REQUIRE(log.records.size() == 3);
  for (int it = 1; it <= 3; ++it) {
    CHECK(log.records[it - 1]["iteration"] == it);
    CHECK(log.records[it - 1]["train_steps"] == 300);
  }
  CHECK(FileExists(run.checkpoint(3)));  // written by rank 0 (train.keep_last = 2 deleted it1)
  CHECK(FileExists(run.checkpoint(2)));
  // The follower's only file in the run: its log.
  CHECK(FileExists(run.logs() + "/trainer-rank1.log"));
}
