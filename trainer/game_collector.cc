#include "trainer/game_collector.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/base/fileio.h"
#include "trainer/game_files.h"

namespace gz {

CollectSettings CollectSettings::FromConfig(const Config& c) {
  CollectSettings s;
  s.target_games = c.run.target_games;
  s.min_games = c.run.min_games;
  s.stall_timeout_s = c.run.stall_timeout_s;
  s.progress_log_s = c.run.progress_log_s;
  s.poll_interval_s = std::min(0.25, c.run.progress_log_s / 2);
  s.board_size = c.board.size;
  for (int size : c.board_sizes()) s.board_sizes.insert(size);
  s.rule = c.rule();
  return s;
}

std::set<int> CollectSettings::accepted_sizes() const {
  std::set<int> out = board_sizes;
  out.insert(board_size);
  return out;
}

GameCollector::GameCollector(RunLayout run, CollectSettings settings)
    : run_(std::move(run)), settings_(settings) {}

void GameCollector::RememberClosed(int64_t iteration, std::set<std::string> files, int keep_closed) {
  closed_[iteration] = std::move(files);
  while (static_cast<int>(closed_.size()) > std::max(keep_closed, 0)) closed_.erase(closed_.begin());
}

void GameCollector::ScanLate(CollectionResult* r) {
  const std::set<int> sizes = settings_.accepted_sizes();
  for (auto& [it, known] : closed_) {
    const std::string dir = run_.games_for(it);
    for (const std::string& name : ListGameFiles(dir)) {
      if (!known.insert(name).second) continue;  // each late file is looked at once
      ++r->late;
      LateGame g;
      g.iteration = it;
      g.game.file = name;
      std::string reason;
      GameVerdict v = LoadAndCheckGame(dir + "/" + name, {it, sizes, settings_.rule}, &g.game.record,
                                       &reason);
      switch (v) {
        case GameVerdict::kUsable:
          spdlog::info("late game file {}/{} (model_generation {}) arrived after iteration {} closed; kept for the "
                       "next training step",
                       dir, name, g.game.record.model_generation, it);
          r->late_games.push_back(std::move(g));
          continue;
        case GameVerdict::kCorrupt: ++r->corrupt; break;
        case GameVerdict::kStale: ++r->stale; break;
        case GameVerdict::kIncompatible: ++r->incompatible; break;
      }
      r->late_ignored.emplace_back(it, name);
      spdlog::warn("skipping {} late game file {}/{}: {}", GameVerdictName(v), dir, name, reason);
    }
  }
}

CollectionResult GameCollector::Collect(int64_t iteration, const std::atomic<bool>* stop) {
  CollectionResult r;
  r.iteration = iteration;
  const std::string dir = run_.games_for(iteration);
  const GameExpect expect{iteration, settings_.accepted_sizes(), settings_.rule};
  const int target = settings_.target_games;
  std::set<std::string> seen;
  const double start = MonotonicSeconds();
  double last_new_game = start;
  double stall_clock = start;  // last new game or last stall warning
  double next_progress = start;  // the first progress line comes at once
  auto count = [&] { return static_cast<int>(r.games.size()); };

  for (;;) {
    for (const std::string& name : ListGameFiles(dir)) {
      if (!seen.insert(name).second) continue;
      CollectedGame g;
      g.file = name;
      std::string reason;
      GameVerdict v = LoadAndCheckGame(dir + "/" + name, expect, &g.record, &reason);
      switch (v) {
        case GameVerdict::kUsable:
          r.games.push_back(std::move(g));
          last_new_game = stall_clock = MonotonicSeconds();
          continue;
        case GameVerdict::kCorrupt: ++r.corrupt; break;
        case GameVerdict::kStale: ++r.stale; break;
        case GameVerdict::kIncompatible: ++r.incompatible; break;
      }
      r.ignored.push_back(name);
      spdlog::warn("skipping {} game file {}/{}: {}", GameVerdictName(v), dir, name, reason);
    }
    ScanLate(&r);

    const double now = MonotonicSeconds();
    r.wait_s = now - start;
    if (count() >= target) break;
    if (stop && stop->load()) {
      r.stopped = true;
      break;
    }
    if (now - stall_clock >= settings_.stall_timeout_s) {
      ++r.stall_warnings;
      if (count() >= settings_.min_games) {
        spdlog::warn("stall timeout: no new game for {:.0f}s, {}/{} games for iteration {}; training on the {} "
                     "games at hand",
                     now - last_new_game, count(), target, iteration, count());
        r.by_stall_timeout = true;
        break;
      }
      spdlog::warn("stall timeout: no new game for {:.0f}s and only {}/{} games for iteration {} "
                   "(fewer than run.min_games = {}); still waiting",
                   now - last_new_game, count(), target, iteration, settings_.min_games);
      stall_clock = now;  // warn again after another stall_timeout_s
    }
    if (now >= next_progress) {
      spdlog::info("waiting for workers: {}/{} games (iteration {})", count(), target, iteration);
      next_progress = now + settings_.progress_log_s;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(settings_.poll_interval_s));
  }
  std::sort(r.games.begin(), r.games.end(),
            [](const CollectedGame& a, const CollectedGame& b) { return a.file < b.file; });
  std::sort(r.late_games.begin(), r.late_games.end(), [](const LateGame& a, const LateGame& b) {
    return a.iteration != b.iteration ? a.iteration < b.iteration : a.game.file < b.game.file;
  });
  return r;
}

}  // namespace gz
