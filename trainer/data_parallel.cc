// DataParallel: c10d store, process group, control channel (data_parallel.h).
#include "trainer/data_parallel.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef GOMOKU_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef GOMOKU_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "common/base/bounded_call.h"

namespace gz {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kConfigKey = "gz/config";
constexpr const char* kHelloPrefix = "gz/hello/";
constexpr const char* kCommandPrefix = "gz/cmd/";
constexpr const char* kHeartbeatKey = "gz/heartbeat";
constexpr const char* kByeKey = "gz/bye";
constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr auto kHeartbeatEvery = std::chrono::milliseconds(500);

// The first line of an exception's message, without LibTorch's backtrace.
std::string OneLine(const std::exception& e) {
  std::string s;
  if (auto* c = dynamic_cast<const c10::Error*>(&e)) s = c->what_without_backtrace();
  else s = e.what();
  const auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

std::vector<uint8_t> Bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }
std::string Text(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

// Keys of `a` and `b` (nested objects flattened to dotted keys) whose values differ.
void Differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& prefix,
                 std::vector<std::string>* out) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it)
      Differences(it.value(), b.contains(it.key()) ? b.at(it.key()) : nlohmann::json(),
                  prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) out->push_back((prefix.empty() ? "" : prefix + ".") + it.key());
    return;
  }
  if (a != b) out->push_back(prefix + " (" + a.dump() + " here, " + b.dump() + " on rank 0)");
}

}  // namespace

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

struct DataParallel::Impl {
  TrainConfig config;
  int rank = 0;
  int world = 1;
  torch::Device device{torch::kCPU};
  torch::Device comm_device{torch::kCPU};  // where the collectives' tensors live
  std::string backend;
  std::string address;
  std::chrono::milliseconds timeout{60000};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  int64_t next_command = 0;   // rank 0: the next command's number; followers: the one awaited
  DistStats stats;
  // Rank 0's heartbeat thread.
  std::thread heartbeat;
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;

  std::string Where() const { return "rank " + std::to_string(rank) + " of " + std::to_string(world); }

  // Every store call goes through here, with train.dist_timeout_s (plus
  // `slack`) as its deadline: a peer stopped in the middle of a request
  // blocks a TCPStore's server for good, and a call that never returns would
  // hang this rank instead of failing it (common/base/bounded_call.h).
  template <typename R>
  R Call(const char* what, std::function<R(c10d::Store&)> op,
         std::chrono::milliseconds slack = std::chrono::milliseconds(0)) const {
    auto result = std::make_shared<R>();
    c10::intrusive_ptr<c10d::Store> s = store;  // the call owns what it uses
    if (RunBounded([s, op, result] { *result = op(*s); }, timeout + slack)) return *result;
    std::ostringstream m;
    m << "the store " << address << " did not answer " << what << " within "
      << std::chrono::duration<double>(timeout + slack).count() << " s (train.dist_timeout_s = "
      << config.dist_timeout_s << "; a peer stopped in the middle of a store request blocks the store for good)";
    throw std::runtime_error(m.str());
  }
  void Set(const std::string& key, const std::string& value) const {
    Call<bool>("a set", [key, v = Bytes(value)](c10d::Store& st) {
      st.set(key, v);
      return true;
    });
  }
  std::string Get(const std::string& key) const {
    return Text(Call<std::vector<uint8_t>>("a get", [key](c10d::Store& st) { return st.get(key); }));
  }
  bool Check(const std::string& key) const {
    return Call<bool>("a check", [key](c10d::Store& st) { return st.check({key}); });
  }
  int64_t Add(const std::string& key, int64_t n) const {
    return Call<int64_t>("an add", [key, n](c10d::Store& st) { return st.add(key, n); });
  }
  // Waits for `key` up to train.dist_timeout_s (the store's own timeout error
  // comes first; the deadline's second of slack is for a wedged store).
  void Wait(const std::string& key) const {
    const auto t = timeout;
    Call<bool>("a wait", [key, t](c10d::Store& st) {
      st.wait({key}, t);
      return true;
    }, std::chrono::milliseconds(1000));
  }

