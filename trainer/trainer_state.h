// The trainer's own resume files under <run>/trainer/ (trainer_paths.h).
//
// state.json: {"format_version":1, "trained_iteration":N, "optimizer":"<file>",
//              "record":{...generations.jsonl record of N...}}
//   written (atomically) right after checkpoints/weights_it{N}.pt and the
//   optimizer file, before the server is asked to reload; it lets a restart
//   finish publishing N and still write N's generations.jsonl line.
// games_it{N}.json: {"iteration":N, "used":[names], "ignored":[names]}
//   written when iteration N's collection closes; the replay window is rebuilt
//   from these on resume, and later arrivals are recognised as late.
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
// the state is an optimisation, the checkpoints are the truth).
std::optional<TrainerState> ReadTrainerState(const std::string& path);

struct GameManifest {
  int64_t iteration = 0;
  std::vector<std::string> used;
  std::vector<std::string> ignored;
};
void WriteGameManifest(const std::string& path, const GameManifest& m);
// nullopt when missing or unreadable (logged).
std::optional<GameManifest> ReadGameManifest(const std::string& path);

}  // namespace gz
