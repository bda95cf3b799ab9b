// One finished self-play game, and its .npz file format (docs/file-formats.md).
//
// Arrays (T = number of searched moves):
//   boards   int8   [T,H,W]  position before move t (0 empty, 1 black, 2 white)
//   to_move  int8   [T]      1 black, 2 white
//   policy   float32[T,H*W]  MCTS visit distribution (sums to 1)
//   q        float32[T]      root value for the side to move, in [-1,1]
//   moves    int16  [T]      row*W+col
//   model_generations int64 [T]  generation of the model that answered the last evaluation of move t
//   opening  int16  [K]      random opening moves played before boards[0]
//   winner   int8   scalar   0 draw, 1 black, 2 white
//   adjudicated int8 scalar  1: the game ended when the search proved the result
//                            (selfplay.adjudicate_proven); written only then, so an
//                            absent array (every older file) means 0
//   full_search int8 [T]     playout-cap randomization (selfplay.playout_cap_p_full < 1):
//                            1 a full search (a policy target), 0 a cheap one (value
//                            target only); written only when the cap is on (absent = all 1)
//   resigned, resign_disabled int8 scalars; would_resign_move int64 scalar: written
//                            only when resignation is on (selfplay.resign_threshold > -1).
//                            would_resign_move is the index t of the searched move after
//                            which the resignation rule held (-1: never); the side that
//                            would resign is to_move[t].  resigned: the game ended there
//                            (winner = the other side); resign_disabled: this game never
//                            resigns (it plays on: the false-positive check)
//   iteration, model_generation, seed, board_size, rule (0 freestyle, 1 standard, 2 renju),
//   encoder_version, format_version: int64 scalars
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/game/board.h"

namespace gz {

constexpr int64_t kGameFormatVersion = 1;

struct GameRecord {
  int board_size = 15;
  Rule rule = Rule::kFreestyle;
  std::vector<int16_t> opening;
  std::vector<int8_t> boards;          // T*H*W
  std::vector<int8_t> to_move;         // T
  std::vector<float> policy;           // T*H*W
  std::vector<float> q;                // T
  std::vector<int16_t> moves;          // T
  std::vector<int64_t> model_generations;  // T
  int8_t winner = 0;
  bool adjudicated = false;            // ended by a proven result, not on the board
  std::vector<int8_t> full_search;     // T, or empty: every move a full search (playout cap off)
  bool resign_on = false;              // resignation was on: the three fields below are written
  bool resigned = false;
  bool resign_disabled = false;
  int64_t would_resign_move = -1;
  int64_t iteration = 0;
  int64_t model_generation = 0;        // generation the game was started with
  int64_t seed = 0;

  int num_moves() const { return static_cast<int>(moves.size()); }
  // Whether move t was a full search (a policy target); true when full_search is empty.
  bool is_full_search(int t) const { return full_search.empty() || full_search[t] != 0; }
  // Appends one searched move.
  void AddMove(const Board& before, const std::vector<float>& visit_policy, float root_q, int move,
               int64_t generation);

  std::string ToNpzBytes() const;
  // Parses and validates; throws IoError naming the problem.
  static GameRecord FromNpzBytes(const std::string& bytes, const std::string& what);
};

// Atomic write (temp name + fsync + rename).
void SaveGameRecord(const GameRecord& rec, const std::string& path);
// Throws IoError for a missing, truncated or corrupt file.
GameRecord LoadGameRecord(const std::string& path);

}  // namespace gz
