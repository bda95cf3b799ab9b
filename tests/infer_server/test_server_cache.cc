// infer_server end to end (real binary, real socket, tiny net): the result
// cache (exact answers, hit rate, no stale answers across RELOAD, even for
// requests racing the swap), the batch accounting in the stats, and the
// adaptive wait (it does not sit out its ceiling for an idle client; it never
// waits past the ceiling).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>

#include <nlohmann/json.hpp>

#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

bool SameResultBits(const EvalResult& a, const EvalResult& b) {
  return a.log_policy.size() == b.log_policy.size() && std::memcmp(&a.value, &b.value, sizeof(float)) == 0 &&
         std::memcmp(a.log_policy.data(), b.log_policy.data(), a.log_policy.size() * sizeof(float)) == 0;
}

struct Client {
  explicit Client(const std::string& sock) : w(sock, 5) { w.Hello(TestHello(), 5); }
  std::vector<EvalResult> Infer(const std::vector<Position>& ps, int64_t* gen = nullptr) {
    std::vector<EvalResult> out(ps.size());
    int64_t g = w.Infer(ps, out, 30);
    if (gen) *gen = g;
    return out;
  }
  WireClient w;
};

int64_t Total(const nlohmann::json& s, const char* key) { return s.at(key).get<int64_t>(); }

// Server arguments for `ckpt` with the adaptive wait under a ceiling of
// `ceiling_ms`, batches of up to 1000 and no periodic stats.
std::vector<std::string> AutoWaitArgs(const std::string& ckpt, int ceiling_ms) {
  return {"--weights", ckpt, "--set", "server.max_wait=auto", "--set",
          "server.auto_wait_ceiling_ms=" + std::to_string(ceiling_ms), "--set", "server.max_batch=1000", "--set",
          "server.stats_interval_s=600"};
}

}  // namespace

TEST_CASE("cache hits are bit-for-bit the uncached answers; partial hits merge in order", "[server][cache]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/cache-exact");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 31, 1);
  std::string sock_cached = tmp / "c.sock", sock_plain = tmp / "p.sock";
  InferServerProcess cached(ServerArgs(sock_cached, dir + "/run", {"--weights", ckpt, "--set", "server.cache_entries=1000",
                                                              "--set", "server.max_wait=auto"}),
                       dir + "/cached.log");
  InferServerProcess plain(ServerArgs(sock_plain, dir + "/run", {"--weights", ckpt, "--set", "server.max_wait=auto"}),
                      dir + "/plain.log");
  REQUIRE(WaitUntil([&] { return ServedGeneration(sock_cached) == 1 && ServedGeneration(sock_plain) == 1; }, 60));

  std::vector<Position> all = DistinctPositions(9, 5);
  std::vector<Position> ps(all.begin(), all.begin() + 6), fresh(all.begin() + 6, all.end());
  Client c(sock_cached), p(sock_plain);
  auto first = c.Infer(ps);    // misses: forwarded
  int64_t gen = -1;
  auto second = c.Infer(ps, &gen);  // hits: no forward
  CHECK(gen == 1);
  auto reference = p.Infer(ps);  // the same request to a server without a cache
  auto local = LocalAnswers(ckpt, ps);
  for (size_t i = 0; i < ps.size(); ++i) {
    INFO("position " << i);
    CHECK(SameResultBits(second[i], first[i]));
    CHECK(SameResultBits(first[i], reference[i]));
    CHECK(MaxAbsDiff(second[i], local[i]) < 1e-5);
    CHECK(second[i].model_generation == 1);
  }

  // Cached, new, cached, new, new, cached: the new ones go through a forward of
  // their own (3 positions, like `plain` answering just them).
  std::vector<Position> mixed = {ps[0], fresh[0], ps[3], fresh[1], fresh[2], ps[5]};
  auto merged = c.Infer(mixed);
  auto fresh_reference = p.Infer(fresh);
  CHECK(SameResultBits(merged[0], first[0]));
  CHECK(SameResultBits(merged[2], first[3]));
  CHECK(SameResultBits(merged[5], first[5]));
  CHECK(SameResultBits(merged[1], fresh_reference[0]));
  CHECK(SameResultBits(merged[3], fresh_reference[1]));
  CHECK(SameResultBits(merged[4], fresh_reference[2]));

  nlohmann::json s = FetchStats(sock_cached, 5);
  CHECK(Total(s, "cache_lookups_total") == 18);
  CHECK(Total(s, "cache_hits_total") == 9);
  CHECK(s.at("cache_hit_rate_total").get<double>() == Approx(0.5));
  CHECK(Total(s, "requests_cached_total") == 1);  // the second request never reached the batcher
  CHECK(Total(s, "requests_total") == 3);
  CHECK(Total(s, "positions_total") == 18);
  CHECK(Total(s, "positions_forwarded_total") == 9);
  CHECK(Total(s, "forwards_total") == 2);
  CHECK(s.at("cache_entries").get<int64_t>() == 1000);
  nlohmann::json ps_stats = FetchStats(sock_plain, 5);
  CHECK_FALSE(ps_stats.contains("cache_lookups_total"));  // no cache, no cache figures
  CHECK(Total(ps_stats, "positions_forwarded_total") == 9);
  CHECK(cached.Terminate() == 0);
  CHECK(plain.Terminate() == 0);
  std::string log = cached.Log();
  CHECK(log.find("result cache 1000 entries") != std::string::npos);
  CHECK(log.find("cache hit rate") != std::string::npos);
}

