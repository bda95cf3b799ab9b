// RemoteEvaluator and FallbackEvaluator against the real server: fallback
// when the socket is missing, when the server is kill -9'd mid-run, reconnect
// when it comes back, idle-closed connections re-opened, self-play through
// the server.
#include <catch2/catch.hpp>

#include <atomic>

#include "common/wire/fallback_evaluator.h"
#include "common/wire/remote_evaluator.h"
#include "common/search/selfplay.h"
#include "tests/support/play_games.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

FallbackOptions FastBackoff() {
  FallbackOptions o;
  o.reconnect_initial_s = 0.05;
  o.reconnect_max_s = 0.2;
  o.remote.connect_timeout_s = 2;
  o.remote.call_timeout_s = 20;
  return o;
}

}  // namespace

TEST_CASE("FallbackEvaluator falls back when the socket is missing", "[remote][fallback]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/fb-missing");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 4, 1);
  std::vector<Position> ps = RandomPositions(5, 3);
  std::vector<EvalResult> want = LocalAnswers(ckpt, ps);

  LogCapture logs;
  int factory_calls = 0;
  FallbackEvaluator fb(tmp / "nope.sock", TestHello(), [&] {
    ++factory_calls;
    return LoadLocalEvaluator(ckpt, "cpu", 1, SymmetryMode::kAll8);
  }, FastBackoff());
  CHECK_FALSE(fb.remote_active());
  CHECK(fb.fallbacks() == 1);
  CHECK(factory_calls == 0);  // lazily
  std::vector<EvalResult> got(ps.size());
  fb.Evaluate(ps, got);
  fb.Evaluate(ps, got);
  CHECK(factory_calls == 1);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) == 0);
  CHECK(logs.Count("falling back to local inference") == 1);
  CHECK(logs.text().find("no socket file") != std::string::npos);
  CHECK(logs.Count("remote batched inference enabled") == 0);
}

TEST_CASE("FallbackEvaluator survives kill -9 of the server and reconnects when it returns",
          "[remote][fallback]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/fb-kill");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 4, 6);
  std::string sock = tmp / "infer.sock";
  std::vector<Position> ps = RandomPositions(5, 3);
  std::vector<EvalResult> want = LocalAnswers(ckpt, ps);

  auto server = std::make_unique<InferServerProcess>(ServerArgs(sock, dir + "/run", {"--weights", ckpt}), dir + "/s1.log");
  REQUIRE(WaitServing(sock, 6));

  LogCapture logs;
  int factory_calls = 0;
  FallbackEvaluator fb(sock, TestHello(), [&] {
    ++factory_calls;
    return LoadLocalEvaluator(ckpt, "cpu", 1, SymmetryMode::kAll8);
  }, FastBackoff());
  CHECK(fb.remote_active());
  CHECK(logs.Count("remote batched inference enabled: " + sock) == 1);
  std::vector<EvalResult> got(ps.size());
  fb.Evaluate(ps, got);
  CHECK(got[0].model_generation == 6);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) < 1e-5);
  CHECK(factory_calls == 0);

  server->Kill();
  // The failed evaluation is redone locally: same answers, game goes on.
  for (auto& r : got) r = EvalResult{};
  fb.Evaluate(ps, got);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) < 1e-5);
  CHECK_FALSE(fb.remote_active());
  CHECK(fb.fallbacks() == 1);
  CHECK(factory_calls == 1);
  CHECK(logs.Count("falling back to local inference") == 1);

  // Still down: stays local, retries with backoff, no new fallback count.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  fb.Evaluate(ps, got);
  CHECK_FALSE(fb.remote_active());
  CHECK(fb.fallbacks() == 1);

  // The server comes back on the same (now stale) socket path.
  server = std::make_unique<InferServerProcess>(ServerArgs(sock, dir + "/run", {"--weights", ckpt}), dir + "/s2.log");
  REQUIRE(WaitServing(sock, 6));
  REQUIRE(WaitRemoteRestored(fb, ps, got, 10));
  CHECK(fb.reconnects() == 1);
  CHECK(logs.Count("remote batched inference restored: " + sock) == 1);
  fb.Evaluate(ps, got);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) < 1e-5);
  auto stats = FetchStats(sock, 5);
  CHECK(stats.at("requests_total").get<int64_t>() >= 1);
  CHECK(server->Terminate() == 0);
}

TEST_CASE("RemoteEvaluator re-opens a connection the server closed for idleness", "[remote]") {
  ServedCheckpoint srv("server/idle", 4, 2, {"--set", "server.idle_timeout_s=0.3"});
  RemoteEvaluator remote(srv.sock, TestHello());
  std::vector<Position> ps = RandomPositions(2, 1);
  std::vector<EvalResult> got(2);
  remote.Evaluate(ps, got);
  REQUIRE(WaitUntil([&] { return srv.server.Log().find("idle timeout") != std::string::npos; }, 10));
  remote.Evaluate(ps, got);  // no exception: reconnected
  CHECK(got[1].model_generation == 2);
  CHECK(srv.server.Terminate() == 0);
}

TEST_CASE("self-play through the server (PlayGamesStreaming over RemoteEvaluator), server killed mid-run",
          "[remote][selfplay]") {
  ServedCheckpoint srv("server/selfplay", 8, 7);

  SelfPlayParams params;
  params.mcts.simulations = 12;
  params.max_moves = 30;
  {
    RemoteEvaluator remote(srv.sock, TestHello());
    std::vector<std::unique_ptr<SelfPlayGame>> games;
    for (int g = 0; g < 4; ++g)
      games.push_back(std::make_unique<SelfPlayGame>(params, kTestBoard, Rule::kFreestyle, GameSeed(1, 1, 0, g), 1, 7));
    CHECK(PlayTogether(games, remote) > 0);
    for (auto& g : games) {
      REQUIRE(g);
      CHECK(g->finished());
      CHECK(g->record().num_moves() > 0);
      for (int64_t gen : g->record().model_generations) CHECK(gen == 7);
    }
  }
  // Kill the server while games are being played: they still finish.
  LogCapture logs;
  FallbackEvaluator fb(
      srv.sock, TestHello(), [&] { return LoadLocalEvaluator(srv.ckpt, "cpu", 1, SymmetryMode::kAll8); },
      FastBackoff());
  REQUIRE(fb.remote_active());
  std::vector<std::unique_ptr<SelfPlayGame>> games;
  for (int g = 0; g < 4; ++g)
    games.push_back(std::make_unique<SelfPlayGame>(params, kTestBoard, Rule::kFreestyle, GameSeed(2, 1, 0, g), 1, 7));
  const int64_t baseline = FetchStats(srv.sock, 5).at("requests_total").get<int64_t>();
  std::thread killer([&] {
    WaitUntil(
        [&] {
          try {
            return FetchStats(srv.sock, 5).at("requests_total").get<int64_t>() >= baseline + 20;
          } catch (const std::exception&) {
            return false;
          }
        },
        30);
    srv.server.Kill();
  });
  CHECK_NOTHROW(PlayTogether(games, fb));
  killer.join();
  for (auto& g : games) CHECK((g && g->finished()));
  CHECK(fb.fallbacks() == 1);
  CHECK(logs.Count("falling back to local inference") == 1);
}
