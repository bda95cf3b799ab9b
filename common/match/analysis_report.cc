#include "common/match/analysis_report.h"

#include <algorithm>
#include <cmath>


namespace gz {
namespace {

double WinRate(double q) { return std::clamp((q + 1.0) / 2.0, 0.0, 1.0); }

double LowerBound(double winrate, int visits) {
  if (visits <= 0) return 0.0;
  // A floor on the variance keeps a handful of equal results from looking certain.
  const double var = std::max(winrate * (1.0 - winrate), 0.01);
  return std::clamp(winrate - 1.96 * std::sqrt(var / visits), 0.0, 1.0);
}

}  // namespace

ProofInfo ProveLine(const Board& root, const std::vector<int>& line, bool win, ThreatSolver& solver,
                    int64_t vcf_nodes) {
  ProofInfo p;
  p.win = win;
  const int8_t winner = win ? root.to_move() : Opponent(root.to_move());
  Board b = root;
  for (int m : line) {
    if (b.terminal() || !b.IsLegal(m)) break;
    b.Play(m);
    p.line.push_back(m);
  }
  // A loser to move who faces a single four has one reply: part of the line.
  while (!b.terminal() && b.to_move() != winner) {
    const std::vector<int> five = FivePoints(b, winner);
    if (five.size() != 1 || !b.IsLegal(five[0])) break;
    b.Play(five[0]);
    p.line.push_back(five[0]);
  }
  p.plies = static_cast<int>(p.line.size());
  if (b.terminal()) return p;
  // The tail: the winner's continuous fours.  With the loser to move the
  // winner attacks after one more (any) loser move: one ply more.
  const VcfResult vcf = solver.Vcf(b, winner, vcf_nodes);
  if (!vcf.proven_win()) {
    p.complete = false;
    return p;
  }
  const int extra = b.to_move() == winner ? 0 : 1;
  const int len = static_cast<int>(vcf.line.size());
  bool five = false;
  if (len == 1 && extra == 0) {
    Board t = b;
    t.Play(vcf.line[0]);
    five = t.terminal();
  }
  // Each four but the last is answered; the last leaves two five points
  // (answered, then the five) unless it is the five itself.
  p.plies += extra + (five ? 1 : 2 * len + 1);
  if (extra == 0) p.line.insert(p.line.end(), vcf.line.begin(), vcf.line.end());
  return p;
}

TreeReport ReportTree(const Mcts& mcts, int pv_length) {
  TreeReport r;
  const Board& root = mcts.root_board();
  ThreatSolver solver;  // one table for every proof of this report
  r.root_visits = mcts.RootVisits();
  r.winrate = WinRate(mcts.RootValue());
  for (const Mcts::RootChild& c : mcts.RootChildren()) {
    if (c.visits <= 0 && c.proven == Proven::kNone) continue;
    MoveReport m;
    m.move = c.move;
    m.visits = c.visits;
    m.prior = c.prior;
    m.pv = mcts.PrincipalVariation(c.move, pv_length);
    if (m.pv.empty()) m.pv.push_back(c.move);
    if (c.proven != Proven::kNone) {
      m.proof = ProveLine(root, m.pv, c.proven == Proven::kWin, solver);
      m.winrate = m.lcb = m.proof->win ? 1.0 : 0.0;
    } else {
      m.winrate = WinRate(c.q);
      m.lcb = LowerBound(m.winrate, c.visits);
    }
    r.moves.push_back(std::move(m));
  }
  // A root proven won at its expansion has its winning move unvisited.
  if (const int win = mcts.ProvenMove(); win != kNoMove &&
      std::none_of(r.moves.begin(), r.moves.end(), [&](const MoveReport& m) { return m.move == win; })) {
    MoveReport m;
    m.move = win;
    m.pv = {win};
    m.proof = ProveLine(root, m.pv, true, solver);
    m.winrate = m.lcb = 1.0;
    for (const Mcts::RootChild& c : mcts.RootChildren())
      if (c.move == win) m.prior = c.prior;
    r.moves.push_back(std::move(m));
  }
  // Order by plain keys (rank: proven win, unproven, proven loss).
  struct Key {
    int rank, plies, visits, move;
    size_t index;
  };
  std::vector<Key> keys;
  for (size_t i = 0; i < r.moves.size(); ++i) {
    const MoveReport& m = r.moves[i];
    const int rank = !m.proof ? 1 : m.proof->win ? 0 : 2;
    keys.push_back({rank, rank == 0 ? m.proof->plies : 0, m.visits, m.move, i});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.plies != b.plies) return a.plies < b.plies;
    if (a.visits != b.visits) return a.visits > b.visits;
    return a.move < b.move;
  });
  std::vector<MoveReport> sorted;
  sorted.reserve(keys.size());
  for (const Key& k : keys) sorted.push_back(std::move(r.moves[k.index]));
  r.moves = std::move(sorted);
  const Proven rp = mcts.RootProven();
  if (rp != Proven::kNone) {
    const bool win = rp == Proven::kWin;
    // A won root's line starts with its shortest winning move; a lost one's
    // with the most visited (longest resistance the tree knows).
    std::vector<int> line;
    if (!r.moves.empty()) line = r.moves.front().pv;
    if (!win) {
      const auto best = std::max_element(r.moves.begin(), r.moves.end(), [](auto& a, auto& b) {
        return a.proof && b.proof ? a.proof->plies < b.proof->plies : a.visits < b.visits;
      });
      if (best != r.moves.end()) line = best->pv;
    }
    r.proof = ProveLine(root, line, win, solver);
    r.winrate = win ? 1.0 : 0.0;
  }
  return r;
}

TreeReport ShortcutReport(int move, bool wins, float value) {
  TreeReport r;
  MoveReport m;
  m.move = move;
  m.pv = {move};
  if (wins) {
    m.proof = ProofInfo{true, 1, true, {move}};
    r.proof = m.proof;
  }
  m.winrate = m.lcb = r.winrate = (value + 1.0) / 2.0;
  r.moves.push_back(m);
  return r;
}

}  // namespace gz