TEST_CASE("after RELOAD the cache never serves the old model's answers", "[server][cache][reload]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/cache-reload");
  // a and b differ; a3/b4 are a and b again under new generations.
  std::string a = MakeCheckpoint(dir, "a.pt", 1, 1), b = MakeCheckpoint(dir, "b.pt", 2, 2);
  std::string a3 = MakeCheckpoint(dir, "a3.pt", 1, 3), b4 = MakeCheckpoint(dir, "b4.pt", 2, 4);
  std::string sock = tmp / "infer.sock";
  InferServerProcess server(ServerArgs(sock, dir + "/run", {"--weights", a, "--set", "server.cache_entries=4096"}),
                       dir + "/server.log");
  REQUIRE(WaitServing(sock, 1));
  std::vector<Position> ps = DistinctPositions(5, 12);
  auto want_a = LocalAnswers(a, ps), want_b = LocalAnswers(b, ps);
  REQUIRE(MaxAbsDiff(want_a[0], want_b[0]) > 1e-3);

  Client c(sock);  // one connection across the reloads
  c.Infer(ps);
  int64_t gen = -1;
  auto cached_a = c.Infer(ps, &gen);
  CHECK(gen == 1);
  const int64_t hits_before = Total(FetchStats(sock, 5), "cache_hits_total");
  CHECK(hits_before == 5);

  CHECK(RequestReload(sock, b, 30) == 2);
  auto after = c.Infer(ps, &gen);
  CHECK(gen == 2);
  for (size_t i = 0; i < ps.size(); ++i) {
    CHECK(MaxAbsDiff(after[i], want_b[i]) < 1e-5);
    CHECK(MaxAbsDiff(after[i], want_a[i]) > 1e-4);
    CHECK(after[i].model_generation == 2);
  }
  CHECK(Total(FetchStats(sock, 5), "cache_hits_total") == hits_before);  // all missed after the swap
  auto again = c.Infer(ps, &gen);
  CHECK(gen == 2);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(SameResultBits(again[i], after[i]));
  CHECK(Total(FetchStats(sock, 5), "cache_hits_total") == hits_before + 5);

  // Requests racing swaps: clients hammer the same positions while the model
  // flips a -> b -> a -> b.  Every reply must be the answer of the generation
  // it names.
  std::map<int64_t, std::vector<EvalResult>*> want = {{1, &want_a}, {2, &want_b}, {3, &want_a}, {4, &want_b}};
  std::atomic<bool> stop{false};
  std::atomic<int> replies{0}, wrong{0}, failed{0};
  std::vector<std::thread> hammer;
  for (int t = 0; t < 3; ++t) {
    hammer.emplace_back([&] {
      try {
        Client h(sock);
        while (!stop) {
          int64_t g = -1;
          auto got = h.Infer(ps, &g);
          auto it = want.find(g);
          if (it == want.end()) {
            ++wrong;
            continue;
          }
          for (size_t i = 0; i < ps.size(); ++i)
            if (MaxAbsDiff(got[i], (*it->second)[i]) > 1e-5 || got[i].model_generation != g) ++wrong;
          ++replies;
        }
      } catch (const std::exception&) {
        ++failed;
      }
    });
  }
  for (const std::string& next : {a3, b4, a, b}) {
    const int before = replies;
    WaitUntil([&] { return replies > before + 10; }, 20);
    RequestReload(sock, next, 30);
  }
  const int before = replies;
  WaitUntil([&] { return replies > before + 10; }, 20);
  stop = true;
  for (auto& t : hammer) t.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
  CHECK(replies > 40);
  nlohmann::json s = FetchStats(sock, 5);
  CHECK(Total(s, "cache_hits_total") > hits_before + 5);
  CHECK(Total(s, "reloads_ok_total") >= 6);
  CHECK(server.Terminate() == 0);
}

