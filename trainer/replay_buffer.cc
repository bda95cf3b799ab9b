#include "trainer/replay_buffer.h"

#include <algorithm>

#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/game/symmetry.h"

namespace gz {

float ValueTarget(int8_t winner, int8_t to_move) {
  if (winner == 0) return 0.0f;
  return winner == to_move ? 1.0f : -1.0f;
}

ReplayBuffer::ReplayBuffer(int board_size, int window_iterations) : size_(board_size), window_(window_iterations) {
  GOMOKU_CHECK(board_size >= kMinBoardSize && board_size <= kMaxBoardSize, "bad board size " << board_size);
  GOMOKU_CHECK(window_iterations >= 1, "replay window must be >= 1, got " << window_iterations);
}

void ReplayBuffer::AppendTo(Chunk* c, const std::vector<const GameRecord*>& games, int size, double q_weight) {
  const int pts = size * size;
  for (const GameRecord* g : games) {
    GOMOKU_CHECK(g->board_size == size,
                 "game of board size " << g->board_size << " added to a replay buffer of size " << size);
    const int t = g->num_moves();
    for (int i = 0; i < t; ++i) {
      c->cells.insert(c->cells.end(), g->boards.begin() + static_cast<int64_t>(i) * pts,
                      g->boards.begin() + static_cast<int64_t>(i + 1) * pts);
      c->to_move.push_back(g->to_move[i]);
      int16_t last = kNoMove;
      if (i > 0) last = g->moves[i - 1];
      else if (!g->opening.empty()) last = g->opening.back();
      c->last_move.push_back(last);
      c->rule.push_back(g->rule);
      if (g->is_full_search(i))
        c->policy.insert(c->policy.end(), g->policy.begin() + static_cast<int64_t>(i) * pts,
                         g->policy.begin() + static_cast<int64_t>(i + 1) * pts);
      else
        c->policy.insert(c->policy.end(), pts, 0.0f);  // a cheap search: value target only
      const float z = ValueTarget(g->winner, g->to_move[i]);
      c->value.push_back(q_weight > 0 ? static_cast<float>((1.0 - q_weight) * z + q_weight * g->q[i]) : z);
      ++c->count;
    }
  }
}

void ReplayBuffer::AppendGames(int64_t iteration, const std::vector<const GameRecord*>& games) {
  const int64_t newest = chunks_.empty() ? iteration : chunks_.back().iteration;
  GOMOKU_CHECK(InWindow(iteration, newest, window_),
               "games of iteration " << iteration << " appended to a replay window ending at iteration " << newest
                                     << " (window " << window_ << ")");
  if (games.empty()) return;
  auto it = std::find_if(chunks_.begin(), chunks_.end(), [&](const Chunk& x) { return x.iteration == iteration; });
  if (it == chunks_.end()) {
    Chunk c;
    c.iteration = iteration;
    it = chunks_.insert(std::upper_bound(chunks_.begin(), chunks_.end(), iteration,
                                         [](int64_t i, const Chunk& x) { return i < x.iteration; }),
                        std::move(c));
  }
  AppendTo(&*it, games, size_, q_weight_);
  Recount();
}

void ReplayBuffer::AddIteration(int64_t iteration, const std::vector<const GameRecord*>& games) {
  Chunk c;
  c.iteration = iteration;
  AppendTo(&c, games, size_, q_weight_);
  chunks_.erase(std::remove_if(chunks_.begin(), chunks_.end(),
                               [&](const Chunk& x) {
                                 return x.iteration == iteration || x.iteration <= iteration - window_;
                               }),
                chunks_.end());
  chunks_.push_back(std::move(c));
  std::sort(chunks_.begin(), chunks_.end(), [](const Chunk& a, const Chunk& b) { return a.iteration < b.iteration; });
  // Keep only the window that ends at the newest iteration held.
  const int64_t newest = chunks_.back().iteration;
  chunks_.erase(std::remove_if(chunks_.begin(), chunks_.end(),
                               [&](const Chunk& x) { return x.iteration <= newest - window_; }),
                chunks_.end());
  Recount();
}

void ReplayBuffer::Recount() {
  starts_.clear();
  total_ = 0;
  for (const Chunk& c : chunks_) {
    starts_.push_back(total_);
    total_ += c.count;
  }
}

std::vector<int64_t> ReplayBuffer::iterations() const {
  std::vector<int64_t> out;
  for (const Chunk& c : chunks_) out.push_back(c.iteration);
  return out;
}

int64_t ReplayBuffer::samples_in(int64_t iteration) const {
  for (const Chunk& c : chunks_)
    if (c.iteration == iteration) return c.count;
  return 0;
}

void ReplayBuffer::EncodeSample(int64_t index, int sym, float* planes, float* policy, float* value) const {
  GOMOKU_CHECK(index >= 0 && index < total_, "sample index " << index << " out of range [0, " << total_ << ")");
  GOMOKU_CHECK(sym >= 0 && sym < kNumSymmetries, "symmetry " << sym << " out of range");
  auto it = std::upper_bound(starts_.begin(), starts_.end(), index);
  const size_t ci = static_cast<size_t>(it - starts_.begin()) - 1;
  const Chunk& c = chunks_[ci];
  const int64_t i = index - starts_[ci];
  const int pts = size_ * size_;
  Position pos;
  pos.size = size_;
  pos.cells.assign(c.cells.begin() + i * pts, c.cells.begin() + (i + 1) * pts);
  pos.to_move = c.to_move[i];
  pos.last_move = c.last_move[i];
  pos.rule = c.rule[i];
  EncodePosition(pos, sym, planes);
  TransformPlane(sym, c.policy.data() + i * pts, policy, size_);
  *value = c.value[i];
}

void ReplayBuffer::SampleBatch(int n, std::mt19937_64& rng, float* planes, float* policy, float* value) const {
  GOMOKU_CHECK(total_ > 0, "cannot sample from an empty replay buffer");
  // The power-law window: the newest sampled_samples() (all when off).
  std::uniform_int_distribution<int64_t> pick(total_ - sampled_samples(), total_ - 1);
  std::uniform_int_distribution<int> sym(0, kNumSymmetries - 1);
  const int pts = size_ * size_;
  for (int k = 0; k < n; ++k) {
    int64_t idx = pick(rng);
    EncodeSample(idx, sym(rng), planes + static_cast<int64_t>(k) * PlaneFloats(size_),
                 policy + static_cast<int64_t>(k) * pts, value + k);
  }
}

}  // namespace gz
