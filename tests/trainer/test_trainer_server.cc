// The trainer with the real build/bin/infer_server: reload acknowledged before
// metadata (the generation in metadata.json is the one the server serves),
// and a refused file is never published.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>

#include "common/wire/wire_client.h"
#include "common/harness/infer_server_process.h"
#include "tests/trainer/trainer_test_util.h"
#include "trainer/generation_log.h"

using namespace gz;
using namespace gz::testing;

TEST_CASE("real server: every iteration's weights are served before metadata names them") {
  auto [dir, run, c] = TinyTrainerRun("srv_ok");
  c.run.max_iterations = 2;
  c.train.reload_timeout_s = 60;
  const auto [cfg, log] = WriteTrainerFiles(c, "srv_ok");
  const std::string slog = dir + "/../srv_ok_server.log";
  std::remove(slog.c_str());
  // The server starts first on an empty run directory and waits for metadata / RELOAD.
  InferServerProcess server({"--config", cfg, "--run-dir", dir}, slog);
  REQUIRE(WaitUntil([&] { return Ping(c.server.socket, 1.0); }));

  FakeWorkers workers(run, 7, 4);
  TrainerProcess trainer({"--config", cfg}, log);
  REQUIRE(trainer.Wait() == 0);

  auto meta = ReadMetadata(run.metadata());
  REQUIRE(meta);
  CHECK(meta->iteration == 3);
  CHECK(meta->weights == run.checkpoint(2));
  WireClient client(c.server.socket, 5.0);
  CHECK(client.Ping(5.0) == meta->model_generation);  // the server serves what metadata announces
  GenerationLog gl = ReadGenerationLog(run.generations());
  REQUIRE(gl.records.size() == 2);
  for (const auto& r : gl.records) {
    CHECK(r["reload"]["acknowledged"] == true);
    CHECK(r.contains("server"));
  }
  CHECK(gl.records[0]["model_generation"].get<int64_t>() < gl.records[1]["model_generation"].get<int64_t>());
  const std::string text = Slurp(log);
  CHECK(Count(text, "inference server acknowledged the reload") == 3);  // it0, it1, it2
  CHECK(text.find("inference server not running") == std::string::npos);
  server.Signal(SIGTERM);
  CHECK(server.Wait() == 0);
}

TEST_CASE("real server: refused weights are never published") {
  auto [dir, run, c] = TinyTrainerRun("srv_refuse");
  const auto [cfg, log] = WriteTrainerFiles(c, "srv_refuse");
  Config other = c;
  other.board.size = 9;  // this server only accepts 9x9 networks
  const std::string other_cfg = WriteConfigFile(other, FreshTestDir("srv_refuse_cfg2") + "/c.json");
  const std::string slog = dir + "/../srv_refuse_server.log";
  std::remove(slog.c_str());
  InferServerProcess server({"--config", other_cfg}, slog);
  REQUIRE(WaitUntil([&] { return Ping(c.server.socket, 1.0); }));
  TrainerProcess trainer({"--config", cfg}, log);
  CHECK(trainer.Wait() == 1);
  CHECK(FileExists(run.checkpoint(0)));
  CHECK_FALSE(FileExists(run.metadata()));  // cold start not published: the server refused it0
  CHECK(Slurp(log).find("refused to load") != std::string::npos);
  server.Signal(SIGTERM);
  server.Wait();
}
