// DataParallel (data_parallel.h): the object's life (rendezvous at
// construction, the followers told to stop and the store torn down at
// destruction), rank 0's heartbeat, the control channel of numbered commands,
// and the collectives.  The rendezvous itself is data_parallel_rendezvous.cc's.
#include "trainer/data_parallel.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/base/bounded_call.h"
#include "trainer/data_parallel_impl.h"

namespace gz {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::string DataParallel::Impl::OneLine(const std::exception& e) {
  std::string s;
  if (auto* c = dynamic_cast<const c10::Error*>(&e)) s = c->what_without_backtrace();
  else s = e.what();
  const auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

std::pair<int, int> RankSlice(int batch, int rank, int world) {
  const int64_t b = batch;
  return {static_cast<int>(b * rank / world), static_cast<int>(b * (rank + 1) / world)};
}

torch::Device RankDevice(torch::Device device, int rank) {
  if (!device.is_cuda()) return device;
  const int64_t count = static_cast<int64_t>(torch::cuda::device_count());
  if (count <= 1) return device;
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(rank % count));
}

void DataParallel::Impl::Fail(const std::string& what, const std::exception& e) const {
  GOMOKU_THROW(DistError, "data-parallel " << what << " failed on " << Where() << " (a peer died, or stalled past "
                                          << "train.dist_timeout_s = " << config.dist_timeout_s
                                          << " s): " << OneLine(e));
}

void DataParallel::Impl::Heartbeat() {
  std::unique_lock<std::mutex> lock(mu);
  while (!stopping) {
    lock.unlock();
    try {
      Add(kHeartbeatKey, 1);
    } catch (const std::exception& e) {
      spdlog::warn("data-parallel: heartbeat to the store failed: {}", OneLine(e));
      return;
    }
    lock.lock();
    cv.wait_for(lock, kHeartbeatEvery, [&] { return stopping; });
  }
}

DataParallel::DataParallel(const TrainConfig& train, const nlohmann::json& fingerprint, int rank,
                           torch::Device device)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.config = train;
  d.rank = rank;
  d.world = train.world_size;
  d.device = device;
  d.timeout = std::chrono::milliseconds(static_cast<int64_t>(train.dist_timeout_s * 1000.0));
  d.address = train.dist_store;
  if (d.world < 1) GOMOKU_THROW(ConfigError, "config key 'train.world_size' must be >= 1, got " << d.world);
  if (rank < 0 || rank >= d.world)
    GOMOKU_THROW(ConfigError, "--rank " << rank << " is out of range: config key 'train.world_size' is " << d.world
                                        << " (ranks 0.." << d.world - 1 << ")");
#ifdef GOMOKU_WITH_NCCL
  d.backend = device.is_cuda() ? "nccl" : "gloo";
#else
  d.backend = "gloo";
#endif
  d.comm_device = d.backend == "nccl" ? device : torch::Device(torch::kCPU);
#ifndef GOMOKU_WITH_GLOO
  if (d.backend == "gloo")
    GOMOKU_THROW(ConfigError, "config key 'train.world_size' = " << d.world << " needs c10d's Gloo backend, and this "
                                                                 << "build found no Gloo headers (install libgloo-dev "
                                                                 << "and rebuild)");
#endif
  nlohmann::json fp = fingerprint;
  fp["backend"] = d.backend;
  spdlog::info("data-parallel: {} joining {} ranks through {} ({} backend, timeout {} s)", d.Where(), d.world,
               d.address, d.backend, train.dist_timeout_s);
  d.OpenStore();
  d.Agree(fp);
  d.MakeGroup();
  spdlog::info("data-parallel: {} ranks joined; {} process group formed", d.world, d.backend);
  if (rank == 0) d.heartbeat = std::thread([&d] { d.Heartbeat(); });
}

DataParallel::~DataParallel() {
  Impl& d = *impl_;
  if (d.rank == 0) {
    {
      std::lock_guard<std::mutex> lock(d.mu);
      d.stopping = true;
    }
    d.cv.notify_all();
    if (d.heartbeat.joinable()) d.heartbeat.join();
    try {
      const bool failing = std::uncaught_exceptions() > 0;
      Post({{"op", failing ? "abort" : "stop"}});
      // The TCPStore lives in this process: give the followers a moment to read
      // a stop before it goes away (after a failure a follower may be dead,
      // and one that misses the abort fails on the lost store all the same).
      const auto grace = failing ? std::chrono::milliseconds(500) : std::chrono::milliseconds(5000);
      const auto deadline = Clock::now() + std::min<std::chrono::milliseconds>(d.timeout, grace);
      while (d.Add(Impl::kByeKey, 0) < d.world - 1 && Clock::now() < deadline)
        std::this_thread::sleep_for(Impl::kPoll);
    } catch (const std::exception& e) {
      spdlog::warn("data-parallel: could not tell the followers to stop: {}", Impl::OneLine(e));
    }
  }
  // The group's teardown waits for its queued collectives (each bounded by the
  // timeout) and the store's joins its server thread, which a stopped peer
  // can block for good: both are dropped under a deadline and abandoned past
  // it (the process is then expected to exit; bounded_call.h).
  const auto grace = d.timeout + std::chrono::milliseconds(2000);
  if (!RunBounded([group = std::move(d.group), store = std::move(d.store)]() mutable {
        group.reset();
        store.reset();
      }, grace))
    spdlog::warn("data-parallel: {} left its process group and store behind: their teardown did not finish "
                 "within {:.1f} s (a peer stopped in the middle of a store request?)",
                 d.Where(), std::chrono::duration<double>(grace).count());
}

int DataParallel::rank() const { return impl_->rank; }
int DataParallel::world_size() const { return impl_->world; }
const std::string& DataParallel::backend() const { return impl_->backend; }
DistStats& DataParallel::stats() { return impl_->stats; }

