#include "worker/worker_loop.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <thread>
#include <unordered_map>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"
#include "common/data/run_layout.h"
#include "common/search/selfplay.h"

namespace gz {
namespace {

void SleepUnlessStopped(double seconds, const std::atomic<bool>* stop) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until && !(stop && stop->load()))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// Temp files of this worker's own game files (`<prefix><k>.npz.tmp.<pid>.<n>`)
// that an earlier run of it, killed mid-write, left in `dir`.  Only this worker
// writes those names, so none of them is being written now.
void RemoveOwnTempFiles(const std::string& dir, const std::string& prefix) {
  const int removed = RemoveTempFilesOf(
      dir, [&](const std::string& name) { return ParseIterationNumber(name, prefix, ".npz").has_value(); });
  if (removed > 0)
    spdlog::info("removed {} temp file(s) of this worker's games in {} (left by a kill mid-write)", removed, dir);
}

// Next unused game index of this worker in `dir` (files [{host}_]w{id}_g{k}.npz).
int64_t CountOwnGames(const std::string& dir, int id, const std::string& host) {
  int64_t n = 0;
  std::error_code ec;
  const std::string prefix = RunLayout::game_prefix(id, host);
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (ParseIterationNumber(e.path().filename().string(), prefix, ".npz")) ++n;
  return n;
}

}  // namespace

int SelfPlayWorker::PlayGames(const Config& cfg, int64_t iteration, int64_t generation, int64_t first, int64_t end,
                             const std::function<bool()>& may_start,
                             const std::function<std::string(int64_t)>& path_for,
                             const std::function<void(int)>& after_each) {
  SelfPlayParams params = cfg.selfplay_params();
  const auto size_shares = cfg.board_size_shares();
  std::unordered_map<const SelfPlayGame*, std::pair<int64_t, double>> started;  // game -> (index, start time)
  int64_t next_index = first;
  int written = 0;
  auto next = [&]() -> std::unique_ptr<SelfPlayGame> {
    if (next_index >= end || (next_index > first && !may_start())) return nullptr;
    const uint64_t seed = GameSeed(cfg.run.seed, iteration, id_, next_index);
    const int size = DrawBoardSize(size_shares, cfg.board.size, seed);
    auto g = std::make_unique<SelfPlayGame>(params, size, cfg.rule(), seed, iteration, generation);
    started[g.get()] = {next_index++, MonotonicSeconds()};
    return g;
  };
  auto done = [&](std::unique_ptr<SelfPlayGame> g) {
    const auto [index, t0] = started.at(g.get());
    started.erase(g.get());
    const GameRecord& rec = g->record();
    const std::string path = path_for(index);
    SaveGameRecord(rec, path);
    ++written;
    ++games_total_;
    moves_total_ += rec.num_moves();
    last_game_at_ = NowSeconds();
    spdlog::info("game finished: iteration {} game {} ({}x{}) moves {} winner {} mode {} ({:.1f}s) -> {}", iteration,
                 index, rec.board_size, rec.board_size, rec.num_moves() + rec.opening.size(), int(rec.winner),
                 evals_->mode(), MonotonicSeconds() - t0, path);
    if (after_each) after_each(written);
  };
  PlayGamesStreaming(std::max(1, cfg.worker.parallel_games), next, done,
                     counting_ ? static_cast<Evaluator&>(*counting_) : evals_->active(), stop_);
  if (!started.empty())  // only a stop leaves games unfinished
    spdlog::info("stopping: {} unfinished game(s) of iteration {} discarded, never written", started.size(), iteration);
  return written;
}

void SelfPlayWorker::WriteStatus(const std::string& run_dir, int64_t iteration, int games_this_iteration) {
  RunLayout layout(run_dir);
  namespace f = fields::worker_status;
  nlohmann::json j = {{f::kId, id_},
                      {f::kHost, config_.run.host},
                      {f::kPid, static_cast<int>(::getpid())},
                      {f::kMode, evals_->mode()},
                      {f::kFallbacksTotal, evals_->fallbacks ? evals_->fallbacks() : 0},
                      {f::kReconnectsTotal, evals_->reconnects ? evals_->reconnects() : 0},
                      {f::kIteration, iteration},
                      {f::kGamesThisIteration, games_this_iteration},
                      {f::kGamesTotal, games_total_},
                      {f::kLastGameAt, last_game_at_},
                      {f::kStartedAt, started_at_},
                      {f::kUpdatedAt, NowSeconds()}};
  StampRecordVersion(j, kWorkerStatusRecord);
  try {
    MakeDirs(layout.status_dir(config_.run.host));
    WriteFileAtomic(layout.worker_status(id_, config_.run.host), j.dump() + "\n");
  } catch (const GomokuError& e) {
    spdlog::warn("could not write worker status: {}", e.what());
  }
}

