#include "dashboard/run_net.h"

#include <filesystem>
#include <optional>
#include <vector>

#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "dashboard/http_types.h"
#include "common/match/shipped_nets.h"

namespace gz {

RunNet NewestRunNet(const std::string& run_dir, const std::string& purpose) {
  RunLayout layout(run_dir);
  std::optional<Metadata> md;
  try {
    md = ReadMetadata(layout.metadata());
  } catch (const GomokuError& e) {
    throw HttpError(503, std::string("metadata.json unreadable: ") + e.what());
  }
  if (!md) throw HttpError(503, "the run has no metadata.json yet: " + purpose);
  RunNet net;
  try {
    net.config = Config::FromJson(md->config, "metadata.json");
  } catch (const GomokuError& e) {
    throw HttpError(503, std::string("the run's config is unusable: ") + e.what());
  }
  const std::vector<int64_t> cps = ListCheckpointIterations(layout.checkpoints());
  if (!cps.empty()) {
    net.checkpoint = cps.back();
    net.weights = layout.checkpoint(net.checkpoint);
    net.name = "checkpoint " + std::to_string(net.checkpoint);
    return net;
  }
  const int size = net.config.board.size;
  net.weights = NewestShippedNet(ShippedNetDirs(ExecutableDir()), size, net.config.board.rule);
  if (net.weights.empty())
    throw HttpError(503, "the run has no checkpoint yet and nets/ has no " + net.config.board.rule + " net for " +
                             std::to_string(size) + "x" + std::to_string(size) + ": " + purpose);
  net.name = "shipped net " + std::filesystem::path(net.weights).filename().string();
  return net;
}

}  // namespace gz
