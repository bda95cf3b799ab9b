// Position -> network input planes.  The ONLY place planes are defined; the
// local evaluator, the inference server and the trainer all call this.
//
// Planes (kNumPlanes x size x size, float32, row-major [plane][row][col]):
//   0: stones of the side to move (1/0)
//   1: stones of the opponent (1/0)
//   2: the last move (one-hot; all zero before the first move)
//   3: colour of the side to move (all ones if black to move, all zeros if white)
// kEncoderVersion is recorded in checkpoints and the wire handshake; bump it on
// any change to the planes.
#pragma once

#include "common/game/board.h"

namespace gz {

constexpr int kEncoderVersion = 1;
constexpr int kNumPlanes = 4;

inline int PlaneFloats(int size) { return kNumPlanes * size * size; }

// Writes PlaneFloats(pos.size) floats to `out`, with symmetry `sym` applied to
// every plane.  Preconditions: pos.cells.size() == size*size.
void EncodePosition(const Position& pos, int sym, float* out);

}  // namespace gz
