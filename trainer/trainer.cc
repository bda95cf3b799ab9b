// The trainer's generation loop (trainer.h): iterations one after the other,
// and in each COLLECT and TRAIN; SAVE and PUBLISH are trainer_publish.cc's.
#include "trainer/trainer.h"

#include <map>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/splitmix.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/record_fields.h"
#include "trainer/game_files.h"
#include "trainer/late_games.h"
#include "trainer/recipe.h"
#include "trainer/trainer_state.h"

namespace gz {

uint64_t TrainingSeed(uint64_t run_seed, int64_t iteration) {
  return SplitMix64Mix(run_seed ^ (kSplitMixGamma * static_cast<uint64_t>(iteration + 1)));
}

int Trainer::Run(const std::atomic<bool>& stop) {
  Prepare();
  if (ReadMetadata(run_.metadata())) Resume();
  else ColdStart();
  if (pending_publish_) {
    if (!Publish(iteration_, *pending_publish_, &stop)) {
      spdlog::info("stopped before iteration {} was published", iteration_);
      return 0;
    }
    pending_publish_.reset();
    ++iteration_;
  }
  for (;;) {
    const int max_it = config_.run.max_iterations;
    if (max_it > 0 && iteration_ > max_it) {
      spdlog::info("reached run.max_iterations = {}; stopping", max_it);
      return 0;
    }
    if (stop.load() || !RunIteration(iteration_, stop)) {
      spdlog::info("stop requested; leaving iteration {} unfinished (a restart resumes it)", iteration_);
      return 0;
    }
    ++iteration_;
  }
}

void Trainer::AppendLateToWindow(const std::vector<const LateGame*>& late) {
  // One append per iteration, in the manifest's order: a rebuilt window holds
  // the samples in the same order, so a retrained step draws the same batches.
  for (size_t i = 0; i < late.size();) {
    std::vector<const GameRecord*> group;
    const int64_t it = late[i]->iteration;
    for (; i < late.size() && late[i]->iteration == it; ++i) group.push_back(&late[i]->game.record);
    buffer_.AppendGames(it, group);
  }
}

// This iteration's games, counted (COLLECT).
struct Trainer::GameTally {
  int games = 0;
  std::vector<const GameRecord*> records;  // into CollectionResult::games (until it is cleared)
  int64_t moves = 0, samples = 0;          // moves include opening stones; samples do not
  int wins_black = 0, wins_white = 0, draws = 0;
  std::map<int, std::pair<int64_t, int64_t>> by_size;  // board size -> (games, samples) of this iteration

  std::pair<int64_t, int64_t> of_size(int size) const {
    auto it = by_size.find(size);
    return it == by_size.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
  }

