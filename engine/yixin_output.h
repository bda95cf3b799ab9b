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
// What is printed follows Yixin-Board's `INFO show_detail` bits (as Rapfi
// reads them): bit 1 the MESSAGE REALTIME marks, bit 2 the INFO blocks.  The
// original Yixin-Board sends 1 and takes every line it does not know (INFO
// ones included) for the engine's move; dhbloo's line sends 3.
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

constexpr int kShowRealtime = 1;  // INFO show_detail bit: MESSAGE REALTIME lines
constexpr int kShowDetail = 2;    // INFO show_detail bit: INFO PV blocks

class YixinReporter {
 public:
  // `size`: the board's side; `lines`: how many PV blocks (YXNBEST n, else 1);
  // `show`: the show_detail bits (kShowRealtime | kShowDetail).
  YixinReporter(int size, int lines, int show = kShowRealtime | kShowDetail)
      : size_(size), lines_(lines < 1 ? 1 : lines), show_(show) {}
  // The lines of one report of `r`, `seconds` into the search.
  std::vector<std::string> Lines(const TreeReport& r, double seconds);

 private:
  void Realtime(const TreeReport& r, int n, std::vector<std::string>& out);
  void Detail(const TreeReport& r, int n, double seconds, std::vector<std::string>& out) const;

  int size_;
  int lines_;
  int show_;
  bool first_ = true;
  int best_ = -1;
  std::vector<int> lost_;  // LOSE marks already sent
};

}  // namespace gz
