// Hand-built positions for the node solver and MCTS-solver tests.
#pragma once

#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/game/board.h"

namespace gz::testing {

inline int P(int n, int r, int c) { return r * n + c; }

// Rows top to bottom: 'X' black, 'O' white, '.' empty (spaces ignored).
inline Board Picture(Rule rule, int8_t to_move, const std::vector<std::string>& rows) {
  const int n = static_cast<int>(rows.size());
  std::vector<int8_t> cells;
  for (const std::string& row : rows)
    for (char ch : row) {
      if (ch == ' ') continue;
      cells.push_back(ch == 'X' ? kBlack : ch == 'O' ? kWhite : kEmpty);
    }
  GOMOKU_CHECK(static_cast<int>(cells.size()) == n * n, "picture is not square");
  return Board::FromStones(n, rule, cells, to_move);
}

// Black's four-three on 11x11 (as in tests/game/test_threats.cc): (5,6) is a four
// with five point (5,7) and an open three on column 6.
inline const std::vector<std::string> kFourThree = {"O.........O",
                                             "...........",
                                             "...........",
                                             "...........",
                                             "...........",
                                             "..OXXX.....",
                                             "......X....",
                                             "......X....",
                                             "...........",
                                             "...........",
                                             "O.........O"};

}  // namespace gz::testing
