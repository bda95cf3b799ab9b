// Multi-host reload, the server's side (docs/operations.md "Many hosts"): a
// real infer_server with run.host set follows <run>/reload.json, loads the
// announced weights as a RELOAD would, acknowledges in status/{host}/
// reload_ack.json (its heartbeat), refuses a bad file with the reason while
// the old model keeps serving; and a worker's FallbackEvaluator never uses
// answers older than the iteration's generation.
#include <catch2/catch.hpp>

#include "common/config/config.h"
#include "common/data/host_reload.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "common/wire/fallback_evaluator.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

std::optional<HostAck> TryAck(const RunLayout& run, const std::string& host) {
  try {
    return ReadHostAck(run.reload_ack(host));
  } catch (const GomokuError&) {
    return std::nullopt;
  }
}

}  // namespace

TEST_CASE("a host's server follows reload.json and acknowledges each generation", "[server][multihost]") {
  ShortTempDir tmp;
  const std::string dir = FreshTestDir("server/follow");
  const RunLayout run(dir + "/run");
  std::filesystem::create_directories(run.checkpoints());
  const std::string sock = tmp / "infer.sock";
  InferServerProcess server(ServerArgs(sock, run.dir,
                                       {"--run-dir", run.dir, "--set", "run.host=hostA", "--set",
                                        "server.heartbeat_s=0.1"}),
                            dir + "/server.log");

  // Before any weights: a heartbeat that says nothing is served.
  REQUIRE(WaitUntil([&] { return TryAck(run, "hostA").has_value(); }, 30));
  HostAck first = *TryAck(run, "hostA");
  CHECK(first.host == "hostA");
  CHECK(first.serving_generation == -1);
  CHECK_FALSE(first.has_announcement);
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "hostA"); return a && a->seq > first.seq; }, 10));

  // The cold start's weights, announced before any metadata.json exists.
  const std::string w0 = MakeCheckpoint(run.checkpoints(), "weights_it0.pt", 11, 0);
  WriteReloadAnnouncement(run.reload_announcement(), ReloadAnnouncement{0, w0, 0, NowSeconds()});
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "hostA"); return a && a->serving_generation == 0; }, 30));
  CHECK(ServedGeneration(sock) == 0);
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "hostA"); return a && a->has_announcement; }, 10));
  HostAck a0 = *TryAck(run, "hostA");
  CHECK(a0.announced_generation == 0);
  CHECK(a0.announcement_ok);
  CHECK(a0.serving_weights == w0);

  // The next generation: served and acknowledged; answers match local inference.
  const std::string w1 = MakeCheckpoint(run.checkpoints(), "weights_it1.pt", 12, 1);
  WriteReloadAnnouncement(run.reload_announcement(), ReloadAnnouncement{1, w1, 1, NowSeconds()});
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "hostA"); return a && a->serving_generation == 1 &&
                                                                   a->announced_generation == 1; }, 30));
  std::vector<Position> ps = RandomPositions(3, 5);
  std::vector<EvalResult> want = LocalAnswers(w1, ps), got(ps.size());
  RemoteEvaluator remote(sock, TestHello());
  remote.Evaluate(ps, got);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) < 1e-5);

  // A truncated checkpoint: refused with the reason, generation 1 keeps serving.
  const std::string bad = run.checkpoint(2);
  {
    const std::string good = ReadFileOrThrow(MakeCheckpoint(dir, "two.pt", 13, 2));
    WriteFileAtomic(bad, good.substr(0, good.size() / 2));
  }
  WriteReloadAnnouncement(run.reload_announcement(), ReloadAnnouncement{2, bad, 2, NowSeconds()});
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "hostA"); return a && a->announced_generation == 2; }, 30));
  HostAck refused = *TryAck(run, "hostA");
  CHECK_FALSE(refused.announcement_ok);
  CHECK(refused.announcement_reason.find("weights_it2.pt") != std::string::npos);
  CHECK(refused.serving_generation == 1);
  CHECK(ServedGeneration(sock) == 1);

  // A malformed announcement: logged, heartbeat goes on, nothing reloads.
  WriteFileAtomic(run.reload_announcement(), "{\"format_version\": 7}");
  const int64_t seq = TryAck(run, "hostA")->seq;
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "hostA"); return a && a->seq > seq + 2; }, 10));
  CHECK(ServedGeneration(sock) == 1);
  CHECK(server.Terminate() == 0);
  const std::string log = server.Log();
  CHECK(log.find("format_version 7") != std::string::npos);
  CHECK(log.find("refused announced generation 2") != std::string::npos);
}

