// Field names of the run's JSON records that one program writes and others
// read (docs/file-formats.md).  The writer and every reader spell a field
// through these constants, so a renamed field is renamed everywhere; the
// records' versions are in record_format.h.  Records written and read in one
// file (metadata.json, reload.json and the acks, the trainer's state.json)
// keep their names in that file's write/read pair.
#pragma once

namespace gz::fields {

// status/worker_{id}.json (worker/worker_loop.cc; common/status/run_status.cc).
namespace worker_status {
inline constexpr const char* kId = "id";
inline constexpr const char* kHost = "host";
inline constexpr const char* kPid = "pid";
inline constexpr const char* kMode = "mode";
inline constexpr const char* kFallbacksTotal = "fallbacks_total";
inline constexpr const char* kReconnectsTotal = "reconnects_total";
inline constexpr const char* kIteration = "iteration";
inline constexpr const char* kGamesThisIteration = "games_this_iteration";
inline constexpr const char* kGamesTotal = "games_total";
inline constexpr const char* kLastGameAt = "last_game_at";
inline constexpr const char* kStartedAt = "started_at";
inline constexpr const char* kUpdatedAt = "updated_at";
}  // namespace worker_status

// status/server.json: the server's stats snapshot (infer_server/server_stats.cc,
// infer_server/main.cc's info; the full list is docs/protocol.md "Stats fields").
// These are the fields the status view reads (common/status/run_status.cc).
namespace server_status {
inline constexpr const char* kTimestamp = "timestamp";
inline constexpr const char* kUpdatedAt = "updated_at";  // read as kTimestamp's older name
inline constexpr const char* kModelGeneration = "model_generation";
inline constexpr const char* kAvgBatch = "avg_batch";
inline constexpr const char* kRequestsPerS = "requests_per_s";
inline constexpr const char* kPositionsPerS = "positions_per_s";
inline constexpr const char* kAvgForwardMs = "avg_forward_ms";
inline constexpr const char* kCacheHitRate = "cache_hit_rate";
inline constexpr const char* kDevice = "device";
// The counters since the server started and its settings, which the dashboard
// reads from the copy of this snapshot in each generations.jsonl line
// (generation::kServer; dashboard/run_data.cc).
inline constexpr const char* kPid = "pid";
inline constexpr const char* kMaxBatch = "max_batch";
inline constexpr const char* kUptimeS = "uptime_s";
inline constexpr const char* kPositionsForwardedTotal = "positions_forwarded_total";
inline constexpr const char* kForwardsTotal = "forwards_total";
inline constexpr const char* kAvgBatchTotal = "avg_batch_total";
inline constexpr const char* kAvgForwardMsTotal = "avg_forward_ms_total";
}  // namespace server_status

// status/evaluator.json (evaluator/eval_loop.cc; run_status.cc, dashboard/run_data.cc,
// trainer/retention.cc).
namespace evaluator_status {
inline constexpr const char* kPid = "pid";
inline constexpr const char* kState = "state";
inline constexpr const char* kStarted = "started";
inline constexpr const char* kHeartbeat = "heartbeat";
inline constexpr const char* kCheckpoint = "checkpoint";
inline constexpr const char* kOpponent = "opponent";
inline constexpr const char* kEntry = "entry";
inline constexpr const char* kGamesDone = "games_done";
inline constexpr const char* kGamesTotal = "games_total";
inline constexpr const char* kEvaluations = "evaluations";
inline constexpr const char* kLastEvaluated = "last_evaluated";
inline constexpr const char* kMessage = "message";
inline constexpr const char* kPinnedCheckpoints = "pinned_checkpoints";
}  // namespace evaluator_status

// ratings.jsonl, one line per evaluated checkpoint (evaluator/ratings_file.cc;
// run_status.cc, dashboard/run_data.cc, experiments/runlib.py).  An opponent
// object carries kEntry, kName, kWins, kDraws, kLosses, kGames and the Elo fields.
namespace rating {
inline constexpr const char* kIteration = "iteration";
inline constexpr const char* kGeneration = "generation";
inline constexpr const char* kPlayer = "player";
inline constexpr const char* kComplete = "complete";
inline constexpr const char* kGames = "games";
inline constexpr const char* kOpponents = "opponents";
inline constexpr const char* kAnchor = "anchor";
inline constexpr const char* kTime = "time";
inline constexpr const char* kElo = "elo";
inline constexpr const char* kEloLow = "elo_low";
inline constexpr const char* kEloHigh = "elo_high";
inline constexpr const char* kEntry = "entry";
inline constexpr const char* kName = "name";
inline constexpr const char* kWins = "wins";
inline constexpr const char* kDraws = "draws";
inline constexpr const char* kLosses = "losses";
}  // namespace rating

// eval/results.jsonl: an "evaluation" line when an evaluation starts, then one
// "game" line per game (evaluator/eval_loop.cc writes, evaluator/results_log.cc reads).
namespace eval_result {
inline constexpr const char* kType = "type";
inline constexpr const char* kTypeEvaluation = "evaluation";  // values of kType
inline constexpr const char* kTypeGame = "game";
inline constexpr const char* kIteration = "iteration";
inline constexpr const char* kGeneration = "generation";
inline constexpr const char* kPlayer = "player";
inline constexpr const char* kTime = "time";
// evaluation lines
inline constexpr const char* kOpponents = "opponents";  // [{kEntry, kName}]
inline constexpr const char* kName = "name";
inline constexpr const char* kGames = "games";
inline constexpr const char* kSimulations = "simulations";
// game lines
inline constexpr const char* kEntry = "entry";
inline constexpr const char* kOpponent = "opponent";
inline constexpr const char* kGame = "game";
inline constexpr const char* kColour = "colour";
inline constexpr const char* kOpening = "opening";
inline constexpr const char* kMoves = "moves";
inline constexpr const char* kResult = "result";
inline constexpr const char* kScore = "score";
inline constexpr const char* kEnd = "end";
inline constexpr const char* kForfeitKind = "forfeit_kind";
inline constexpr const char* kReason = "reason";
inline constexpr const char* kSeconds = "seconds";
// Evaluation and game lines: the network forward that played ("native" |
// "torch", common/net/forward_choice.h); game lines also the opponent's when
// it is a network.  Optional: lines written before they existed lack them.
inline constexpr const char* kForward = "forward";
inline constexpr const char* kOpponentForward = "opponent_forward";
}  // namespace eval_result

// generations.jsonl, one line per finished iteration (trainer/trainer.cc
// writes; the status view, `trainer timetable` (trainer/generation_log.cc),
// the trainer's restart (trainer/trainer_start.cc) and the dashboard's
// charts (dashboard/run_data.cc) read).  These are the fields some program
// reads; the full list of what is written is docs/trainer.md's.
namespace generation {
inline constexpr const char* kIteration = "iteration";
inline constexpr const char* kStart = "start";
inline constexpr const char* kSelfplayS = "selfplay_s";
inline constexpr const char* kTrainingS = "training_s";
inline constexpr const char* kPublishS = "publish_s";
inline constexpr const char* kTotalS = "total_s";
inline constexpr const char* kGamesUsed = "games_used";
inline constexpr const char* kGamesByStallTimeout = "games_by_stall_timeout";
inline constexpr const char* kGamesPerMin = "games_per_min";
inline constexpr const char* kAvgGameLength = "avg_game_length";
inline constexpr const char* kEntropy = "entropy";
inline constexpr const char* kModelGeneration = "model_generation";
// "losses": {kLossPolicy, kLossValue, "l2", "total"}
inline constexpr const char* kLosses = "losses";
inline constexpr const char* kLossPolicy = "policy";
inline constexpr const char* kLossValue = "value";
// "wins": {kWinsBlack, kWinsWhite, kWinsDraw}, games of the iteration
inline constexpr const char* kWins = "wins";
inline constexpr const char* kWinsBlack = "black";
inline constexpr const char* kWinsWhite = "white";
inline constexpr const char* kWinsDraw = "draw";
// "reload": {"acknowledged", "generation", kReloadSeconds, "attempts", "note"}
inline constexpr const char* kReload = "reload";
inline constexpr const char* kReloadSeconds = "seconds";
// "server": the server's stats snapshot taken before the reload (server_status's names)
inline constexpr const char* kServer = "server";
}  // namespace generation

}  // namespace gz::fields
