#include "common/match/openings.h"

#include <algorithm>
#include <set>

#include "common/base/errors.h"
#include "common/base/splitmix.h"
#include "common/game/even_openings.h"
#include "common/game/symmetry.h"
#include "common/game/tactics.h"

namespace gz {
namespace {

constexpr int kMaxOpenings = 64;
constexpr int kMaxDraws = 20000;
constexpr int kRegion = 5;  // central square side

}  // namespace

std::vector<int> CanonicalOpeningKey(const Opening& o, int size) {
  std::vector<int> best;
  for (int sym = 0; sym < kNumSymmetries; ++sym) {
    std::vector<int> key;
    for (size_t i = 0; i < o.size(); ++i) key.push_back(TransformPoint(sym, o[i], size) * 2 + static_cast<int>(i % 2));
    std::sort(key.begin(), key.end());
    if (best.empty() || key < best) best = key;
  }
  return best;
}

std::vector<Opening> OpeningSet(int size, Rule rule, int length) {
  const int side = std::min(size, kRegion);
  if (length < 0 || length >= side * side)
    GOMOKU_THROW(ConfigError, "opening length " << length << " does not fit the central " << side << "x" << side
                                                << " square");
  if (length == 0) return {Opening{}};
  const int lo = (size - side) / 2;
  std::vector<int> region;
  for (int r = lo; r < lo + side; ++r)
    for (int c = lo; c < lo + side; ++c) region.push_back(r * size + c);
  uint64_t state = static_cast<uint64_t>(size) * 1000 + static_cast<uint64_t>(length);
  std::set<std::vector<int>> seen;
  std::vector<Opening> out;
  for (int draw = 0; draw < kMaxDraws && static_cast<int>(out.size()) < kMaxOpenings; ++draw) {
    Board b(size, rule);
    Opening o;
    while (static_cast<int>(o.size()) < length) {
      int m = region[SplitMix64(state) % region.size()];
      if (!b.IsLegal(m)) continue;
      b.Play(m);
      o.push_back(m);
    }
    if (b.terminal() || FindWinningMove(b) != kNoMove || FindForcedBlock(b) != kNoMove) continue;
    if (!seen.insert(CanonicalOpeningKey(o, size)).second) continue;
    out.push_back(std::move(o));
  }
  GOMOKU_CHECK(!out.empty(), "no opening of length " << length << " on " << size << "x" << size);
  return out;
}

std::vector<Opening> DefaultOpeningSet(int size, Rule rule) {
  std::vector<Opening> even = EvenOpenings(size, rule);
  return even.empty() ? OpeningSet(size, rule, 2) : even;
}

const Opening& OpeningForGame(const std::vector<Opening>& set, int game) {
  GOMOKU_CHECK(!set.empty() && game >= 0, "opening for game " << game);
  return set[static_cast<size_t>(game / 2) % set.size()];
}

}  // namespace gz
