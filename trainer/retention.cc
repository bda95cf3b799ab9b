#include "trainer/retention.h"

#include <algorithm>
#include <filesystem>

#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/base/fileio.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"
#include "common/data/run_layout.h"

namespace gz {

std::vector<int64_t> CheckpointsToDelete(std::vector<int64_t> iterations, int keep_last, int keep_every,
                                         const std::vector<int64_t>& protect) {
  std::sort(iterations.begin(), iterations.end());
  iterations.erase(std::unique(iterations.begin(), iterations.end()), iterations.end());
  std::vector<int64_t> out;
  const int64_t n = static_cast<int64_t>(iterations.size());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t it = iterations[i];
    const bool recent = i >= n - std::max(keep_last, 0);
    const bool milestone = keep_every > 0 && it % keep_every == 0;
    const bool pinned = std::find(protect.begin(), protect.end(), it) != protect.end();
    if (recent || milestone || pinned) continue;
    out.push_back(it);
  }
  return out;
}

std::vector<int64_t> EvaluatorPinnedCheckpoints(const std::string& status_path) {
  if (!FileExists(status_path)) return {};
  std::vector<int64_t> out;
  try {
    const char* key = fields::evaluator_status::kPinnedCheckpoints;
    const nlohmann::json status = nlohmann::json::parse(ReadFileOrThrow(status_path));
    if (!status.is_object()) return {};
    CheckRecordVersion(status, kEvaluatorStatusRecord, status_path);  // a newer evaluator's file: warned, ignored
    if (!status.contains(key)) return {};
    const nlohmann::json& pins = status.at(key);
    if (!pins.is_array()) throw std::runtime_error("\"pinned_checkpoints\" is not a list");
    for (const auto& p : pins) {
      if (!p.is_number_integer()) throw std::runtime_error("\"pinned_checkpoints\" holds " + p.dump());
      out.push_back(p.get<int64_t>());
    }
  } catch (const std::exception& e) {
    spdlog::warn("retention: ignoring the evaluator's pins in {}: {}", status_path, e.what());
    return {};
  }
  return out;
}

std::vector<int64_t> ApplyCheckpointRetention(const std::string& checkpoint_dir, int keep_last, int keep_every,
                                              const std::vector<int64_t>& protect) {
  std::vector<int64_t> deleted;
  for (int64_t it : CheckpointsToDelete(ListCheckpointIterations(checkpoint_dir), keep_last, keep_every, protect)) {
    std::string path = checkpoint_dir + "/" + RunLayout::checkpoint_name(it);
    std::error_code ec;
    if (std::filesystem::remove(path, ec)) {
      deleted.push_back(it);
    } else if (ec) {
      spdlog::warn("retention: could not delete {}: {}", path, ec.message());
    }
  }
  return deleted;
}

}  // namespace gz