int SelfPlayWorker::FollowRun(const std::string& run_dir) {
  RunLayout layout(run_dir);
  started_at_ = NowSeconds();
  {
    // A kill mid-write of the status file leaves its temp file; only this
    // worker writes that name, so none of them is being written now.
    const std::filesystem::path status(layout.worker_status(id_, config_.run.host));
    const std::string name = status.filename().string();
    const int removed = RemoveTempFilesOf(status.parent_path().string(), [&](const std::string& n) { return n == name; });
    if (removed > 0) spdlog::info("removed {} temp file(s) of this worker's status (left by a kill mid-write)", removed);
  }
  double last_wait_log = 0;
  int64_t announced_iteration = -1;
  while (!(stop_ && stop_->load())) {
    std::optional<Metadata> md;
    try {
      md = ReadMetadata(layout.metadata());
    } catch (const IoError& e) {
      spdlog::warn("cannot read metadata yet: {}", e.what());
    }
    if (!md) {
      if (MonotonicSeconds() - last_wait_log > 10) {
        spdlog::info("waiting for {} (the trainer creates it)", layout.metadata());
        last_wait_log = MonotonicSeconds();
      }
      WriteStatus(run_dir, 0, 0);
      SleepUnlessStopped(config_.worker.poll_interval_s, stop_);
      continue;
    }
    Config cfg = Config::FromJson(md->config, layout.metadata() + " config");
    cfg.run.dir = run_dir;
    cfg.worker = config_.worker;          // process-local settings stay the worker's own
    cfg.run.host = config_.run.host;
    cfg.inference.device = config_.inference.device;
    const int64_t it = md->iteration;
    const int quota = cfg.run.worker_games_per_worker;
    std::string dir = layout.games_for(it);
    MakeDirs(dir);
    int64_t have = CountOwnGames(dir, id_, config_.run.host);
    if (it != announced_iteration) {
      RemoveOwnTempFiles(dir, RunLayout::game_prefix(id_, config_.run.host));
      spdlog::info("iteration {}: weights {} (generation {}), {} games per worker, {} already here", it,
                   md->weights, md->model_generation, quota, have);
      announced_iteration = it;
    }
    evals_->SetWeights(md->weights);
    // Pitfall 5 on every host: no move of iteration `it` from older weights.
    if (evals_->set_min_generation) evals_->set_min_generation(md->model_generation);
    WriteStatus(run_dir, it, static_cast<int>(have));
    if (have >= quota) {
      SleepUnlessStopped(cfg.worker.poll_interval_s, stop_);
      continue;
    }
    // Games have..quota-1, up to parallel_games at a time; a freed slot starts
    // the next game only while metadata.json still names this iteration.
    auto still_this_iteration = [&]() {
      try {
        std::optional<Metadata> now = ReadMetadata(layout.metadata());
        return !now || now->iteration == it;
      } catch (const IoError&) {
        return true;  // unreadable for a moment: keep going, the next check decides
      }
    };
    PlayGames(cfg, it, md->model_generation, have, quota, still_this_iteration,
              [&](int64_t k) { return layout.game_file(it, id_, k, config_.run.host); },
              [&](int written) { WriteStatus(run_dir, it, static_cast<int>(have + written)); });
    WriteStatus(run_dir, it, static_cast<int>(CountOwnGames(dir, id_, config_.run.host)));
  }
  spdlog::info("worker {} stopping", id_);
  return 0;
}

int SelfPlayWorker::PlayStandalone(int games, const std::string& out_dir, const std::string& weights,
                                   int64_t iteration, const std::string& summary_path) {
  MakeDirs(out_dir);
  RemoveOwnTempFiles(out_dir, RunLayout::game_prefix(id_));
  evals_->SetWeights(weights);
  CountingEvaluator counter(&evals_->active());
  counting_ = &counter;
  const double t0 = MonotonicSeconds();
  const int64_t done = PlayGames(
      config_, iteration, 0, 0, games, [] { return true; },
      [&](int64_t k) { return out_dir + "/" + RunLayout::game_file_name(id_, k); }, nullptr);
  counting_ = nullptr;
  if (!summary_path.empty()) {
    nlohmann::json j = {{"games", done},
                        {"moves", moves_total_},
                        {"evaluations", counter.positions()},
                        {"calls", counter.calls()},
                        {"seconds", MonotonicSeconds() - t0},
                        {"mode", evals_->mode()}};
    WriteFileAtomic(summary_path, j.dump() + "\n");
  }
  return done == games ? 0 : 1;
}

}  // namespace gz
