// Data-parallel training over c10d Gloo (trainer/data_parallel.h,
// docs/trainer.md "Data-parallel training"): the slices, world_size 1 against
// the one-process path bit for bit, two real processes against a
// single-process reference of the same computation (1e-5), and a rank killed
// (or stopped) in the middle of the steps, and a store wedged by a peer stopped
// in the middle of a request.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <random>

#include "common/game/encoder.h"
#include "tests/support/tensor_lists.h"
#include "tests/trainer/dp_test_util.h"
#include "trainer/data_parallel.h"
#include "trainer/net_trainer.h"
#include "trainer/rank_follower.h"

// Catch2 after every torch header (the header says why).
#include "tests/support/catch_after_torch.h"

using namespace gz;
using namespace gz::testing;

namespace {

// The single-process reference of `steps` data-parallel steps on `world`
// ranks, written out here apart from NetTrainer: the same global batches (the
// same seeded RNG), each rank's slice forwarded separately from the same
// BatchNorm buffers, the slices' gradients weighted by rows / batch and
// summed, the BatchNorm running buffers averaged over the slices, one Adam step.
std::vector<torch::Tensor> Reference(const Config& c, int world, int steps) {
  torch::set_num_threads(1);
  PolicyValueNet net = DpNet(c);
  ReplayBuffer buffer = DpBuffer(c);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(c.train.learning_rate));
  const int batch = c.train.batch_size, size = c.board.size;
  std::vector<float> planes(static_cast<size_t>(batch) * PlaneFloats(size)), policy(batch * size * size),
      value(batch);
  std::mt19937_64 rng(kDpSampleSeed);
  net->train();
  for (int s = 0; s < steps; ++s) {
    buffer.SampleBatch(batch, rng, planes.data(), policy.data(), value.data());
    opt.zero_grad();
    std::vector<torch::Tensor> start, sum;
    for (auto& b : net->buffers()) start.push_back(b.detach().clone());
    for (auto& b : net->buffers())
      if (b.is_floating_point()) sum.push_back(torch::zeros_like(b));
    for (int r = 0; r < world; ++r) {
      {
        torch::NoGradGuard ng;
        auto bufs = net->buffers();
        for (size_t i = 0; i < bufs.size(); ++i) bufs[i].copy_(start[i]);
      }
      const int64_t first = int64_t{batch} * r / world, last = int64_t{batch} * (r + 1) / world, n = last - first;
      auto opts = torch::TensorOptions().dtype(torch::kFloat32);
      torch::Tensor x = torch::from_blob(planes.data() + first * PlaneFloats(size), {n, kNumPlanes, size, size}, opts);
      torch::Tensor pi = torch::from_blob(policy.data() + first * size * size, {n, size * size}, opts);
      torch::Tensor z = torch::from_blob(value.data() + first, {n}, opts);
      auto [logp, v] = net->forward(x);
      torch::Tensor loss = -(pi * logp).sum(1).mean() + (v - z).pow(2).mean();
      torch::Tensor l2 = torch::zeros({});
      for (const auto& p : net->parameters())
        if (p.dim() > 1) l2 = l2 + p.pow(2).sum();
      loss = loss + l2 * c.train.weight_decay;
      (loss * (static_cast<double>(n) / batch)).backward();
      size_t k = 0;
      for (auto& b : net->buffers())
        if (b.is_floating_point()) sum[k++] += b.detach();
    }
    {
      torch::NoGradGuard ng;
      size_t k = 0;
      for (auto& b : net->buffers())
        if (b.is_floating_point()) b.copy_(sum[k++] / world);
    }
    opt.step();
  }
  net->eval();
  return ModelState(net);
}

// Largest difference of the floating-point tensors.
double MaxDiff(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].sizes() == b[i].sizes());
    if (!a[i].is_floating_point()) continue;  // num_batches_tracked: see IntegersEqual
    d = std::max(d, (a[i].to(torch::kFloat64) - b[i].to(torch::kFloat64)).abs().max().item<double>());
  }
  return d;
}

// The integer tensors (BatchNorm's num_batches_tracked) are equal.
bool IntegersEqual(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].is_floating_point() && !torch::equal(a[i], b[i])) return false;
  return true;
}

std::vector<torch::Tensor> LoadState(const std::string& path) {
  std::vector<torch::Tensor> t;
  torch::load(t, path);
  return t;
}

class Helper : public TestProcess {
 public:
  Helper(const std::vector<std::string>& args, const std::string& log)
      : TestProcess(BinPath("dp_rank_helper"), args, log) {}
};

}  // namespace