void DataParallel::Post(const nlohmann::json& command) {
  Impl& d = *impl_;
  GOMOKU_CHECK(d.rank == 0, "only rank 0 posts commands");
  try {
    d.Set(Impl::kCommandPrefix + std::to_string(d.next_command++), command.dump());
  } catch (const std::exception& e) {
    d.Fail("command to the followers", e);
  }
}

std::optional<nlohmann::json> DataParallel::Next(const std::atomic<bool>* stop) {
  Impl& d = *impl_;
  GOMOKU_CHECK(d.rank != 0, "rank 0 does not wait for commands");
  const std::string key = Impl::kCommandPrefix + std::to_string(d.next_command);
  int64_t beat = -1;
  auto beat_seen = Clock::now();
  auto beat_checked = Clock::time_point{};
  try {
    for (;;) {
      if (d.Check(key)) {
        ++d.next_command;
        nlohmann::json cmd = nlohmann::json::parse(d.Get(key));
        const std::string op = cmd.value("op", "");
        if (op == "stop" || op == "abort") d.Add(Impl::kByeKey, 1);
        return cmd;
      }
      if (stop && stop->load()) return std::nullopt;
      const auto now = Clock::now();
      if (now - beat_checked >= std::chrono::seconds(1)) {
        beat_checked = now;
        const int64_t b = d.Add(Impl::kHeartbeatKey, 0);
        if (b != beat) {
          beat = b;
          beat_seen = now;
        } else if (now - beat_seen > d.timeout) {
          GOMOKU_THROW(DistError, "data-parallel: rank 0 sent no heartbeat for "
                                      << std::chrono::duration<double>(now - beat_seen).count()
                                      << " s (dead or stuck; train.dist_timeout_s = " << d.config.dist_timeout_s
                                      << " s, store " << d.address << ")");
        }
      }
      std::this_thread::sleep_for(Impl::kPoll);
    }
  } catch (const GomokuError&) {
    throw;
  } catch (const std::exception& e) {
    GOMOKU_THROW(DistError, "data-parallel: " << d.Where() << " lost the store " << d.address
                                             << " while waiting for rank 0 (rank 0 died?): " << Impl::OneLine(e));
  }
}

void DataParallel::Broadcast(torch::Tensor t) {
  Impl& d = *impl_;
  const auto start = Clock::now();
  try {
    d.OnComm(t, [&](torch::Tensor& x) {
      std::vector<at::Tensor> v{x};
      c10d::BroadcastOptions o;
      o.rootRank = 0;
      d.group->broadcast(v, o)->wait();
    });
  } catch (const std::exception& e) {
    d.Fail("broadcast", e);
  }
  d.stats.broadcast_s += std::chrono::duration<double>(Clock::now() - start).count();
}

void DataParallel::BroadcastBytes(std::string* bytes) {
  torch::Tensor size = torch::tensor({static_cast<int64_t>(impl_->rank == 0 ? bytes->size() : 0)}, torch::kInt64);
  Broadcast(size);
  const int64_t n = size.item<int64_t>();
  if (impl_->rank != 0) bytes->assign(static_cast<size_t>(n), '\0');
  if (n == 0) return;
  torch::Tensor t = torch::from_blob(bytes->data(), {n}, torch::kUInt8);
  Broadcast(t);
  impl_->stats.state_bytes = n;
}

void DataParallel::AllreduceSum(const std::vector<torch::Tensor>& tensors) {
  Impl& d = *impl_;
  const auto start = Clock::now();
  const int64_t cap = std::max<int64_t>(1, static_cast<int64_t>(d.config.allreduce_bucket_mb * 1024.0 * 1024.0));
  struct Bucket {
    size_t first = 0, last = 0;  // tensors [first, last)
    torch::Tensor flat;
    c10::intrusive_ptr<c10d::Work> work;
  };
  std::vector<Bucket> buckets;
  for (size_t i = 0; i < tensors.size();) {
    Bucket b;
    b.first = i;
    int64_t bytes = 0;
    const auto dtype = tensors[i].scalar_type();
    while (i < tensors.size() && tensors[i].scalar_type() == dtype &&
           (i == b.first || bytes + tensors[i].numel() * tensors[i].element_size() <= cap)) {
      bytes += tensors[i].numel() * tensors[i].element_size();
      ++i;
    }
    b.last = i;
    buckets.push_back(std::move(b));
  }
  try {
    torch::NoGradGuard no_grad;
    for (Bucket& b : buckets) {
      std::vector<torch::Tensor> parts;
      for (size_t i = b.first; i < b.last; ++i) parts.push_back(tensors[i].reshape({-1}));
      b.flat = torch::cat(parts).to(d.comm_device);
      std::vector<at::Tensor> v{b.flat};
      c10d::AllreduceOptions o;
      o.reduceOp = c10d::ReduceOp::SUM;
      b.work = d.group->allreduce(v, o);
      d.stats.allreduce_bytes += b.flat.numel() * b.flat.element_size();
    }
    for (Bucket& b : buckets) {
      b.work->wait();
      torch::Tensor flat = b.flat.device() == tensors[b.first].device() ? b.flat : b.flat.to(tensors[b.first].device());
      int64_t offset = 0;
      for (size_t i = b.first; i < b.last; ++i) {
        const int64_t n = tensors[i].numel();
        tensors[i].copy_(flat.narrow(0, offset, n).view_as(tensors[i]));
        offset += n;
      }
    }
  } catch (const std::exception& e) {
    d.Fail("allreduce", e);
  }
  d.stats.buckets += static_cast<int64_t>(buckets.size());
  d.stats.allreduce_s += std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace gz