  // Tallies `games` and lists them in the manifest and in `known` (the names
  // the collector must not take again).
  static GameTally Of(const std::vector<CollectedGame>& games, GameManifest* manifest, std::set<std::string>* known) {
    GameTally t;
    t.games = static_cast<int>(games.size());
    for (const CollectedGame& g : games) {
      manifest->used.push_back(g.file);
      known->insert(g.file);
      t.records.push_back(&g.record);
      t.moves += g.record.num_moves() + static_cast<int64_t>(g.record.opening.size());
      t.samples += g.record.num_moves();
      ++t.by_size[g.record.board_size].first;
      t.by_size[g.record.board_size].second += g.record.num_moves();
      (g.record.winner == kBlack ? t.wins_black : g.record.winner == kWhite ? t.wins_white : t.draws)++;
    }
    return t;
  }
};

// What one iteration's phases hand on to the next (RunIteration).
struct Trainer::Step {
  double start = 0, collected = 0, trained = 0;  // wall clock: began, games collected, training done
  CollectionResult col;
  GameTally tally;
  GameManifest manifest;
  ResignReport resign;
  LateSplit late;                 // points into col.late_games
  std::vector<int64_t> window;    // iterations of the replay window
  int steps = 0;                  // optimizer steps planned
  bool mixed = false;             // more than one board size in the window
  TrainMetrics tm;
};

bool Trainer::RunIteration(int64_t n, const std::atomic<bool>& stop) {
  Step step;
  step.start = NowSeconds();
  if (!CollectGames(n, stop, step)) return false;  // COLLECT
  CloseCollection(n, step);
  if (!TrainWindow(n, stop, step)) return false;   // TRAIN
  nlohmann::json record = IterationRecord(n, step);
  record[fields::generation::kTrainingS] = step.trained - step.collected;  // what a restarted trainer would publish
  SaveTrained(n, record);                                                 // SAVE
  record[fields::generation::kTrainingS] = NowSeconds() - step.collected;  // including the checkpoint save
  return Publish(n, record, &stop);                        // PUBLISH
}

bool Trainer::CollectGames(int64_t n, const std::atomic<bool>& stop, Step& step) {
  spdlog::info("self-play started: iteration {}", n);
  MakeDirs(run_.games_for(n));
  step.col = collector_.Collect(n, &stop);
  const CollectionResult& col = step.col;
  if (col.stopped) return false;
  step.collected = NowSeconds();
  spdlog::info("games collected: {} games for iteration {}{}", col.games.size(), n,
               col.by_stall_timeout ? " (after the stall timeout, target " + std::to_string(config_.run.target_games) + ")" : "");
  if (col.corrupt + col.stale + col.incompatible > 0)
    spdlog::warn("iteration {}: skipped {} corrupt, {} stale and {} incompatible game files", n, col.corrupt,
                 col.stale, col.incompatible);
  return true;
}

// The end of COLLECT: the manifest (the one record of which step took each
// late file), the run's sample ledger, and the games into the replay window.
void Trainer::CloseCollection(int64_t n, Step& step) {
  CollectionResult& col = step.col;
  GameManifest& manifest = step.manifest;
  manifest.iteration = n;
  std::set<std::string> known(col.ignored.begin(), col.ignored.end());
  step.tally = GameTally::Of(col.games, &manifest, &known);
  manifest.ignored = col.ignored;
  step.resign = MakeResignReport(step.tally.records);  // before col.games is cleared
  // Late games of closed iterations join this step's window as games of the
  // iteration they were played for; the window's rule ages out the old ones.
  const int window_its = config_.train.replay_iterations;
  step.late = SplitLateGames(col.late_games, n, window_its);
  const LateSplit& late = step.late;
  for (const LateGame* g : late.used) manifest.late.push_back(ToLateEntry(*g));
  for (const LateGame* g : late.aged_out) manifest.late_aged_out.push_back(ToLateEntry(*g));
  for (const auto& [it, file] : col.late_ignored) manifest.late_ignored.push_back({it, file, 0, 0});
  ledger_.received += step.tally.samples + late.used_samples + late.aged_out_samples;
  ledger_.never_trained += late.aged_out_samples;
  manifest.run_positions = ledger_.received;
  manifest.run_never_trained = ledger_.never_trained;
  // Written before anything trains on these games: the one record of which
  // step took each late file (a restart before it simply picks them up again).
  WriteGameManifest(paths_.manifest(n), manifest);
  collector_.RememberClosed(n, std::move(known), window_its);
  buffer_.AddIteration(n, step.tally.records);
  AppendLateToWindow(late.used);
  if (col.late > 0)
    spdlog::info("iteration {}: {} late game files of closed iterations: {} joined the replay window ({} samples{}), "
                 "{} aged out (older than the window, {} samples), {} unusable",
                 n, col.late, late.used.size(), late.used_samples,
                 late.used.empty() ? std::string() : ", from " + LateOrigins(manifest.late).dump(),
                 late.aged_out.size(), late.aged_out_samples, col.late_ignored.size());
  spdlog::info("self-play samples never trained on: {} of {} received in the run ({:.2f}%; only late games older "
               "than the replay window)",
               ledger_.never_trained, ledger_.received, 100.0 * ledger_.never_trained_share());
  col.games.clear();  // the window holds copies; late.used still points into col.late_games
  step.tally.records.clear();
  if (n > 1) {
    int removed = RemoveAbandonedTempFiles(run_.games_for(n - 1), 60.0);
    if (removed > 0) spdlog::info("removed {} abandoned temp files in {}", removed, run_.games_for(n - 1));
  }
}

bool Trainer::TrainWindow(int64_t n, const std::atomic<bool>& stop, Step& step) {
  step.window = buffer_.iterations();
  const TrainConfig& tc = config_.train;
  // Recipe (docs/trainer.md "Self-play recipe"): the power-law window in
  // samples over the run's samples so far, and the cap on training samples
  // per new sample.  Off: all held samples, train_batches steps.
  buffer_.SetSampleWindow(PowerLawWindowSamples(tc, ledger_.received));
  const int64_t new_samples = step.tally.samples + step.late.used_samples;
  step.steps = CappedTrainSteps(tc, new_samples);
  step.mixed = buffer_.sizes().size() > 1;  // docs/trainer.md "Mixed board sizes"
  LogTrainingPlan(n, step, new_samples);
  step.tm = trainer_->Train(buffer_, n, step.steps, tc.batch_size, TrainingSeed(config_.run.seed, n), &stop);
  const TrainMetrics& tm = step.tm;
  if (tm.steps < step.steps) return false;  // stopped
  step.trained = NowSeconds();
  const double training_s = step.trained - step.collected;
  spdlog::info("training done: iteration {}: policy_loss={:.4f} value_loss={:.4f} l2={:.4f} total_loss={:.4f} "
               "entropy={:.3f} value_accuracy={:.3f} lr={:g} steps={} samples={} ({:.1f}s)",
               n, tm.policy_loss, tm.value_loss, tm.l2_loss, tm.total_loss, tm.entropy, tm.value_accuracy,
               tm.learning_rate, tm.steps, tm.samples, training_s);
  if (dp_) {
    const DistStats& st = dp_->stats();
    spdlog::info("data-parallel: iteration {} on {} ranks ({}): allreduce {:.2f}s ({} buckets, {:.1f} MB), "
                 "broadcasts {:.2f}s (state {} bytes) of {:.1f}s training",
                 n, dp_->world_size(), dp_->backend(), st.allreduce_s, st.buckets, st.allreduce_bytes / 1e6,
                 st.broadcast_s, st.state_bytes, training_s);
  }
  return true;
}

// The lines before training: recipe, resignation, the window, the sizes.
void Trainer::LogTrainingPlan(int64_t n, const Step& step, int64_t new_samples) const {
  const TrainConfig& tc = config_.train;
  if (buffer_.sample_window() > 0 || step.steps != tc.train_batches)
    spdlog::info("recipe: iteration {}: sampling the newest {} of {} samples (power-law window over {} run samples), "
                 "{} steps for {} new samples (train.max_samples_per_new_sample {})",
                 n, buffer_.sampled_samples(), buffer_.num_samples(), ledger_.received, step.steps, new_samples,
                 tc.max_samples_per_new_sample);
  const ResignReport& resign = step.resign;
  if (resign.games > 0)
    spdlog::info("resignation: iteration {}: {} of {} games resigned; {} never-resign games, {} would have resigned, "
                 "{} false positives (rate {:.3f})",
                 n, resign.resigned, resign.games, resign.disabled, resign.disabled_would_resign,
                 resign.false_positives, resign.false_positive_rate());
  spdlog::info("training started: iteration {}: {} samples from iterations {}..{}, {} steps x {} positions", n,
               buffer_.num_samples(), step.window.front(), step.window.back(), step.steps, tc.batch_size);
  if (step.mixed) {
    std::string parts;
    for (int size : buffer_.sizes())
      parts += fmt::format("{}{}x{}: {} games, {} window samples ({} sampled)", parts.empty() ? "" : "; ", size, size,
                           step.tally.of_size(size).first, buffer_.num_samples(size), buffer_.sampled_samples(size));
    spdlog::info("board sizes: iteration {}: {}; each batch holds one size, drawn by its sampled samples", n, parts);
  }
}

// The iteration's generations.jsonl record so far (Publish adds the rest;
// docs/file-formats.md).  "training_s" is the caller's.
nlohmann::json Trainer::IterationRecord(int64_t n, const Step& step) const {
  const CollectionResult& col = step.col;
  const GameTally& t = step.tally;
  const LateSplit& late = step.late;
  const TrainMetrics& tm = step.tm;
  const TrainConfig& tc = config_.train;
  const int k = t.games;
  const double selfplay_s = step.collected - step.start;
  namespace gf = fields::generation;
  nlohmann::json record = {
      {gf::kIteration, n},
      {gf::kStart, step.start},
      {"selfplay_end", step.collected},
      {gf::kSelfplayS, selfplay_s},
      {gf::kGamesUsed, k},
      {"games_target", config_.run.target_games},
      {gf::kGamesByStallTimeout, col.by_stall_timeout},
      {"stall_warnings", col.stall_warnings},
      {"late_games", col.late},
      {"late_games_used", static_cast<int64_t>(late.used.size())},
      {"late_games_aged_out", static_cast<int64_t>(late.aged_out.size())},
      {"late_samples", late.used_samples},
      {"late_from", LateOrigins(step.manifest.late)},
      {"aged_out_samples", late.aged_out_samples},
      {"run_samples", ledger_.received},
      {"run_samples_never_trained", ledger_.never_trained},
      {"never_trained_share", ledger_.never_trained_share()},
      {"stale_games", col.stale},
      {"corrupt_games", col.corrupt},
      {"incompatible_games", col.incompatible},
      {"samples", t.samples},
      {"window_samples", buffer_.num_samples()},
      {"window_iterations", {step.window.front(), step.window.back()}},
      {gf::kAvgGameLength, k > 0 ? static_cast<double>(t.moves) / k : 0.0},
      {gf::kGamesPerMin, selfplay_s > 0 ? k / (selfplay_s / 60.0) : 0.0},
      {gf::kWins, {{gf::kWinsBlack, t.wins_black}, {gf::kWinsWhite, t.wins_white}, {gf::kWinsDraw, t.draws}}},
      {"optimizer", tc.optimizer},
      {"learning_rate", tm.learning_rate},
      {"train_steps", tm.steps},
      {"samples_trained", tm.samples},
      {gf::kLosses,
       {{gf::kLossPolicy, tm.policy_loss}, {gf::kLossValue, tm.value_loss}, {"l2", tm.l2_loss},
        {"total", tm.total_loss}}},
      {gf::kEntropy, tm.entropy},
      {"value_accuracy", tm.value_accuracy},
  };
  if (buffer_.sample_window() > 0) record["window_sampled_samples"] = buffer_.sampled_samples();
  if (tc.max_samples_per_new_sample > 0) record["train_steps_cap"] = step.steps;
  if (step.resign.games > 0) record["resign"] = step.resign.ToJson();
  if (step.mixed) {
    nlohmann::json games_by = nlohmann::json::object(), samples_by = nlohmann::json::object(),
                   window_by = nlohmann::json::object(), steps_by = nlohmann::json::object();
    for (int size : buffer_.sizes()) {
      const std::string key = std::to_string(size);
      games_by[key] = t.of_size(size).first;
      samples_by[key] = t.of_size(size).second;
      window_by[key] = buffer_.num_samples(size);
      auto st = tm.steps_by_size.find(size);
      steps_by[key] = st == tm.steps_by_size.end() ? 0 : st->second;
    }
    record["games_by_size"] = games_by;
    record["samples_by_size"] = samples_by;
    record["window_samples_by_size"] = window_by;
    record["train_steps_by_size"] = steps_by;
  }
  return record;
}

}  // namespace gz
