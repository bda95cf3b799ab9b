// The 8 dihedral symmetries of a square board.
//
// Symmetry s in [0,8): bit 2 = transpose, then bit 0 = flip rows, bit 1 = flip
// columns.  Symmetry 0 is the identity.  TransformPoint maps an original point
// to its image; Inverse(s) undoes s.  All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace gz {

constexpr int kNumSymmetries = 8;

int TransformPoint(int sym, int point, int size);
int InverseSymmetry(int sym);

// out[TransformPoint(sym,p)] = in[p] for every point p.  `in` and `out` hold
// size*size values and must not alias.
template <typename T>
void TransformPlane(int sym, const T* in, T* out, int size) {
  for (int p = 0; p < size * size; ++p) out[TransformPoint(sym, p, size)] = in[p];
}
template <typename T>
std::vector<T> TransformPlane(int sym, const std::vector<T>& in, int size) {
  std::vector<T> out(in.size());
  TransformPlane(sym, in.data(), out.data(), size);
  return out;
}
// A policy computed on the transformed board, mapped back to original points:
// out[p] = in[TransformPoint(sym,p)].
template <typename T>
void UntransformPolicy(int sym, const T* in, T* out, int size) {
  for (int p = 0; p < size * size; ++p) out[p] = in[TransformPoint(sym, p, size)];
}

}  // namespace gz
