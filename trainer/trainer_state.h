// The trainer's own resume files under <run>/trainer/ (trainer_paths.h).
//
// Both carry "format_version" (common/data/record_format.h).
// state.json: {"format_version":1, "trained_iteration":N, "optimizer":"<file>",
//              "record":{...generations.jsonl record of N...}}
//   written (atomically) right after checkpoints/weights_it{N}.pt and the
//   optimizer file, before the server is asked to reload; it lets a restart
//   finish publishing N and still write N's generations.jsonl line.
// games_it{N}.json: {"iteration":N, "used":[names], "ignored":[names],
//                    "late":[{"iteration":L,"file":name,"model_generation":G,"positions":P}],
//                    "late_aged_out":[...same...], "late_ignored":[{"iteration":L,"file":name}],
//                    "run_positions":X, "run_never_trained":Y}
//   written when iteration N's collection closes, before N trains.  `used` and
//   `ignored` name files in games/it{N}/; the late lists name files of closed
//   iterations L < N (in games/it{L}/) that step N picked up: `late` joined
//   N's replay window (as games of L), `late_aged_out` were already older than
//   the window.  A file is in exactly one list of one manifest, which is what
//   keeps a late game from being used twice or lost across a restart: the
//   replay window and the set of known files are rebuilt from these.
//   run_positions / run_never_trained: self-play positions received and never
//   in any replay window, over the run up to and including step N.
// Thread-safety: free functions; one trainer per run directory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gz {

struct TrainerState {
  int64_t trained_iteration = 0;
  std::string optimizer_file;  // file name inside <run>/trainer/, "" = none
  nlohmann::json record = nlohmann::json::object();
};
void WriteTrainerState(const std::string& path, const TrainerState& s);
// nullopt when missing or unreadable (a warning is logged for the latter:
// the state is an optimisation, the checkpoints are the truth).  IoError for a
// format_version this build does not read (common/data/record_format.h).
std::optional<TrainerState> ReadTrainerState(const std::string& path);

// A game file of iteration `iteration` that arrived after it closed.
struct LateEntry {
  int64_t iteration = 0;         // the iteration it was played for (its directory and tag)
  std::string file;              // name inside games/it{iteration}/
  int64_t model_generation = 0;  // the generation that played it (the file's tag)
  int64_t positions = 0;         // its searched moves (0 for late_ignored)
  bool operator==(const LateEntry&) const = default;
};

struct GameManifest {
  int64_t iteration = 0;
  std::vector<std::string> used;
  std::vector<std::string> ignored;
  std::vector<LateEntry> late;           // joined this step's replay window
  std::vector<LateEntry> late_aged_out;  // usable, but older than the window
  std::vector<LateEntry> late_ignored;   // corrupt / stale / incompatible
  int64_t run_positions = 0;             // cumulative through this step
  int64_t run_never_trained = 0;         // cumulative through this step
};
void WriteGameManifest(const std::string& path, const GameManifest& m);
// nullopt when missing or unreadable (logged); IoError for a format_version
// this build does not read (a manifest without one is version 1).
std::optional<GameManifest> ReadGameManifest(const std::string& path);

}  // namespace gz
