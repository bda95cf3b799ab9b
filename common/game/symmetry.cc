#include "common/game/symmetry.h"

#include <array>

#include "common/base/errors.h"

namespace gz {

int TransformPoint(int sym, int point, int size) {
  int r = point / size, c = point % size;
  if (sym & 4) std::swap(r, c);
  if (sym & 1) r = size - 1 - r;
  if (sym & 2) c = size - 1 - c;
  return r * size + c;
}

namespace {
std::array<int, kNumSymmetries> ComputeInverses() {
  std::array<int, kNumSymmetries> inv{};
  const int n = 7;  // any size > 1 distinguishes all 8 symmetries
  for (int s = 0; s < kNumSymmetries; ++s) {
    inv[s] = -1;
    for (int t = 0; t < kNumSymmetries && inv[s] < 0; ++t) {
      bool ok = true;
      for (int p = 0; p < n * n && ok; ++p) ok = TransformPoint(t, TransformPoint(s, p, n), n) == p;
      if (ok) inv[s] = t;
    }
  }
  return inv;
}
}  // namespace

int InverseSymmetry(int sym) {
  static const std::array<int, kNumSymmetries> kInv = ComputeInverses();
  GOMOKU_CHECK(sym >= 0 && sym < kNumSymmetries, "symmetry " << sym << " out of range");
  return kInv[sym];
}

}  // namespace gz
