// What the dashboard shows, read from the run directory's structured files
// only (docs/file-formats.md, docs/trainer.md, docs/ratings.md): never logs,
// never written to.  Every reader tolerates missing and empty files and torn
// or foreign lines (skipped and counted in "bad_lines"), because the run's
// processes write these files while we read them.  A file of a format_version
// this build does not read (common/data/record_format.h) shows as empty, with
// the reason in "error" (null otherwise).
// Thread-safety: free functions over the file system; safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz {

// Per-iteration curves from generations.jsonl: {"iterations":[...], one array
// per metric aligned with it (null where the record lacks the figure),
// "bad_lines"}.  Metrics: policy_loss, value_loss, entropy, games_per_min,
// avg_batch (IterationAverageBatch), batch_fill (avg_batch / the server's
// max_batch), forward_busy (IterationForwardBusy),
// selfplay_s, training_s, reload_s, avg_game_length, black_share,
// white_share, draw_share.
nlohmann::json SeriesJson(const std::string& run_dir);

// The server's average batch over one iteration, from the cumulative counters
// of its generations.jsonl record and the previous one (positions forwarded /
// forwards in between) when both come from the same server process; else its
// average since start (avg_batch_total), else the record's 30 s snapshot
// (avg_batch: the tail of self-play, 5-20 of 80 while the iteration's own
// average is 20-60).  null when the record has no server figures.
nlohmann::json IterationAverageBatch(const nlohmann::json& record, const nlohmann::json* previous);

// The share of wall time the server spent in forwards over one iteration: the
// forward time (forwards_total x avg_forward_ms_total) and uptime_s between this
// record's cumulative counters and the previous one's when the same server
// process wrote both; else over that server's life so far.  Never the record's
// interval figure (forward_busy_fraction): the server's stats line resets that
// interval every stats_interval_s, so the record covers only the seconds since
// the last reset, often with no forward in them (0.0).  null without counters.
nlohmann::json IterationForwardBusy(const nlohmann::json& record, const nlohmann::json* previous);

// Short, distinct names for ladder entries, for legends and tables: each path
// in an entry is cut to its file name ("net:/a/b/x.pt:100" -> "net:x.pt:100",
// "engine:/opt/pbrain-x --fast" -> "engine:pbrain-x --fast"); entries whose
// short names collide keep one more folder each until they differ.
std::map<std::string, std::string> ShortEntryNames(const std::vector<std::string>& entries);

// Elo curves from ratings.jsonl: {"iterations":[...], "elo"/"elo_low"/
// "elo_high" of the player under test, "opponents": {entry: {"name",
// "elo","elo_low","elo_high","score"}} aligned with iterations, plus its short
// "label" (ShortEntryNames), "anchor",
// "bad_lines"}.
nlohmann::json RatingsJson(const std::string& run_dir);

// status/evaluator.json plus "alive" (heartbeat fresh, state running, pid
// alive) and "heartbeat_age_s"; {"present": false} when there is none.
nlohmann::json EvaluatorJson(const std::string& run_dir);

// The live state: common/status/run_status.h's CollectStatus (without
// nvidia-smi) plus "evaluator".
nlohmann::json LiveStatusJson(const std::string& run_dir);

// Iterations with a game folder, ascending numerically, and the checkpoints.
nlohmann::json IterationsJson(const std::string& run_dir);

// The complete game files of games/it{iteration}/, ordered by worker then
// game number.  A missing folder is an empty list.
nlohmann::json GameFilesJson(const std::string& run_dir, int64_t iteration);

// True when `name` is exactly "w{id}_g{k}.npz" (digits only): the only names
// the game viewer opens, so "../x", "/etc/passwd" and temp names never reach
// the file system.
bool IsGameFileName(const std::string& name);

}  // namespace gz
