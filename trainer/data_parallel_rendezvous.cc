// The rendezvous of data-parallel training: the c10d store (a TCPStore served
// by rank 0, or a FileStore), every rank's agreement on rank 0's config
// fingerprint, and the Gloo or NCCL process group over the store.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef GOMOKU_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef GOMOKU_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "trainer/data_parallel_impl.h"

namespace gz {

namespace {

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

void DataParallel::Impl::OpenStore() {
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
void DataParallel::Impl::Agree(const nlohmann::json& fingerprint) {
  try {
    if (rank == 0) AgreeAsLeader(fingerprint);
    else AgreeAsFollower(fingerprint);
  } catch (const GomokuError&) {
    throw;
  } catch (const std::exception& e) {
    GOMOKU_THROW(DistError, "data-parallel rendezvous failed on " << Where() << " (store " << config.dist_store
                                                                  << ", train.dist_timeout_s = "
                                                                  << config.dist_timeout_s << " s): " << OneLine(e));
  }
}

void DataParallel::Impl::AgreeAsLeader(const nlohmann::json& fingerprint) {
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
}

void DataParallel::Impl::AgreeAsFollower(const nlohmann::json& fingerprint) {
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

void DataParallel::Impl::MakeGroup() {
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

}  // namespace gz
