// The net a browser game or an analysis uses: the run's newest checkpoint,
// or before the first one the newest shipped net of the run's rule and size,
// with the run's config (metadata.json).  Shared by PlayService and
// AnalysisService, which build their players over it.
//
// Thread-safety: reads files only; safe from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "common/config/config.h"

namespace gz {

struct RunNet {
  Config config;            // the run's, from metadata.json
  int64_t checkpoint = -1;  // iteration of the checkpoint; -1 for a shipped net
  std::string weights;      // the file to load
  std::string name;         // "checkpoint N" | "shipped net FILE", for the page and the log
};

// Throws HttpError 503 naming what is missing or unusable (metadata.json
// absent or unreadable, a config that does not parse, no checkpoint and no
// shipped net); `purpose` ends those messages, e.g. "nothing to play against".
RunNet NewestRunNet(const std::string& run_dir, const std::string& purpose);

}  // namespace gz
