// The evaluator's loop (docs/ratings.md): follows a run directory, evaluates
// its newest published checkpoint at start and then every eval.every
// iterations against the eval.ladder, records each game in
// <run>/eval/results.jsonl, rewrites <run>/ratings.jsonl after each game and
// keeps <run>/status/evaluator.json fresh (a heartbeat thread).
//
// Restart-safe: finished games are read back and never replayed; the last
// incomplete evaluation is continued first.
// Thread-safety: one thread calls Run; the stop flag may be raised by a
// signal handler.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/config/config.h"
#include "common/data/run_layout.h"
#include "evaluator/results_log.h"
#include "common/match/game.h"

namespace gz {

struct EvaluatorPaths {
  std::string results, ratings, status, engine_stderr;
  explicit EvaluatorPaths(const RunLayout& run)
      : results(run.eval_results()),
        ratings(run.ratings()),
        status(run.evaluator_status()),
        engine_stderr(run.log_file("evaluator_engines")) {}
};

class EvalLoop {
 public:
  // Checks the ladder (ConfigError naming a checkpoint:N that does not exist
  // or an engine that does not answer START) and reads the results so far.
  EvalLoop(const Config& cfg, const RunLayout& run, const std::atomic<bool>& stop);
  ~EvalLoop();

  // Until `stop`; returns 0.  Throws on fatal errors (status "error").
  int Run();

  // The newest published checkpoint's iteration (metadata.json's weights,
  // else the newest complete checkpoint), or nullopt.
  std::optional<int64_t> PublishedCheckpoint() const;

 private:
  void CheckLadder();
  // Plays what is missing of iteration `it`'s evaluation.
  void Evaluate(int64_t it);
  // Evaluate's steps; an Evaluation (eval_loop.cc) carries the iteration's players through them.
  struct Evaluation;
  bool LoadPlayer(Evaluation& ev);     // the checkpoint under test; false (warned) when it cannot play
  void ResolveLadder(Evaluation& ev);  // the opponents of eval.ladder that can play
  void Announce(Evaluation& ev);       // the evaluation line, the games already played, the status
  // One game against `opponent` (colours alternate with g) into results.jsonl
  // and ratings.jsonl; false when stopped.
  bool PlayEvalGame(Evaluation& ev, const std::string& entry, MatchPlayer& opponent, int g, const Opening& opening);
  // The opponent for `entry` in the evaluation of `it`, or nullptr (skip).
  std::unique_ptr<MatchPlayer> Opponent(const std::string& entry, int64_t it, std::string* name);
  PlayerOptions Options(uint64_t seed) const;
  // The checkpoints later evaluations will load as opponents: every
  // checkpoint:N of the ladder, and the last K evaluated iterations for the
  // largest previous:K.  Written to the status file as "pinned_checkpoints";
  // the trainer's retention keeps them (trainer/retention.h).
  nlohmann::json PinnedCheckpoints() const;
  void SetStatus(const std::string& state, const nlohmann::json& updates = {});
  void WriteStatus();
  void Heartbeat();

  Config cfg_;
  RunLayout run_;
  EvaluatorPaths paths_;
  const std::atomic<bool>& stop_;
  ResultsLog log_;
  std::set<int64_t> attempted_;  // resumed once this session (never retried in a loop)

  std::mutex status_mu_;
  nlohmann::json status_;
  std::atomic<bool> heartbeat_stop_{false};
  std::thread heartbeat_;
};

}  // namespace gz
