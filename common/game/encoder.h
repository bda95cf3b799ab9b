// Position -> network input planes.  The ONLY place planes are defined; the
// local evaluator, the inference server and the trainer all call this.
//
// Planes (kNumPlanes x size x size, float32, row-major [plane][row][col]):
//   0: stones of the side to move (1/0)
//   1: stones of the opponent (1/0)  (a kBlocked point is in neither plane)
//   2: the last move (one-hot; all zero before the first move)
//   3: colour of the side to move (all ones if black to move, all zeros if white)
//   4: renju only (pos.rule == Rule::kRenju): the empty points forbidden for
//      black (common/game/renju.h), whichever side is to move -- black may not
//      play them and white can aim at them.  All zeros under freestyle and
//      standard.
// kEncoderVersion is recorded in checkpoints, game files and the wire
// handshake; bump it on any change to the planes.  History: 1 = planes 0-3;
// 2 = plane 4 added.  A checkpoint of another version is refused
// when loaded (common/net/checkpoint_format.cc names both versions).
#pragma once

#include <vector>

#include "common/game/board.h"

namespace gz {

constexpr int kEncoderVersion = 2;
constexpr int kNumPlanes = 5;
constexpr int kForbiddenPlane = 4;

inline int PlaneFloats(int size) { return kNumPlanes * size * size; }

// The points of plane 4 for `pos` (ascending; empty unless pos.rule is
// renju).  About 35 us on a 15x15 middle game.
std::vector<int> ForbiddenPlanePoints(const Position& pos);

// Writes PlaneFloats(pos.size) floats to `out`, with symmetry `sym` applied to
// every plane.  Preconditions: pos.cells.size() == size*size.
void EncodePosition(const Position& pos, int sym, float* out);
// The same with plane 4's points already computed (ForbiddenPlanePoints(pos)),
// so that encoding several symmetries of one position pays for them once.
void EncodePosition(const Position& pos, int sym, const std::vector<int>& forbidden, float* out);

}  // namespace gz
