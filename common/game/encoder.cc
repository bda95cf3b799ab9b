#include "common/game/encoder.h"

#include <algorithm>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/game/symmetry.h"

namespace gz {

std::vector<int> ForbiddenPlanePoints(const Position& pos) {
  if (pos.rule != Rule::kRenju) return {};
  return ForbiddenPoints(pos.size, pos.cells);
}

void EncodePosition(const Position& pos, int sym, float* out) {
  EncodePosition(pos, sym, ForbiddenPlanePoints(pos), out);
}

void EncodePosition(const Position& pos, int sym, const std::vector<int>& forbidden, float* out) {
  const int n = pos.size;
  const int pts = n * n;
  GOMOKU_CHECK(static_cast<int>(pos.cells.size()) == pts, "position has " << pos.cells.size()
                                                                         << " cells for size " << n);
  std::fill(out, out + kNumPlanes * pts, 0.0f);
  const int8_t me = pos.to_move;
  for (int p = 0; p < pts; ++p) {
    int8_t c = pos.cells[p];
    if (c != kBlack && c != kWhite) continue;  // empty, or kBlocked (nobody's stone)
    int q = TransformPoint(sym, p, n);
    out[(c == me ? 0 : 1) * pts + q] = 1.0f;
  }
  if (pos.last_move >= 0 && pos.last_move < pts) out[2 * pts + TransformPoint(sym, pos.last_move, n)] = 1.0f;
  if (me == kBlack) std::fill(out + 3 * pts, out + 4 * pts, 1.0f);
  for (int p : forbidden) {
    GOMOKU_CHECK(p >= 0 && p < pts, "forbidden point " << p << " off the " << n << "x" << n << " board");
    out[kForbiddenPlane * pts + TransformPoint(sym, p, n)] = 1.0f;
  }
}

}  // namespace gz