  [[noreturn]] void Fail(const std::string& what, const std::exception& e) const {
    GOMOKU_THROW(DistError, "data-parallel " << what << " failed on " << Where() << " (a peer died, or stalled past "
                                            << "train.dist_timeout_s = " << config.dist_timeout_s
                                            << " s): " << OneLine(e));
  }

  void OpenStore() {
    const std::string& s = config.dist_store;
    try {
      if (s.rfind("file://", 0) == 0) {
        const std::string path = s.substr(7);
        // A file left by an earlier attempt holds stale keys: rank 0 starts
        // from an empty one (docs/trainer.md: start rank 0 first with file://).
        if (rank == 0) {
          std::error_code ec;
          std::filesystem::remove(path, ec);
          std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
        }
        store = c10::make_intrusive<c10d::FileStore>(path, world);
        store->setTimeout(timeout);
      } else {
        const std::string rest = s.substr(6);  // tcp://
        const auto colon = rest.rfind(':');
        c10d::TCPStoreOptions o;
        o.port = static_cast<uint16_t>(std::stoi(rest.substr(colon + 1)));
        o.isServer = rank == 0;
        o.numWorkers = world;
        o.waitWorkers = false;  // the hello keys below say which ranks are missing
        o.timeout = timeout;
        store = c10::make_intrusive<c10d::TCPStore>(rest.substr(0, colon), o);
      }
    } catch (const std::exception& e) {
      GOMOKU_THROW(DistError, "data-parallel rendezvous: " << Where() << " could not "
                                                          << (rank == 0 ? "open" : "reach") << " the store " << s
                                                          << " within train.dist_timeout_s = " << config.dist_timeout_s
                                                          << " s: " << OneLine(e));
    }
  }

  // Rank 0 publishes the fingerprint; every follower checks it and says hello
  // (with its verdict); rank 0 waits for all hellos.
  void Agree(const nlohmann::json& fingerprint) {
    try {
      if (rank == 0) {
        Set(kConfigKey, fingerprint.dump());
        const auto deadline = Clock::now() + timeout;
        std::vector<int> missing;
        for (;;) {
          missing.clear();
          for (int r = 1; r < world; ++r)
            if (!Check(kHelloPrefix + std::to_string(r))) missing.push_back(r);
          if (missing.empty() || Clock::now() >= deadline) break;
          std::this_thread::sleep_for(kPoll);
        }
        if (!missing.empty()) {
          std::string list;
          for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
          GOMOKU_THROW(DistError, "data-parallel rendezvous timed out after train.dist_timeout_s = "
                                      << config.dist_timeout_s << " s: rank(s) " << list << " of train.world_size = "
                                      << world << " never joined the store " << config.dist_store
                                      << " (started with --rank R and the same config?)");
        }
        for (int r = 1; r < world; ++r) {
          const std::string verdict = Get(kHelloPrefix + std::to_string(r));
          if (verdict != "ok")
            GOMOKU_THROW(ConfigError, "data-parallel rendezvous: rank " << r << "'s config differs from rank 0's: "
                                                                        << verdict);
        }
      } else {
        Wait(kConfigKey);
        const nlohmann::json leader = nlohmann::json::parse(Get(kConfigKey));
        std::vector<std::string> diff;
        Differences(fingerprint, leader, "", &diff);
        std::string verdict = "ok";
        if (!diff.empty()) {
          verdict.clear();
          for (const auto& d : diff) verdict += (verdict.empty() ? "" : ", ") + d;
        }
        Set(kHelloPrefix + std::to_string(rank), verdict);
        if (!diff.empty())
          GOMOKU_THROW(ConfigError, "data-parallel rendezvous: this rank's config differs from rank 0's: " << verdict);
      }
    } catch (const GomokuError&) {
      throw;
    } catch (const std::exception& e) {
      GOMOKU_THROW(DistError, "data-parallel rendezvous failed on " << Where() << " (store " << config.dist_store
                                                                    << ", train.dist_timeout_s = "
                                                                    << config.dist_timeout_s << " s): " << OneLine(e));
    }
  }

