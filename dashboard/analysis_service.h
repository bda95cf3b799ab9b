// The dashboard's analysis board (docs/dashboard.md "Analysis"): positions
// from the page analysed by the JSON analysis engine (common/match/analysis_engine.h)
// over the run's newest checkpoint -- or, before the first one, the newest
// shipped net of the run's rule and size -- with the run's own search
// settings (metadata.json), as the engine plays them.
//
// One AnalysisEngine runs on a thread of its own; the page starts an
// analysis (Start), polls its newest response (State: the live one while the
// search runs, the final one after) and stops it (Stop), e.g. when it leaves.
// Bounds, so that one browser cannot stall the page or the run: at most
// `max_analyses` searches at once (a new one beyond that is a 429), each at
// most `max_visits` simulations and `max_seconds`; an analysis whose state
// nobody asked for in `idle_timeout_s` is stopped.  The engine is rebuilt on
// a newer checkpoint when no analysis runs.  Positions are validated by the
// analysis engine's own query parser (a bad one is a 400).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "common/base/periodic_thread.h"

namespace gz {

struct AnalysisSettings {
  int max_analyses = 2;
  int max_visits = 3000;
  double max_seconds = 20.0;
  double idle_timeout_s = 10.0;
  double report_every_s = 0.25;
};

class AnalysisService {
 public:
  AnalysisService(std::string run_dir, AnalysisSettings settings);
  ~AnalysisService();
  AnalysisService(const AnalysisService&) = delete;
  AnalysisService& operator=(const AnalysisService&) = delete;

  // body: {"moves": [point, ...]} (black first, alternating; a point is
  // row * size + col).  Returns {"id", "net", "board_size", "rule"}.  Throws
  // HttpError 400 (bad position), 429 (too many at once), 503 (nothing to
  // analyse with).
  nlohmann::json Start(const nlohmann::json& body);
  // {"id", "done", "net", "moves", "analysis": the newest response of the
  // analysis engine (null before the first), "error": its refusal or null}.
  // 404 for an unknown id.
  nlohmann::json State(const std::string& id);
  // Stops the search now (its final response follows).  404 for an unknown id.
  void Stop(const std::string& id);
  // {"running", "max"}.
  nlohmann::json Summary();

 private:
  struct Engine;
  struct Entry {
    nlohmann::json moves;
    nlohmann::json latest = nullptr;
    std::string error;
    bool done = false;
    std::chrono::steady_clock::time_point polled, finished;
    std::shared_ptr<Engine> engine;
  };
  void Output(const std::string& line);
  void Reap();  // every 0.5 s on reaper_
  // The engine for a new analysis (built or rebuilt as needed); mu_ held.
  std::shared_ptr<Engine> EngineForNewAnalysis();
  int Running() const;  // mu_ held

  const std::string run_dir_;
  const AnalysisSettings settings_;
  mutable std::mutex mu_;
  int64_t next_id_ = 1;
  std::shared_ptr<Engine> engine_;            // guarded by mu_
  std::map<std::string, Entry> entries_;      // guarded by mu_
  PeriodicThread reaper_;
};

}  // namespace gz
