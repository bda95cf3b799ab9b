// The trainer's wait for the self-play hosts (trainer/host_acks.h): every live
// host must serve the new generation; a silent one is excluded by name; a
// refusal stops the publication.  The hosts here are heartbeat files the test
// rewrites (the real server's side is tests/infer_server/test_server_follow.cc,
// both together tests/e2e/test_e2e_multihost.sh).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "common/base/fileio.h"
#include "common/data/host_reload.h"
#include "common/data/run_layout.h"
#include "common/harness/temp_dir.h"
#include "common/harness/wait_until.h"
#include "trainer/host_acks.h"
#include "trainer/server_reload.h"

using namespace gz;

namespace {

// A fake host's heartbeat: what its server would write, on a thread.
class Heartbeat {
 public:
  Heartbeat(const RunLayout& run, std::string host, int64_t serving) : run_(run), host_(std::move(host)) {
    serving_ = serving;
    MakeDirs(run_.status_dir(host_));
    Write();
    thread_ = std::thread([this] {
      while (!stop_) {
        Write();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  ~Heartbeat() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  void Serve(int64_t g) { serving_ = g; }
  void Refuse(int64_t g, std::string reason) {
    std::lock_guard<std::mutex> lock(mu_);
    refused_ = g;
    reason_ = std::move(reason);
  }

 private:
  void Write() {
    HostAck a;
    a.host = host_;
    a.pid = 1000;
    a.seq = ++seq_;
    a.updated_at = NowSeconds();
    a.serving_generation = serving_;
    std::lock_guard<std::mutex> lock(mu_);
    if (refused_ >= 0) {
      a.has_announcement = true;
      a.announced_generation = refused_;
      a.announcement_ok = false;
      a.announcement_reason = reason_;
    }
    WriteHostAck(run_.reload_ack(host_), a);
  }
  RunLayout run_;
  std::string host_;
  std::atomic<int64_t> serving_{-1};
  std::atomic<bool> stop_{false};
  int64_t seq_ = 0;
  std::mutex mu_;
  int64_t refused_ = -1;
  std::string reason_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("no hosts: nothing to wait for") {
  const RunLayout run(gz::testing::FreshTestDir("host_acks/none"));
  HostMonitor monitor(run.dir, 5.0, 0.05);
  monitor.Start();
  HostReloadOutcome out = AwaitHostAcks(monitor, 3, 10.0, nullptr);
  CHECK(out.acknowledged.empty());
  CHECK(out.excluded.empty());
}

TEST_CASE("the wait ends when every live host serves the generation; a silent host is excluded by name") {
  const RunLayout run(gz::testing::FreshTestDir("host_acks/live"));
  Heartbeat a(run, "hostA", 2), b(run, "hostB", 2), c(run, "hostC", 2);
  HostMonitor monitor(run.dir, 1.0, 0.05);
  monitor.Start();
  c.Stop();  // hostC's server dies: its file stays, its seq stops changing

  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    a.Serve(3);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    b.Serve(3);
  });
  HostReloadOutcome out = AwaitHostAcks(monitor, 3, 30.0, nullptr);
  later.join();
  CHECK(out.acknowledged == std::vector<std::string>{"hostA", "hostB"});
  REQUIRE(out.excluded.size() == 1);
  CHECK(out.excluded[0].first == "hostC");
  CHECK(out.excluded[0].second.find("no heartbeat") != std::string::npos);
  CHECK(out.excluded[0].second.find("run.host_timeout_s") != std::string::npos);
  CHECK(out.ToJson()["excluded"][0]["host"] == "hostC");
  // Both acknowledged only after serving 3: the wait took at least until B did.
  for (const HostView& v : monitor.Snapshot())
    if (v.host != "hostC") CHECK(v.ack.serving_generation == 3);

  // hostC comes back (a restarted server: same file, new heartbeats): it rejoins.
  Heartbeat c2(run, "hostC", 3);
  REQUIRE(gz::testing::WaitUntil([&] {
    for (const HostView& v : monitor.Snapshot())
      if (v.host == "hostC") return v.live;
    return false;
  }, 10));
  HostReloadOutcome again = AwaitHostAcks(monitor, 3, 30.0, nullptr);
  CHECK(again.acknowledged == std::vector<std::string>{"hostA", "hostB", "hostC"});
  CHECK(again.excluded.empty());
}

TEST_CASE("a live host that never loads the generation is excluded after the reload timeout") {
  const RunLayout run(gz::testing::FreshTestDir("host_acks/stuck"));
  Heartbeat a(run, "hostA", 4), stuck(run, "stuck", 3);
  HostMonitor monitor(run.dir, 30.0, 0.05);
  monitor.Start();
  HostReloadOutcome out = AwaitHostAcks(monitor, 4, 0.5, nullptr);
  CHECK(out.acknowledged == std::vector<std::string>{"hostA"});
  REQUIRE(out.excluded.size() == 1);
  CHECK(out.excluded[0].first == "stuck");
  CHECK(out.excluded[0].second.find("serves generation 3, not 4") != std::string::npos);
}

TEST_CASE("a host that refuses the weights stops the publication with its reason") {
  const RunLayout run(gz::testing::FreshTestDir("host_acks/refused"));
  Heartbeat a(run, "hostA", 5), b(run, "hostB", 5);
  b.Refuse(6, "weights_it6.pt: CRC mismatch");
  HostMonitor monitor(run.dir, 30.0, 0.05);
  monitor.Start();
  try {
    AwaitHostAcks(monitor, 6, 30.0, nullptr);
    FAIL("a refusal was not reported");
  } catch (const ReloadRefusedError& e) {
    const std::string what = e.what();
    CHECK(what.find("hostB") != std::string::npos);
    CHECK(what.find("CRC mismatch") != std::string::npos);
  }
}

TEST_CASE("the wait returns at once when the trainer is stopped") {
  const RunLayout run(gz::testing::FreshTestDir("host_acks/stop"));
  Heartbeat a(run, "hostA", 1);
  HostMonitor monitor(run.dir, 30.0, 0.05);
  monitor.Start();
  std::atomic<bool> stop{true};
  HostReloadOutcome out = AwaitHostAcks(monitor, 2, 30.0, &stop);
  CHECK(out.stopped);
}
