// DataParallel's insides, shared by its two files and by nothing else:
// data_parallel.cc (the object's life, the control channel, the collectives)
// and data_parallel_rendezvous.cc (the store, the agreement on the config and
// the process group).  The rest of the trainer sees data_parallel.h only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "common/base/bounded_call.h"
#include "trainer/data_parallel.h"

namespace gz {

struct DataParallel::Impl {
  using Clock = std::chrono::steady_clock;
  // The store's keys, and how often its waits poll.
  static constexpr const char* kConfigKey = "gz/config";    // rank 0's fingerprint of the config
  static constexpr const char* kHelloPrefix = "gz/hello/";  // + rank: a follower's verdict on it
  static constexpr const char* kCommandPrefix = "gz/cmd/";  // + number: rank 0's commands
  static constexpr const char* kHeartbeatKey = "gz/heartbeat";
  static constexpr const char* kByeKey = "gz/bye";          // followers that read a stop or an abort
  static constexpr auto kPoll = std::chrono::milliseconds(20);
  static constexpr auto kHeartbeatEvery = std::chrono::milliseconds(500);

  // The first line of an exception's message, without LibTorch's backtrace.
  static std::string OneLine(const std::exception& e);

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
    Call<bool>("a set", [key, v = std::vector<uint8_t>(value.begin(), value.end())](c10d::Store& st) {
      st.set(key, v);
      return true;
    });
  }
  std::string Get(const std::string& key) const {
    const std::vector<uint8_t> v = Call<std::vector<uint8_t>>("a get", [key](c10d::Store& st) { return st.get(key); });
    return std::string(v.begin(), v.end());
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

  // A DistError naming `what`, this rank and the timeout.
  [[noreturn]] void Fail(const std::string& what, const std::exception& e) const;

  // The rendezvous (data_parallel_rendezvous.cc), in this order.  Each throws
  // DistError (ConfigError for a config that differs between ranks).
  void OpenStore();                              // opens (rank 0) or reaches the store
  void Agree(const nlohmann::json& fingerprint);  // every rank on rank 0's config
  void MakeGroup();                              // the Gloo or NCCL process group

  // Rank 0's heartbeat thread: counts kHeartbeatKey up until `stopping`.
  void Heartbeat();

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
  void AgreeAsLeader(const nlohmann::json& fingerprint);    // publishes it, waits for every hello
  void AgreeAsFollower(const nlohmann::json& fingerprint);  // checks it, says hello with the verdict
};

}  // namespace gz
