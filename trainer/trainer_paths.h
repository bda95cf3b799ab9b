// Files private to the trainer, kept under <run>/trainer/ (documented in
// docs/trainer.md).  Every file here is written atomically.
//
//   <run>/trainer/state.json             what the trainer last finished (resume)
//   <run>/trainer/optimizer_it{N}.pt     optimizer state after training iteration N
//   <run>/trainer/games_it{N}.json       manifest: game files used / ignored for iteration N
#pragma once

#include <cstdint>
#include <string>

#include "common/data/run_layout.h"

namespace gz {

struct TrainerPaths {
  std::string dir;
  explicit TrainerPaths(const RunLayout& run) : dir(run.trainer_dir()) {}
  std::string state() const { return dir + "/state.json"; }
  std::string optimizer(int64_t it) const { return dir + "/optimizer_it" + std::to_string(it) + ".pt"; }
  std::string manifest(int64_t it) const { return dir + "/games_it" + std::to_string(it) + ".json"; }
};

}  // namespace gz
