// The analysis lines Yixin-Board reads while an engine thinks (its main.c,
// and the engines that speak to it): board marks and the structured
// principal-variation block.  One YixinReporter per search.
//
//   MESSAGE REALTIME REFRESH            first report of a search: clear the marks
//   MESSAGE REALTIME POS X,Y            a candidate is being searched ...
//   MESSAGE REALTIME DONE X,Y           ... and has a result (one pair per reported line)
//   MESSAGE REALTIME LOSE X,Y           the move is proven to lose (once per move)
//   MESSAGE REALTIME BEST X,Y           the best move changed
//   INFO PV i / INFO NUMPV n / INFO DEPTH d / INFO SELDEPTH d / INFO NODES v /
//   INFO TOTALNODES v / INFO TOTALTIME ms / INFO SPEED v / INFO EVAL e /
//   INFO WINRATE w / INFO BESTLINE X,Y X,Y ... / INFO PV DONE
//                                       one block per line i = 0..n-1, best first
//
// EVAL is a score for the side to move: 600 * ln(w / (1 - w)) of the win
// rate w, clamped to +-20000, or `+M<plies>` / `-M<plies>` when the move is
// proven to win / lose (ProofInfo::plies), with WINRATE 1 / 0: a proof is
// never shown as a win rate short of certain.  DEPTH is the length of the
// line.  Coordinates are the protocol's X,Y in the order the GUI sent them
// (Yixin-Board sends row,col: the engine's board is the GUI's transposed,
// and every coordinate it returns -- moves, lines, FORBID -- is transposed
// back the same way, so both agree; docs/engine.md "Analysis").
// Thread-safety: none.
#pragma once

#include <string>
#include <vector>

#include "common/match/analysis_report.h"

namespace gz {

// Yixin's score of a win rate in [0, 1] (see above).
int YixinEval(double winrate);
// "+M7" / "-M7" for a proof, else the score of the win rate.
std::string YixinEvalText(const MoveReport& m);

class YixinReporter {
 public:
  // `size`: the board's side; `lines`: how many PV blocks (YXNBEST n, else 1).
  YixinReporter(int size, int lines) : size_(size), lines_(lines < 1 ? 1 : lines) {}
  // The lines of one report of `r`, `seconds` into the search.
  std::vector<std::string> Lines(const TreeReport& r, double seconds);

 private:
  int size_;
  int lines_;
  bool first_ = true;
  int best_ = -1;
  std::vector<int> lost_;  // LOSE marks already sent
};

}  // namespace gz