TEST_CASE("batch accounting in the stats matches what was sent", "[server][stats]") {
  ServedCheckpoint srv("server/accounting", 7, 1,
                       {"--set", "server.cache_entries=1000", "--set", "server.max_wait=auto"});
  // One client, one request at a time: every request is one forward.
  std::vector<Position> pool = DistinctPositions(17, 40);
  std::vector<std::vector<Position>> requests;
  for (int size = 1, at = 0; size <= 5; at += size, ++size)
    requests.emplace_back(pool.begin() + at, pool.begin() + at + size);
  Client c(srv.sock);
  for (auto& r : requests) c.Infer(r);
  nlohmann::json s = FetchStats(srv.sock, 5);
  CHECK(Total(s, "requests_total") == 5);
  CHECK(Total(s, "positions_total") == 15);
  CHECK(Total(s, "positions_forwarded_total") == 15);
  CHECK(Total(s, "forwards_total") == 5);
  CHECK(s.at("avg_batch_total").get<double>() == Approx(3.0));
  // The same requests again: answered from the cache, no forward.
  for (auto& r : requests) c.Infer(r);
  s = FetchStats(srv.sock, 5);
  CHECK(Total(s, "requests_total") == 10);
  CHECK(Total(s, "positions_total") == 30);
  CHECK(Total(s, "positions_forwarded_total") == 15);
  CHECK(Total(s, "forwards_total") == 5);
  CHECK(Total(s, "requests_cached_total") == 5);
  CHECK(s.at("avg_batch_total").get<double>() == Approx(3.0));
  CHECK(s.at("cache_hit_rate_total").get<double>() == Approx(0.5));
  // Two cached + two new positions: one forward of two.
  c.Infer({pool[0], pool[15], pool[14], pool[16]});
  s = FetchStats(srv.sock, 5);
  CHECK(Total(s, "requests_total") == 11);
  CHECK(Total(s, "positions_total") == 34);
  CHECK(Total(s, "positions_forwarded_total") == 17);
  CHECK(Total(s, "forwards_total") == 6);
  CHECK(s.at("avg_batch_total").get<double>() == Approx(17.0 / 6).epsilon(1e-3));
  CHECK(s.at("flops_per_position").get<double>() == Approx(8 * ForwardFlops(kTestBoard, 8, 1)));
  CHECK(s.at("peak_flops").get<double>() > 0);
  CHECK(s.at("mfu_in_forward").get<double>() > 0);
  CHECK(s.contains("auto_wait"));
  int64_t closes = 0;
  for (auto& [reason, n] : s.at("batch_close_total").items()) closes += n.get<int64_t>();
  CHECK(closes == 6);

  // Many clients at once (cache misses only): whatever batches form, the
  // totals add up and avg_batch is positions_forwarded / forwards.
  const int kClients = 8, kEach = 6;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int k = 0; k < kClients; ++k) {
    threads.emplace_back([&, k] {
      try {
        Client w(srv.sock);
        for (int r = 0; r < kEach; ++r) w.Infer(RandomPositions(1 + r % 3, 1000 + k * 100 + r));
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  s = FetchStats(srv.sock, 5);
  const int64_t sent = kClients * (1 + 2 + 3 + 1 + 2 + 3);
  CHECK(Total(s, "requests_total") == 11 + kClients * kEach);
  CHECK(Total(s, "positions_total") == 34 + sent);
  const int64_t fwd = Total(s, "forwards_total"), pf = Total(s, "positions_forwarded_total");
  CHECK(pf <= 17 + sent);  // random positions may repeat (an empty board): those are hits
  CHECK(pf + Total(s, "cache_hits_total") == Total(s, "positions_total"));
  CHECK(fwd <= 6 + kClients * kEach);
  CHECK(s.at("avg_batch_total").get<double>() == Approx(double(pf) / fwd).epsilon(1e-3));
  CHECK(srv.server.Terminate() == 0);
}

TEST_CASE("adaptive wait: no sitting out the ceiling for one client, never past the ceiling", "[server][autowait]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/autowait");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 9, 1);
  std::string sock = tmp / "infer.sock";
  {
    // Ceiling 1 s and a second client that never sends: the old rule ("wait
    // for everyone, else the ceiling") held every request for 1 s.
    InferServerProcess server(ServerArgs(sock, dir + "/run", AutoWaitArgs(ckpt, 1000)), dir + "/server1.log");
    REQUIRE(WaitServing(sock, 1));
    Client idle(sock), active(sock);
    for (int i = 0; i < 20; ++i) active.Infer(RandomPositions(1, 500 + i));
    nlohmann::json s = FetchStats(sock, 5);
    CHECK(Total(s, "forwards_total") == 20);
    CHECK(s.at("batch_close_total").at("ceiling").get<int64_t>() == 0);
    CHECK(s.at("batch_close_total").at("adaptive").get<int64_t>() == 20);
    CHECK(s.at("queue_wait_ms_max").get<double>() < 500);  // far below the 1000 ms ceiling
    CHECK(server.Terminate() == 0);
  }
  {
    // Ceiling 20 ms, a client that pipelines bursts and one that never sends:
    // no request waits in the queue much beyond the ceiling (slack for the
    // forward in flight and a loaded machine).
    const double kCeiling = 20;
    InferServerProcess server(ServerArgs(sock, dir + "/run", AutoWaitArgs(ckpt, 20)), dir + "/server2.log");
    REQUIRE(WaitServing(sock, 1));
    Client idle(sock), burst(sock);
    for (int round = 0; round < 10; ++round) {
      std::vector<uint64_t> ids;
      for (int k = 0; k < 8; ++k)
        ids.push_back(burst.w.Send(wire::MsgType::kInfer,
                                   wire::EncodeInfer(RandomPositions(2, round * 10 + k), kTestBoard)));
      for (size_t k = 0; k < ids.size(); ++k) {
        auto f = burst.w.Receive(30);
        CHECK(f.header.type == wire::MsgType::kInferReply);
        CHECK(f.header.request_id == ids[k]);  // INFER replies come back in request order
      }
    }
    nlohmann::json s = FetchStats(sock, 5);
    CHECK(Total(s, "requests_total") == 80);
    const double max_wait = s.at("queue_wait_ms_max").get<double>();
    const double max_forward = s.at("avg_forward_ms_total").get<double>() * 20;  // generous
    INFO("queue wait max " << max_wait << " ms, forward avg " << s.at("avg_forward_ms_total") << " ms");
    CHECK(max_wait < kCeiling + max_forward + 250);
    CHECK(server.Terminate() == 0);
  }
}

TEST_CASE("forward options: CUDA-only settings on the CPU are refused at start", "[server][gpu-options]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/fwd-options");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 1, 1);
  struct Case {
    std::string set, names;
  };
  for (const Case& c : {Case{"server.precision=bf16", "server.precision"},
                        Case{"server.cuda_graphs=true", "server.cuda_graphs"}}) {
    INFO(c.set);
    InferServerProcess server(ServerArgs(tmp / "s.sock", dir + "/run", {"--weights", ckpt, "--set", c.set}),
                         dir + "/refused.log");
    CHECK(server.WaitExit(std::chrono::seconds(60)) == 2);
    CHECK(server.Log().find(c.names) != std::string::npos);
  }
  // fp32 without graphs is the plain forward; the start line names the settings.
  InferServerProcess ok(ServerArgs(tmp / "s.sock", dir + "/run", {"--weights", ckpt, "--set", "server.precision=fp32"}),
                   dir + "/ok.log");
  REQUIRE(WaitUntil([&] { return ServedGeneration(tmp / "s.sock") == 1; }, 60));
  CHECK(ok.Terminate() == 0);
  std::string log = ok.Log();
  CHECK(log.find("forward precision fp32, CUDA graphs off, input encoding on the host, forward max rows 160") !=
        std::string::npos);
  CHECK(log.find("result cache off") != std::string::npos);
  CHECK(log.find("device peak") != std::string::npos);
}