TEST_CASE("RankSlice: the ranks' slices tile the batch, sizes differ by at most one") {
  for (int world : {1, 2, 3, 7}) {
    for (int batch : {world, 15, 256, 1001}) {
      int next = 0, lo = batch, hi = 0;
      for (int r = 0; r < world; ++r) {
        auto [first, last] = RankSlice(batch, r, world);
        CHECK(first == next);
        next = last;
        lo = std::min(lo, last - first);
        hi = std::max(hi, last - first);
      }
      CHECK(next == batch);
      CHECK(hi - lo <= 1);
      CHECK(lo >= 1);
    }
  }
}

TEST_CASE("world_size 1: a 1-rank Gloo group trains bit for bit as the one-process path") {
  torch::set_num_threads(1);
  Config c = DpConfig(FreshTestDir("dp_w1"), 1, FreePort());
  ReplayBuffer buffer = DpBuffer(c);
  NetTrainer plain(DpNet(c), c.train, torch::kCPU);
  TrainMetrics a = plain.Train(buffer, 1, 3, c.train.batch_size, kDpSampleSeed);

  DataParallel dp(c.train, DataParallelFingerprint(c), 0, torch::kCPU);
  NetTrainer parallel(DpNet(c), c.train, torch::kCPU);
  parallel.SetDataParallel(&dp);
  TrainMetrics b = parallel.Train(buffer, 1, 3, c.train.batch_size, kDpSampleSeed);

  CHECK(SameTensors(ModelState(plain.net()), ModelState(parallel.net())));
  CHECK(a.steps == b.steps);
  CHECK(a.policy_loss == b.policy_loss);
  CHECK(a.value_loss == b.value_loss);
  CHECK(a.l2_loss == b.l2_loss);
  CHECK(a.total_loss == b.total_loss);
  CHECK(a.entropy == b.entropy);
  CHECK(a.value_accuracy == b.value_accuracy);
  CHECK(dp.stats().buckets > 0);
  // A different reference does differ: the comparison can fail.
  NetTrainer other(DpNet(c), c.train, torch::kCPU);
  other.Train(buffer, 1, 3, c.train.batch_size, kDpSampleSeed + 1);
  CHECK_FALSE(SameTensors(ModelState(plain.net()), ModelState(other.net())));
}

TEST_CASE("two Gloo ranks in two processes equal the single-process reference to 1e-5") {
  const std::string dir = FreshTestDir("dp_equiv");
  struct Variant {
    double bucket_mb;
    bool file_store;
  };
  // One bucket; many buckets; a FileStore instead of the TCPStore.
  for (const Variant v : {Variant{25.0, false}, Variant{0.002, false}, Variant{25.0, true}}) {
    INFO("train.allreduce_bucket_mb = " << v.bucket_mb << ", file store " << v.file_store);
    Config c = DpConfig(dir, 2, FreePort());
    c.train.allreduce_bucket_mb = v.bucket_mb;
    if (v.file_store) c.train.dist_store = "file://" + dir + "/store/c10d";
    const std::string cfg = WriteConfigFile(c, dir + "/c.json");
    const int steps = 2;
    Helper r0({"--config", cfg, "--rank", "0", "--steps", std::to_string(steps), "--out", dir + "/r0.pt"},
              dir + "/r0.log");
    Helper r1({"--config", cfg, "--rank", "1", "--out", dir + "/r1.pt"}, dir + "/r1.log");
    REQUIRE(r0.Wait() == 0);
    REQUIRE(r1.Wait() == 0);
    auto w0 = LoadState(dir + "/r0.pt"), w1 = LoadState(dir + "/r1.pt");
    CHECK(SameTensors(w0, w1));  // every rank holds the same weights and buffers
    auto ref = Reference(c, 2, steps);
    CHECK(MaxDiff(w0, ref) < 1e-5);
    CHECK(IntegersEqual(w0, ref));
    // The reference is sensitive: one process on the whole batch (one set of
    // batch statistics) or the initial weights are far from it.
    CHECK(MaxDiff(w0, Reference(c, 1, steps)) > 1e-4);
    CHECK(MaxDiff(w0, Reference(c, 2, 0)) > 1e-4);
  }
}

