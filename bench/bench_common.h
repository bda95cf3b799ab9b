// Small helpers shared by the bench programs that start an infer_server
// (bench_server, bench_selfplay).  Header-only; no state.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz::bench {

// "--server-set K=V,K=V": the pairs, each checked to contain '='.
inline std::vector<std::string> ParseServerSets(const std::string& list) {
  std::vector<std::string> out;
  for (std::string rest = list; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string kv = rest.substr(0, comma);
    if (kv.find('=') == std::string::npos) throw std::runtime_error("--server-set expects KEY=VALUE, got " + kv);
    out.push_back(kv);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  return out;
}

// "reason=n reason=n" from the server stats' batch_close_total, counting only
// the closes since `before` (a stats snapshot; null for all of them).
inline std::string BatchCloses(const nlohmann::json& after, const nlohmann::json* before = nullptr) {
  std::string out;
  if (!after.contains("batch_close_total")) return out;
  for (auto& [reason, n] : after["batch_close_total"].items()) {
    int64_t d = n.get<int64_t>();
    if (before && before->contains("batch_close_total")) d -= (*before)["batch_close_total"].value(reason, int64_t{0});
    if (d > 0) out += (out.empty() ? "" : " ") + reason + "=" + std::to_string(d);
  }
  return out;
}

}  // namespace gz::bench
