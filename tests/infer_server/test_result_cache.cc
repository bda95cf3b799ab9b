// The server's result cache in process: keys (every field of the position
// and the symmetry mode, no collisions), exact round trip, generation
// isolation, bounded memory (LRU within a set), clear.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <vector>

#include "infer_server/result_cache.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

EvalResult Answer(int points, float seed) {
  EvalResult r;
  r.value = seed;
  r.log_policy.resize(points);
  for (int i = 0; i < points; ++i) r.log_policy[i] = seed * 0.001f + static_cast<float>(i) * 1e-7f;
  return r;
}

bool SameBits(const EvalResult& a, const EvalResult& b) {
  return a.log_policy.size() == b.log_policy.size() && std::memcmp(&a.value, &b.value, sizeof(float)) == 0 &&
         std::memcmp(a.log_policy.data(), b.log_policy.data(), a.log_policy.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("cache keys separate every field of the position and the symmetry mode", "[server][cache]") {
  Board b(kTestBoard);
  b.Play(40);
  b.Play(41);
  const Position p = b.ToPosition();
  const CacheKey k = MakeCacheKey(p, SymmetryMode::kAll8);
  auto differs = [&](const Position& q, SymmetryMode m) {
    CacheKey o = MakeCacheKey(q, m);
    return o.h1 != k.h1 && o.h2 != k.h2;  // both hashes change
  };
  CHECK(MakeCacheKey(p, SymmetryMode::kAll8).h1 == k.h1);  // deterministic
  CHECK(MakeCacheKey(p, SymmetryMode::kAll8).h2 == k.h2);
  CHECK(differs(p, SymmetryMode::kNone));
  CHECK(differs(p, SymmetryMode::kRandom));
  Position q = p;
  q.last_move = 40;  // same stones, another last move
  CHECK(differs(q, SymmetryMode::kAll8));
  q = p;
  q.to_move = q.to_move == kBlack ? kWhite : kBlack;
  CHECK(differs(q, SymmetryMode::kAll8));
  for (int cell : {0, 31, 32, 80}) {  // first/last cell of a packed word, last cell of the board
    INFO("cell " << cell);
    q = p;
    q.cells[cell] = static_cast<int8_t>((q.cells[cell] + 1) % 3);
    CHECK(differs(q, SymmetryMode::kAll8));
  }
  // Many random positions: no collision in either hash.
  std::set<uint64_t> h1, h2;
  std::set<std::vector<int8_t>> distinct;
  for (const Position& r : RandomPositions(3000, 4)) {
    if (!distinct.insert([&] {
          std::vector<int8_t> v = r.cells;
          v.push_back(static_cast<int8_t>(r.last_move));
          v.push_back(r.to_move);
          return v;
        }())
             .second)
      continue;
    CacheKey c = MakeCacheKey(r, SymmetryMode::kAll8);
    CHECK(h1.insert(c.h1).second);
    CHECK(h2.insert(c.h2).second);
  }
  // Another board size with the same first cells.
  Board small(7);
  small.Play(0);
  Board big(9);
  big.Play(0);
  CHECK(MakeCacheKey(small.ToPosition(), SymmetryMode::kAll8).h1 != MakeCacheKey(big.ToPosition(), SymmetryMode::kAll8).h1);
}

TEST_CASE("result cache: exact round trip, generation isolation, bounded LRU, clear", "[server][cache]") {
  const int pts = kTestBoard * kTestBoard;
  ResultCache cache(64, kTestBoard);
  CHECK(cache.capacity() == 64);
  std::vector<Position> ps = DistinctPositions(200, 9);
  std::vector<CacheKey> keys;
  for (auto& p : ps) keys.push_back(MakeCacheKey(p, SymmetryMode::kAll8));

  EvalResult got;
  CHECK_FALSE(cache.Lookup(1, keys[0], &got));
  cache.Insert(1, keys[0], Answer(pts, 0.25f));
  REQUIRE(cache.Lookup(1, keys[0], &got));
  CHECK(SameBits(got, Answer(pts, 0.25f)));
  CHECK(got.model_generation == 1);
  CHECK_FALSE(cache.Lookup(2, keys[0], &got));  // another generation never sees it
  CacheKey half = keys[0];
  half.h2 ^= 1;  // same set and h1, other h2: a miss
  CHECK_FALSE(cache.Lookup(1, half, &got));

  // Insert far more than the capacity: at most `capacity` answers survive, and
  // every surviving one is the right one.
  for (size_t i = 0; i < ps.size(); ++i) cache.Insert(1, keys[i], Answer(pts, static_cast<float>(i)));
  int found = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (!cache.Lookup(1, keys[i], &got)) continue;
    ++found;
    CHECK(SameBits(got, Answer(pts, static_cast<float>(i))));
  }
  CHECK(found <= cache.capacity());
  CHECK(found >= cache.capacity() / 2);

  // LRU within a set: an entry that keeps being used survives a flood.
  ResultCache one_set(8, kTestBoard);  // a single 8-way set
  one_set.Insert(1, keys[0], Answer(pts, 1));
  for (size_t i = 1; i < 100; ++i) {
    REQUIRE(one_set.Lookup(1, keys[0], &got));
    one_set.Insert(1, keys[i], Answer(pts, 2));
  }
  CHECK(one_set.Lookup(1, keys[0], &got));
  CHECK_FALSE(one_set.Lookup(1, keys[1], &got));  // long evicted

  cache.Clear();
  for (size_t i = 0; i < ps.size(); ++i) CHECK_FALSE(cache.Lookup(1, keys[i], &got));
  CHECK_THROWS_AS(ResultCache(0, kTestBoard), ConfigError);
}