  void MakeGroup() {
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>("gz/pg", store);
    try {
      if (backend == "nccl") {
#ifdef GOMOKU_WITH_NCCL
        // NCCL applies the timeout only with blocking waits: a dead peer must
        // be an error, not a hang.
        ::setenv("NCCL_BLOCKING_WAIT", "1", /*overwrite=*/0);
        auto o = c10d::ProcessGroupNCCL::Options::create();
        o->timeout = timeout;
        group = c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, rank, world, o);
#endif
      } else {
#ifdef GOMOKU_WITH_GLOO
        auto o = c10d::ProcessGroupGloo::Options::create(timeout);
        std::string iface = config.dist_interface;
        if (iface.empty())
          if (const char* env = std::getenv("GLOO_SOCKET_IFNAME")) iface = env;
        if (!iface.empty()) {
          o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
        } else {
          const bool tcp = config.dist_store.rfind("tcp://", 0) == 0;
          const std::string host = tcp ? config.dist_store.substr(6, config.dist_store.rfind(':') - 6) : "";
          if (tcp && IsLoopback(host)) o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
          else o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        }
        group = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, rank, world, o);
#endif
      }
    } catch (const std::exception& e) {
      GOMOKU_THROW(DistError, "data-parallel rendezvous: forming the " << backend << " process group failed on "
                                                                       << Where() << ": " << OneLine(e));
    }
  }

  void Heartbeat() {
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

  // Runs `op` (a collective on tensors on the comm device) on `t`, staging
  // through the comm device when `t` lives elsewhere.
  template <typename Op>
  void OnComm(torch::Tensor t, Op op) {
    if (t.device() == comm_device) {
      op(t);
      return;
    }
    torch::Tensor staged = t.to(comm_device);
    op(staged);
    t.copy_(staged);
  }
};

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
      while (d.Add(kByeKey, 0) < d.world - 1 && Clock::now() < deadline) std::this_thread::sleep_for(kPoll);
    } catch (const std::exception& e) {
      spdlog::warn("data-parallel: could not tell the followers to stop: {}", OneLine(e));
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
    d.Set(kCommandPrefix + std::to_string(d.next_command++), command.dump());
  } catch (const std::exception& e) {
    d.Fail("command to the followers", e);
  }
}

std::optional<nlohmann::json> DataParallel::Next(const std::atomic<bool>* stop) {
  Impl& d = *impl_;
  GOMOKU_CHECK(d.rank != 0, "rank 0 does not wait for commands");
  const std::string key = kCommandPrefix + std::to_string(d.next_command);
  int64_t beat = -1;
  auto beat_seen = Clock::now();
  auto beat_checked = Clock::time_point{};
  try {
    for (;;) {
      if (d.Check(key)) {
        ++d.next_command;
        nlohmann::json cmd = nlohmann::json::parse(d.Get(key));
        const std::string op = cmd.value("op", "");
        if (op == "stop" || op == "abort") d.Add(kByeKey, 1);
        return cmd;
      }
      if (stop && stop->load()) return std::nullopt;
      const auto now = Clock::now();
      if (now - beat_checked >= std::chrono::seconds(1)) {
        beat_checked = now;
        const int64_t b = d.Add(kHeartbeatKey, 0);
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
      std::this_thread::sleep_for(kPoll);
    }
  } catch (const GomokuError&) {
    throw;
  } catch (const std::exception& e) {
    GOMOKU_THROW(DistError, "data-parallel: " << d.Where() << " lost the store " << d.address
                                             << " while waiting for rank 0 (rank 0 died?): " << OneLine(e));
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
