// Training positions of the last W iterations (train.replay_iterations),
// with 8-symmetry augmentation at sampling time.
//
// Each searched move of a game is one sample: the position before the move
// (cells, side to move, previous move), the MCTS visit distribution as the
// policy target, and the game result from the mover's view as the value
// target (+1 win, -1 loss, 0 draw).  Recipe: a cheap search's sample
// (playout cap, GameRecord::full_search) has an all-zero policy target, so
// it adds nothing to the policy loss; soft value targets mix in the root q.  Planes come from common/game/encoder.h
// EncodePosition only; the policy target is transformed with the same
// symmetry (symmetry.h TransformPlane), so planes and target always agree.
//
// Window: AddIteration(N, ...) keeps iterations N-W+1 .. N (by iteration
// number, gaps allowed) and drops older ones.  A game counts in the window by
// the iteration it was played for, also when it arrived late (after its
// iteration closed): AppendGames(L, ...) adds such games to iteration L, and
// they age out together with L's other games (docs/trainer.md "Late games").
// Thread-safety: not thread-safe; const methods may run concurrently.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/data/game_record.h"

namespace gz {

class ReplayBuffer {
 public:
  ReplayBuffer(int board_size, int window_iterations);

  int board_size() const { return size_; }
  int window() const { return window_; }

  // Self-play recipe (docs/trainer.md "Self-play recipe"); set before adding games.
  // Soft value targets: value = (1 - w) * z + w * q (q the root value of the
  // move's search, mover's view).  0 = the game result alone.
  void SetValueTargetQWeight(double w) { q_weight_ = w; }
  // Sampling draws only from the newest `max_samples` samples (the power-law
  // window); 0 = all samples held.
  void SetSampleWindow(int64_t max_samples) { sample_window_ = max_samples; }
  int64_t sample_window() const { return sample_window_; }
  // The samples SampleBatch draws from: the newest min(sample window, all).
  int64_t sampled_samples() const {
    return sample_window_ > 0 && sample_window_ < total_ ? sample_window_ : total_;
  }

  // Adds the games of `iteration` (replacing that iteration if present) and
  // drops iterations older than iteration - window + 1.  Games of another
  // board size are a GomokuError.
  void AddIteration(int64_t iteration, const std::vector<const GameRecord*>& games);

  // Appends games to `iteration` (creating it when absent, never replacing
  // what it holds).  Precondition: InWindow(iteration, newest held, window()),
  // i.e. the games would not age out at once (GomokuError otherwise).
  void AppendGames(int64_t iteration, const std::vector<const GameRecord*>& games);

  // The window's rule: whether games played for `iteration` are in the replay
  // window of training step `step` (step - window < iteration <= step).  A
  // game of a newer iteration than the step never is.
  static bool InWindow(int64_t iteration, int64_t step, int window) {
    return iteration <= step && iteration > step - window;
  }

  int64_t num_samples() const { return total_; }
  std::vector<int64_t> iterations() const;  // ascending
  int64_t samples_in(int64_t iteration) const;

  // Writes sample `index` (0 <= index < num_samples(), in iteration order)
  // under symmetry `sym`: planes PlaneFloats(size), policy size*size, value 1.
  void EncodeSample(int64_t index, int sym, float* planes, float* policy, float* value) const;

  // n samples drawn uniformly with replacement, each with a uniformly random
  // symmetry.  planes: n*PlaneFloats(size), policy: n*size*size, value: n.
  // Precondition: num_samples() > 0 (GomokuError otherwise).
  void SampleBatch(int n, std::mt19937_64& rng, float* planes, float* policy, float* value) const;

 private:
  struct Chunk {
    int64_t iteration = 0;
    int64_t count = 0;
    std::vector<int8_t> cells;      // count * size*size
    std::vector<int8_t> to_move;    // count
    std::vector<int16_t> last_move; // count (kNoMove before the first stone)
    std::vector<Rule> rule;         // count (the game's rule: the encoder's renju plane needs it)
    std::vector<float> policy;      // count * size*size
    std::vector<float> value;       // count
  };
  void Recount();
  static void AppendTo(Chunk* c, const std::vector<const GameRecord*>& games, int size, double q_weight);

  int size_;
  int window_;
  std::vector<Chunk> chunks_;  // ascending iteration
  std::vector<int64_t> starts_;
  int64_t total_ = 0;
  double q_weight_ = 0.0;
  int64_t sample_window_ = 0;
};

// Value target for a position with `to_move` to play in a game won by `winner`
// (0 draw, kBlack, kWhite): +1, -1 or 0.
float ValueTarget(int8_t winner, int8_t to_move);

}  // namespace gz
