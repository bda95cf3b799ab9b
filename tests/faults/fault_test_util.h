// Shared by the fault tests (tests/faults): temp files left in a tree, the
// "disk full" switch file of libgz_faultfs.so, and a worker's run config.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/base/fileio.h"
#include "common/config/config.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "tests/support/fault_fs.h"

namespace gz::testing {

// Every WriteFileAtomic temp file (`X.tmp.<pid>.<n>`) under `dir`, recursively.
inline std::vector<std::string> TempFilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (TempFileTarget(it->path().filename().string())) out.push_back(it->path().string());
  return out;
}

// The inode of `path`, 0 when it does not exist: a rename over it shows as a new one.
inline ino_t Inode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// The GZ_FAULT_WHILE_FILE of a test: the disk is full while it exists.
class DiskSwitch {
 public:
  explicit DiskSwitch(std::string path) : path_(std::move(path)) { Free(); }
  ~DiskSwitch() { Free(); }
  const std::string& path() const { return path_; }
  void Fill() { std::ofstream(path_) << "full\n"; }
  void Free() { std::filesystem::remove(path_); }

 private:
  std::string path_;
};

// A worker run of 7x7 self-play on uniform weights: metadata.json publishes
// iteration `iteration` with a quota of `quota` games per worker.
inline void PublishUniformRun(const std::string& dir, int64_t iteration, int quota, int simulations = 16) {
  Config cfg;
  cfg.board.size = 7;
  cfg.mcts.simulations = simulations;
  cfg.selfplay.random_opening_moves = 1;
  cfg.run.worker_games_per_worker = quota;
  cfg.run.dir = dir;
  Metadata md;
  md.iteration = iteration;
  md.weights = "uniform";
  md.model_generation = 0;
  md.config = cfg.ToJson();
  WriteMetadata(RunLayout(dir).metadata(), md);
}

inline bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace gz::testing