namespace {

// Rank 0 (dp_rank_helper, training forever) and a trainer as rank 1 in folder
// `name`; once rank 0 trains, kill -9 of rank `victim`.  The other rank must
// exit with code 1: its log is returned.
std::string KillOneRankMidway(const std::string& name, int victim) {
  const std::string dir = FreshTestDir(name);
  Config c = DpConfig(dir, 2, FreePort());
  const std::string cfg = WriteConfigFile(c, dir + "/c.json");
  Helper r0({"--config", cfg, "--rank", "0", "--steps", "50", "--forever", "--out", dir + "/r0.pt"}, dir + "/r0.log");
  TestProcess r1(BinPath("trainer"), {"--config", cfg, "--rank", "1"}, dir + "/r1.log");
  REQUIRE(WaitUntil([&] { return r0.Log().find("chunk 1") != std::string::npos; }));
  TestProcess& killed = victim == 0 ? static_cast<TestProcess&>(r0) : r1;
  TestProcess& survivor = victim == 0 ? r1 : static_cast<TestProcess&>(r0);
  killed.Kill();
  auto rc = survivor.WaitExit(std::chrono::seconds(60));  // a guard against a hang, not a timing check
  REQUIRE(rc.has_value());
  CHECK(*rc == 1);
  return survivor.Log();
}

}  // namespace

TEST_CASE("kill -9 of a follower in the middle of the steps: rank 0 fails with a clear error") {
  const std::string log = KillOneRankMidway("dp_kill_follower", 1);
  INFO(log);
  CHECK(log.find("error: data-parallel") != std::string::npos);
  CHECK(log.find("failed on rank 0 of 2") != std::string::npos);
}

TEST_CASE("kill -9 of rank 0 in the middle of the steps: the follower fails with a clear error") {
  const std::string log = KillOneRankMidway("dp_kill_leader", 0);
  INFO(log);
  CHECK(log.find("trainer rank 1 failed: data-parallel") != std::string::npos);
}

TEST_CASE("a follower stopped (SIGSTOP) in the middle of the steps: rank 0 fails after train.dist_timeout_s") {
  const std::string dir = FreshTestDir("dp_stop_follower");
  Config c = DpConfig(dir, 2, FreePort());
  c.train.dist_timeout_s = 3.0;
  const std::string cfg = WriteConfigFile(c, dir + "/c.json");
  Helper r0({"--config", cfg, "--rank", "0", "--steps", "50", "--forever", "--out", dir + "/r0.pt"}, dir + "/r0.log");
  TestProcess r1(BinPath("trainer"), {"--config", cfg, "--rank", "1"}, dir + "/r1.log");
  REQUIRE(WaitUntil([&] { return r0.Log().find("chunk 1") != std::string::npos; }));
  r1.Signal(SIGSTOP);
  auto rc = r0.WaitExit(std::chrono::seconds(60));
  r1.Signal(SIGCONT);
  REQUIRE(rc.has_value());
  CHECK(*rc == 1);
  INFO(r0.Log());
  CHECK(r0.Log().find("error: data-parallel") != std::string::npos);
  CHECK(r0.Log().find("train.dist_timeout_s = 3") != std::string::npos);
}

TEST_CASE("a peer stopped in the middle of a store request: rank 0 fails after train.dist_timeout_s and exits") {
  // TCPStore's server is one thread reading each request with blocking reads:
  // the first byte of a request and then silence (what a follower stopped by
  // SIGSTOP between two send() calls leaves) blocks it for good, and with it
  // every store call of rank 0 and the store's teardown.
  const std::string dir = FreshTestDir("dp_wedged_store");
  const int port = FreePort();
  Config c = DpConfig(dir, 2, port);
  c.train.dist_timeout_s = 3.0;
  const std::string cfg = WriteConfigFile(c, dir + "/c.json");
  Helper r0({"--config", cfg, "--rank", "0", "--steps", "50", "--forever", "--out", dir + "/r0.pt"}, dir + "/r0.log");
  TestProcess r1(BinPath("trainer"), {"--config", cfg, "--rank", "1"}, dir + "/r1.log");
  REQUIRE(WaitUntil([&] { return r0.Log().find("chunk 1") != std::string::npos; }));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const unsigned char first_byte = 0;  // c10d's query type SET; its key never follows
  REQUIRE(::send(fd, &first_byte, 1, 0) == 1);
  auto rc0 = r0.WaitExit(std::chrono::seconds(60));  // a guard against a hang, not a timing check
  auto rc1 = r1.WaitExit(std::chrono::seconds(60));
  ::close(fd);
  REQUIRE(rc0.has_value());
  CHECK(*rc0 == 1);
  INFO(r0.Log());
  CHECK(r0.Log().find("error: data-parallel") != std::string::npos);
  CHECK(r0.Log().find("train.dist_timeout_s = 3") != std::string::npos);
  // The follower, polling the same store for rank 0's next command, fails too.
  REQUIRE(rc1.has_value());
  CHECK(*rc1 != 0);
  INFO(r1.Log());
  CHECK(r1.Log().find("trainer rank 1 failed: data-parallel") != std::string::npos);
}
