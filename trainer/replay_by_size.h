// The replay window of a run whose games use several board sizes
// (selfplay.board_sizes with net.heads conv, docs/trainer.md "Mixed board
// sizes"): one ReplayBuffer per size, so that every mini-batch holds positions
// of ONE size (a forward runs at one size).  With one size it is a thin
// wrapper over one ReplayBuffer and draws exactly what that buffer draws.
//
// Window: the same rules as ReplayBuffer, across sizes.  AddIteration(N, games)
// adds every size's games of N to that size's buffer and calls AddIteration(N)
// on EVERY size's buffer (with no games where N had none of that size), so
// every buffer holds the same iterations and a size that stops getting games
// still ages out when N - W + 1 moves past its iterations.  AppendGames(L,
// games) (late games) appends to L in each size's buffer, with ReplayBuffer's
// precondition (L still in the window).  Games of a size the run does not use
// are a GomokuError.
//
// Per-size choices:
//  * value_target_q_weight: the same w for every size (a property of the
//    targets, not of the size).
//  * Power-law sample window (SetSampleWindow(W), W over the run's samples of
//    all sizes, as recipe.h computes it): shared out in proportion to what each
//    size holds.  When the window holds H samples in all and W < H, size s
//    holding H_s samples samples its newest W_s = max(1, floor(W * H_s / H))
//    (0 when it holds none); W >= H samples everything.  So every size keeps
//    its newest data, the sizes' shares of the sampled samples are their
//    shares of the held ones (the self-play mix), and no per-size run ledger
//    is needed.  One size: W itself (ReplayBuffer's rule, unchanged).
//  * Batches (SampleBatch): the batch's size is drawn with probability
//    sampled_samples(s) / sampled_samples() (one uniform draw over all sampled
//    samples from the caller's RNG), then that size's buffer draws the batch
//    (ReplayBuffer::SampleBatch).  When only one size has samples there is no
//    size draw: the RNG sees exactly the plain ReplayBuffer's draws.
//
// Thread-safety: not thread-safe; const methods may run concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "common/data/game_record.h"
#include "trainer/replay_buffer.h"

namespace gz {

class ReplayBySize {
 public:
  // `sizes`: every board size of the run (Config::board_sizes()); at least one,
  // duplicates are ignored.
  ReplayBySize(const std::vector<int>& sizes, int window_iterations);

  const std::vector<int>& sizes() const { return sizes_; }  // ascending
  int max_size() const { return sizes_.back(); }
  int window() const { return window_; }
  bool has_size(int size) const { return buffers_.count(size) > 0; }
  // The buffer of one size (GomokuError for a size the run does not use).
  const ReplayBuffer& buffer(int size) const;

  // See the file comment; set before adding games (q) / after (window).
  void SetValueTargetQWeight(double w);
  void SetSampleWindow(int64_t max_samples);
  int64_t sample_window() const { return sample_window_; }  // W as set (0 = off)

  void AddIteration(int64_t iteration, const std::vector<const GameRecord*>& games);
  void AppendGames(int64_t iteration, const std::vector<const GameRecord*>& games);

  int64_t num_samples() const;            // all sizes
  int64_t num_samples(int size) const;    // 0 for a size not used
  int64_t sampled_samples() const;        // all sizes
  int64_t sampled_samples(int size) const;
  std::vector<int64_t> iterations() const;  // ascending (the same in every size's buffer)
  int64_t samples_in(int64_t iteration) const;  // all sizes

  // The size of the next batch (see the file comment).  Precondition:
  // sampled_samples() > 0 (GomokuError otherwise).
  int DrawSize(std::mt19937_64& rng) const;
  // One batch of n samples of one size: DrawSize, then that buffer's
  // SampleBatch.  The arrays hold n samples of max_size() (planes
  // n*PlaneFloats(max_size()), policy n*max_size()^2, value n); the first
  // n*PlaneFloats(s) / n*s^2 floats are written.  Returns the size s.
  int SampleBatch(int n, std::mt19937_64& rng, float* planes, float* policy, float* value) const;

 private:
  void SplitSampleWindow();
  // `games` grouped by board size; a size the run does not use is a
  // GomokuError ("game of board size S <verb> a replay window of ...").
  std::map<int, std::vector<const GameRecord*>> BySize(const std::vector<const GameRecord*>& games,
                                                        const char* verb) const;

  std::vector<int> sizes_;
  int window_;
  std::map<int, ReplayBuffer> buffers_;
  int64_t sample_window_ = 0;
};

}  // namespace gz
