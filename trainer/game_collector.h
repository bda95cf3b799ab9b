// Waits for the games of one iteration (games/it{N}/) and decides when to
// stop waiting.  See docs/trainer.md "Collecting games".
//
//  - proceeds when K >= run.target_games usable games are present (every
//    usable game present at that moment is used, so overproduction is not
//    wasted and never blocks);
//  - logs "waiting for workers: K/T games" every run.progress_log_s;
//  - stall timeout: when no new usable game arrived for run.stall_timeout_s,
//    proceeds with a WARNING if K >= run.min_games, otherwise WARNs (again
//    every stall_timeout_s) and keeps waiting;
//  - corrupt / stale / incompatible files are skipped, counted and logged
//    once each, never retried;
//  - files that appear in an already closed iteration's directory are "late":
//    each is loaded, vetted against its own iteration, logged and returned
//    once (late_games / late_ignored), so that the trainer can add it to the
//    next training step's replay window (docs/trainer.md "Late games"); the
//    window's rule, not the collector, decides whether it is still young
//    enough to be used.
//
// Thread-safety: a GameCollector belongs to one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/config/config.h"
#include "common/data/game_record.h"
#include "common/data/run_layout.h"

namespace gz {

struct CollectSettings {
  int target_games = 100;
  int min_games = 50;
  double stall_timeout_s = 600;
  double progress_log_s = 30;
  double poll_interval_s = 0.25;
  int board_size = 15;
  // The run's other board sizes (selfplay.board_sizes; FromConfig fills it
  // with Config::board_sizes()): games of board_size or of any of these are
  // usable, others are incompatible.
  std::set<int> board_sizes;
  Rule rule = Rule::kFreestyle;
  static CollectSettings FromConfig(const Config& c);
  // board_size and board_sizes together.
  std::set<int> accepted_sizes() const;
};

struct CollectedGame {
  std::string file;  // name inside games/it{N}/
  GameRecord record;
};

struct LateGame {
  int64_t iteration = 0;  // the closed iteration it was played for (its directory)
  CollectedGame game;
};

struct CollectionResult {
  int64_t iteration = 0;
  std::vector<CollectedGame> games;  // usable games, sorted by file name
  std::vector<std::string> ignored;  // names skipped (corrupt, stale, incompatible)
  bool by_stall_timeout = false;     // proceeded on the stall timeout with K < target
  bool stopped = false;              // the stop flag was raised; the result is incomplete
  int corrupt = 0;
  int stale = 0;
  int incompatible = 0;
  int late = 0;                      // late files seen in closed iterations while waiting (all verdicts)
  std::vector<LateGame> late_games;  // the usable ones, sorted by (iteration, file)
  std::vector<std::pair<int64_t, std::string>> late_ignored;  // the others (also in corrupt/stale/incompatible)
  int stall_warnings = 0;
  double wait_s = 0;
};

class GameCollector {
 public:
  GameCollector(RunLayout run, CollectSettings settings);

  // Blocks until the iteration's games are in (see the file comment) or
  // *stop becomes true.  Never throws for bad game files.
  CollectionResult Collect(int64_t iteration, const std::atomic<bool>* stop);

  // Declares `iteration` closed with these files (used + ignored, and late
  // files of it already picked up): any other file appearing in its directory
  // later is late.  Only the newest `keep_closed` closed iterations are
  // watched.
  void RememberClosed(int64_t iteration, std::set<std::string> files, int keep_closed);

 private:
  void ScanLate(CollectionResult* r);

  RunLayout run_;
  CollectSettings settings_;
  std::map<int64_t, std::set<std::string>> closed_;  // iteration -> known names
};

}  // namespace gz
