// The inference server's NN result cache (server.cache_entries; docs/protocol.md).
//
// Maps (model generation, position, symmetry mode) to the answer the server
// sent for it: the symmetry-combined value and log-policy, exactly the floats
// that went into the INFER_REPLY, so a hit is bit-for-bit the uncached answer.
//
// Key: two independent 64-bit hashes of the compact position (every cell at
// 2 bits, the last move, the side to move, the board size) and the symmetry
// mode.  h1 picks the set; an entry matches only if h1, h2 and the generation
// all match, so a false hit needs a 128-bit collision.  The generation is part
// of the key: an answer of another model is never returned, even when a lookup
// races a model swap.
//
// Memory is fixed at construction: `entries` slots of (P + 1) floats plus 32
// bytes of tags (P = board points), in sets of 8 ways; within a set the least
// recently used slot is replaced.  Pages are touched only when first used.
//
// Thread-safety: every method may be called from any thread (striped locks;
// a lookup and an insert copy P + 1 floats under a stripe lock).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common/game/board.h"
#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"

namespace gz {

struct CacheKey {
  uint64_t h1 = 0;
  uint64_t h2 = 0;
};

// The cache key of `pos` evaluated under symmetry mode `mode`.  Deterministic
// across runs and machines.  Precondition: pos.cells.size() == size * size.
CacheKey MakeCacheKey(const Position& pos, SymmetryMode mode);

class ResultCache {
 public:
  static constexpr int kWays = 8;
  // Holds at most `entries` answers (>= 1) for a board of `board_size`.
  // Throws ConfigError when entries < 1.
  ResultCache(int64_t entries, int board_size);
  ResultCache(const ResultCache&) = delete;
  ResultCache& operator=(const ResultCache&) = delete;

  // On a hit fills out->value, out->log_policy (board points) and
  // out->model_generation, and returns true.
  bool Lookup(int64_t generation, const CacheKey& key, EvalResult* out);
  // Stores the answer (replacing the set's least recently used slot, or the
  // slot already holding this key).  result.log_policy must have board points.
  void Insert(int64_t generation, const CacheKey& key, const EvalResult& result);
  // Forgets everything (model swap).
  void Clear();

  int64_t capacity() const { return sets_ * ways_; }
  int board_size() const { return board_size_; }

 private:
  struct Tag {
    uint64_t h1 = 0, h2 = 0;
    int64_t generation = -1;  // -1 = empty slot
    uint64_t last_used = 0;
  };
  static constexpr int kStripes = 64;

  const int board_size_;
  const int points_;
  int ways_ = kWays;
  int64_t sets_ = 0;
  std::unique_ptr<Tag[]> tags_;       // sets_ * ways_, guarded by the set's stripe
  std::unique_ptr<float[]> values_;   // sets_ * ways_ * (points_ + 1): value, then log-policy
  struct alignas(64) Stripe {
    std::mutex mu;
    uint64_t clock = 0;  // LRU stamps of this stripe's sets
  };
  Stripe stripes_[kStripes];
};

}  // namespace gz
