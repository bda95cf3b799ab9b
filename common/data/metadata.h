// metadata.json: the single source of truth shared by the trainer and the
// workers.  Written only by the trainer, atomically (temp + fsync + rename),
// and only after the server has acknowledged the reload of `weights`.
//
// {
//   "format_version": 1,
//   "iteration": N,                 // the iteration workers should produce games for
//   "weights": "<run>/checkpoints/weights_it{N-1}.pt"  (weights_it0.pt at cold start),
//   "model_generation": G,          // generation the server serves for these weights
//   "updated_at": unix seconds,
//   "config": { ...every config section... }   // workers take all settings from here
// }
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gz {

struct Metadata {
  int64_t iteration = 0;
  std::string weights;
  int64_t model_generation = 0;
  double updated_at = 0;
  nlohmann::json config;  // a full Config::ToJson()
};

void WriteMetadata(const std::string& path, const Metadata& m);
// nullopt if the file does not exist; throws IoError if it is unreadable or invalid.
std::optional<Metadata> ReadMetadata(const std::string& path);

}  // namespace gz
