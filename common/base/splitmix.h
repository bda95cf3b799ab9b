// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014): the one 64-bit mixer behind the project's seeds,
// table salts, Zobrist keys and cheap per-position choices, written once.
// Changing it changes every derived seed and stored hash: don't.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

namespace gz {

// The generator's increment (2^64 / golden ratio, odd).
inline constexpr uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ULL;

// The finaliser: a bijective mix in which every input bit moves every output bit.
constexpr uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One step of the generator: advances `state` by the gamma and returns its mix.
inline uint64_t SplitMix64(uint64_t& state) { return SplitMix64Mix(state += kSplitMixGamma); }

}  // namespace gz
