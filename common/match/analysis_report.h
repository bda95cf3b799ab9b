// What a search tree says about its root position, in the terms players use:
// candidate moves with visits, win rates, priors and lines, and proofs.
// Shared by the Yixin-Board output of the Gomocup engine (gomocup_session.h)
// and the JSON analysis engine (analysis_engine.h), so both report the same
// numbers for the same tree.  Read-only over an Mcts (its analysis views,
// common/search/mcts.h); no network, no I/O.
//
// Proofs: the threat solver (mcts.solver) proves wins and losses exactly.  A
// proven result is reported as a ProofInfo -- who wins and in how many plies
// along the line the engine holds -- never as a win rate.  The distance is
// the tree's proven line plus, where it ends in a position the solver proved
// by continuous fours, that VCF's length (ThreatSolver); when the tail is not
// a VCF (a VCT or a refutation proof) `complete` is false and `plies` counts
// the part that is known.  It is the length of the line found, not
// necessarily the shortest win.
// Thread-safety: none (the caller holds whatever guards the tree).
#pragma once

#include <optional>
#include <vector>

#include "common/game/board.h"
#include "common/game/threats.h"
#include "common/search/mcts.h"

namespace gz {

struct ProofInfo {
  bool win = false;       // the side to move at the reported position wins (else loses)
  int plies = 0;          // moves of both sides until the five, along `line` and its VCF tail
  bool complete = true;   // false: the tail of the proof is not a VCF, `plies` is a lower bound
  // The proven line from the position: the tree part, forced replies to a
  // four, then the VCF when found, up to the winner's last threat.
  std::vector<int> line;
};

struct MoveReport {
  int move = kNoMove;
  int visits = 0;
  double winrate = 0.5;  // for the side to move at the root, [0, 1] (1 / 0 when proven)
  float prior = 0.0f;    // the network's prior of the move
  double lcb = 0.0;      // winrate less 1.96 standard errors (normal approximation), [0, 1]
  std::vector<int> pv;   // starts with `move`
  std::optional<ProofInfo> proof;  // playing `move` is proven to win / lose
};

struct TreeReport {
  int root_visits = 0;
  double winrate = 0.5;  // the root's value for its side to move, [0, 1]
  std::optional<ProofInfo> proof;
  // Visited root moves, best first: proven wins (shortest first), then by
  // visits (ties to the lowest point), proven losses last.
  std::vector<MoveReport> moves;
};

// Reports the tree's root (`mcts.root_board()`).  pv_length bounds each line.
TreeReport ReportTree(const Mcts& mcts, int pv_length = 20);

// The report of a move no tree stands behind (an immediate win, a forced
// block, a player without a tree): that move alone, with `value` ([-1, 1],
// for the side to move) as its win rate, and the one-ply proof when `wins`.
TreeReport ShortcutReport(int move, bool wins, float value);

// The proof of `line` from `root` where the side to move at `root` wins
// (`win`) or loses: `line` played, then the winner's VCF if one is found
// within `vcf_nodes` attacker nodes (by `solver`, whose table a report's
// proofs share).
ProofInfo ProveLine(const Board& root, const std::vector<int>& line, bool win, ThreatSolver& solver,
                    int64_t vcf_nodes = 20000);

}  // namespace gz
