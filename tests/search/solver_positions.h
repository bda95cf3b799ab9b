// Hand-built positions shared by the threat-solver tests (VCF, VCT, node
// solver, MCTS-solver).
#pragma once

#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/game/board.h"
#include "tests/support/board_points.h"

namespace gz::testing {

// Rows top to bottom: 'X' black, 'O' white, '.' empty, '#' blocked (a wall,
// Board::FromStones' kBlocked; spaces ignored).
inline Board Picture(Rule rule, int8_t to_move, const std::vector<std::string>& rows) {
  const int n = static_cast<int>(rows.size());
  std::vector<int8_t> cells;
  for (const std::string& row : rows)
    for (char ch : row) {
      if (ch == ' ') continue;
      cells.push_back(ch == 'X' ? kBlack : ch == 'O' ? kWhite : ch == '#' ? kBlocked : kEmpty);
    }
  GOMOKU_CHECK(static_cast<int>(cells.size()) == n * n, "picture is not square");
  return Board::FromStones(n, rule, cells, to_move);
}

// Black's open four on 9x9, white to move (black four stones, white three):
// row 4, columns 1-4, five points (4,0) and (4,5).  Black to move needs a
// fourth white stone, e.g. WithRow(kOpenFour, 8, "O........").
inline const std::vector<std::string> kOpenFour = {".........",
                                            "....O....",
                                            ".........",
                                            "..O......",
                                            ".XXXX....",
                                            ".........",
                                            "......O..",
                                            ".........",
                                            "........."};

// `rows` with row r replaced.
inline std::vector<std::string> WithRow(std::vector<std::string> rows, int r, const std::string& row) {
  rows.at(r) = row;
  return rows;
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

// --- VCT (common/game/vct.h, tests/game/test_vct.cc, test_node_solver.cc) -----
// Walled arenas ('#'): only the lines that matter are open, so the answer
// follows from the definitions by hand (on an open board the solver finds
// other, longer wins).
// Black's double three at (5,5): row 5 (open cols 2..7) X X p and column 5
// (open rows 2..7) X X p both become threes, each with one winning four
// ((5,6), (6,5)).  No four is possible (VCF none).  Under renju (5,5) is a
// forbidden double three, and black's other threes are met at (5,5).
inline const std::vector<std::string> kDoubleThree = {"###########",
                                               "###########",
                                               "#####.#####",
                                               "#####X#####",
                                               "#####X#####",
                                               "##.XX...###",
                                               "#####.#####",
                                               "#####.#####",
                                               "###########",
                                               "###########",
                                               "###########"};
// kDoubleThree plus white O O O on column 7 (open rows 4..8, wall below):
// white's (5,7) is a four (five point (4,7), harmless for black) that also
// takes a point of the row's break set, so the double three is met by a
// counter-four and black has no VCT.
inline const std::vector<std::string> kDoubleThreeCounterFour = {"###########",
                                                          "###########",
                                                          "#####.#####",
                                                          "#####X#####",
                                                          "#####X#.###",
                                                          "##.XX...###",
                                                          "#####.#O###",
                                                          "#####.#O###",
                                                          "#######O###",
                                                          "###########",
                                                          "###########"};
// Two walled double threes of black, (4,4) and (10,10), on 15x15: white to
// move cannot stop both (and has no stone to counter with).
inline const std::vector<std::string> kTwoDoubleThrees = {"###############",
                                                   "####.##########",
                                                   "####X##########",
                                                   "####X##########",
                                                   "#.XX...########",
                                                   "####.##########",
                                                   "####.##########",
                                                   "##########.####",
                                                   "##########X####",
                                                   "##########X####",
                                                   "#######.XX...##",
                                                   "##########.####",
                                                   "##########.####",
                                                   "###############",
                                                   "###############"};
// White O . O on row 5 between two black columns X X X . X X whose gaps (5,4)
// and (5,8) are overline points for black under renju: white's three (5,6)
// can only be defended on those points, so it wins against renju black; under
// standard black may block there.
inline const std::vector<std::string> kWhiteThreeOnForbidden = {"...........",
                                                         "....O...O..",
                                                         "....X...X..",
                                                         "....X...X..",
                                                         "....X...X..",
                                                         ".....O.O...",
                                                         "....X...X..",
                                                         "....X...X..",
                                                         "....O...O..",
                                                         "...........",
                                                         "..........."};

}  // namespace gz::testing