TEST_CASE("a restarted host server starts from metadata.json and acknowledges the announcement it finds",
          "[server][multihost]") {
  ShortTempDir tmp;
  const std::string dir = FreshTestDir("server/follow-restart");
  const RunLayout run(dir + "/run");
  std::filesystem::create_directories(run.checkpoints());
  const std::string w3 = MakeCheckpoint(run.checkpoints(), "weights_it3.pt", 21, 3);
  Metadata m;
  m.iteration = 4;
  m.weights = w3;
  m.model_generation = 3;
  Config shared;
  shared.board.size = kTestBoard;  // the server adopts the run's geometry from here
  m.config = shared.ToJson();
  WriteMetadata(run.metadata(), m);
  WriteReloadAnnouncement(run.reload_announcement(), ReloadAnnouncement{3, w3, 3, NowSeconds()});
  const std::string sock = tmp / "infer.sock";
  InferServerProcess server(ServerArgs(sock, run.dir,
                                       {"--run-dir", run.dir, "--set", "run.host=h-2.lab", "--set",
                                        "server.heartbeat_s=0.1"}),
                            dir + "/server.log");
  REQUIRE(WaitUntil([&] { auto a = TryAck(run, "h-2.lab"); return a && a->has_announcement; }, 30));
  HostAck a = *TryAck(run, "h-2.lab");
  CHECK(a.serving_generation == 3);
  CHECK(a.announcement_ok);
  CHECK(a.announced_generation == 3);
  // It was loaded once, from metadata.json, not a second time for the announcement.
  CHECK(server.Terminate() == 0);
  const std::string log = server.Log();
  size_t loads = 0;
  for (size_t p = log.find("model loaded: "); p != std::string::npos; p = log.find("model loaded: ", p + 1)) ++loads;
  CHECK(loads == 1);
}

TEST_CASE("FallbackEvaluator refuses answers older than the iteration's generation", "[remote][fallback][multihost]") {
  ServedCheckpoint served("server/fb-min-generation", 31, 4);
  const std::string newer = MakeCheckpoint(served.dir, "b.pt", 32, 5);
  std::vector<Position> ps = RandomPositions(4, 9);
  std::vector<EvalResult> remote_answers = LocalAnswers(served.ckpt, ps), newer_answers = LocalAnswers(newer, ps);

  LogCapture logs;
  int factory_calls = 0;
  FallbackOptions o;
  o.reconnect_initial_s = 0.05;
  o.reconnect_max_s = 0.1;
  FallbackEvaluator fb(served.sock, TestHello(), [&] {
    ++factory_calls;
    return LoadLocalEvaluator(newer, "cpu", 1, SymmetryMode::kAll8);
  }, o);
  std::vector<EvalResult> got(ps.size());
  fb.set_min_generation(4);  // the server is current: its answers are used
  fb.Evaluate(ps, got);
  CHECK(fb.fallbacks() == 0);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], remote_answers[i]) < 1e-5);

  fb.set_min_generation(5);  // the iteration moved on, the server did not
  fb.Evaluate(ps, got);
  CHECK(fb.fallbacks() == 1);
  CHECK(factory_calls == 1);
  for (size_t i = 0; i < ps.size(); ++i) {
    CHECK(got[i].model_generation == 5);
    CHECK(MaxAbsDiff(got[i], newer_answers[i]) < 1e-5);
  }
  CHECK(logs.text().find("answered with model generation 4, this iteration was published with generation 5") !=
        std::string::npos);
}
