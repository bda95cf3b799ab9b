// Points of a square board by row and column, for tests.
#pragma once

namespace gz::testing {

// The point at row r, column c of an n x n board (row-major, as Board).
inline int P(int n, int r, int c) { return r * n + c; }

}  // namespace gz::testing
