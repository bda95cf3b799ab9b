#include "infer_server/result_cache.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "common/base/errors.h"
#include "common/base/splitmix.h"

namespace gz {
namespace {

// splitmix64's finaliser and MurmurHash3's fmix64: two unrelated bijective
// 64-bit mixers, one per hash chain.
uint64_t MixA(uint64_t x) { return SplitMix64Mix(x); }

uint64_t MixB(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

CacheKey MakeCacheKey(const Position& pos, SymmetryMode mode) {
  GOMOKU_CHECK(pos.cells.size() == static_cast<size_t>(pos.size) * pos.size, "MakeCacheKey: cells of the wrong size");
  // Header word: board size, side to move, last move, symmetry mode, and a
  // format tag so that the packing below can change without silent reuse.
  const uint64_t header = (uint64_t{0x47} << 56) | (static_cast<uint64_t>(static_cast<uint8_t>(mode)) << 48) |
                          (static_cast<uint64_t>(static_cast<uint8_t>(pos.to_move)) << 40) |
                          (static_cast<uint64_t>(static_cast<uint16_t>(pos.last_move + 1)) << 16) |
                          static_cast<uint64_t>(pos.size);
  uint64_t a = MixA(header ^ 0x6a09e667f3bcc909ULL);
  uint64_t b = MixB(header ^ 0xbb67ae8584caa73bULL);
  uint64_t word = 0;
  int filled = 0;
  uint64_t index = 1;
  auto absorb = [&](uint64_t w) {
    a = MixA(a ^ (w + 0x9e3779b97f4a7c15ULL * index));
    b = MixB(b + (w ^ (0xc2b2ae3d27d4eb4fULL * index)));
    ++index;
  };
  for (int8_t c : pos.cells) {
    word |= static_cast<uint64_t>(static_cast<uint8_t>(c) & 3u) << (2 * filled);
    if (++filled == 32) {
      absorb(word);
      word = 0;
      filled = 0;
    }
  }
  if (filled > 0) absorb(word);
  return CacheKey{MixA(a ^ index), MixB(b ^ (index << 32))};
}

ResultCache::ResultCache(int64_t entries, int board_size) : board_size_(board_size), points_(board_size * board_size) {
  if (entries < 1) GOMOKU_THROW(ConfigError, "server.cache_entries: " << entries << " is not a positive size");
  ways_ = static_cast<int>(std::min<int64_t>(kWays, entries));
  sets_ = entries / ways_;
  const size_t slots = static_cast<size_t>(sets_) * ways_;
  tags_.reset(new Tag[slots]);
  // Not value-initialised: the OS hands out zero pages lazily, so an unused
  // cache costs address space, not memory.
  values_.reset(new (std::nothrow) float[slots * static_cast<size_t>(points_ + 1)]);
  if (!values_)
    GOMOKU_THROW(ConfigError, "server.cache_entries: cannot allocate " << slots << " entries of "
                                                                     << (points_ + 1) * 4 << " bytes");
}

bool ResultCache::Lookup(int64_t generation, const CacheKey& key, EvalResult* out) {
  const int64_t set = static_cast<int64_t>(key.h1 % static_cast<uint64_t>(sets_));
  Stripe& stripe = stripes_[static_cast<size_t>(set % kStripes)];
  std::lock_guard<std::mutex> lock(stripe.mu);
  Tag* tags = tags_.get() + set * ways_;
  for (int w = 0; w < ways_; ++w) {
    Tag& t = tags[w];
    if (t.generation != generation || t.h1 != key.h1 || t.h2 != key.h2) continue;
    t.last_used = ++stripe.clock;
    const float* v = values_.get() + (static_cast<size_t>(set) * ways_ + w) * (points_ + 1);
    out->value = v[0];
    out->log_policy.assign(v + 1, v + 1 + points_);
    out->model_generation = generation;
    return true;
  }
  return false;
}

void ResultCache::Insert(int64_t generation, const CacheKey& key, const EvalResult& result) {
  GOMOKU_CHECK(static_cast<int>(result.log_policy.size()) == points_, "ResultCache::Insert: policy of the wrong size");
  const int64_t set = static_cast<int64_t>(key.h1 % static_cast<uint64_t>(sets_));
  Stripe& stripe = stripes_[static_cast<size_t>(set % kStripes)];
  std::lock_guard<std::mutex> lock(stripe.mu);
  Tag* tags = tags_.get() + set * ways_;
  int victim = -1;
  for (int w = 0; w < ways_ && victim < 0; ++w)  // already present (two requests raced): refresh it
    if (tags[w].generation == generation && tags[w].h1 == key.h1 && tags[w].h2 == key.h2) victim = w;
  for (int w = 0; w < ways_ && victim < 0; ++w)  // else an empty slot
    if (tags[w].generation < 0) victim = w;
  if (victim < 0) {  // else the least recently used one
    victim = 0;
    for (int w = 1; w < ways_; ++w)
      if (tags[w].last_used < tags[victim].last_used) victim = w;
  }
  Tag& t = tags[victim];
  t.h1 = key.h1;
  t.h2 = key.h2;
  t.generation = generation;
  t.last_used = ++stripe.clock;
  float* v = values_.get() + (static_cast<size_t>(set) * ways_ + victim) * (points_ + 1);
  v[0] = result.value;
  std::memcpy(v + 1, result.log_policy.data(), sizeof(float) * static_cast<size_t>(points_));
}

void ResultCache::Clear() {
  for (int s = 0; s < kStripes; ++s) {
    std::lock_guard<std::mutex> lock(stripes_[s].mu);
    for (int64_t set = s; set < sets_; set += kStripes)
      for (int w = 0; w < ways_; ++w) tags_[static_cast<size_t>(set * ways_ + w)].generation = -1;
  }
}

}  // namespace gz
