#include "common/search/node_solver.h"

#include <algorithm>
#include <utility>

#include "common/base/errors.h"

namespace gz {

namespace {
// Marks every point sharing a five-cell window with one of `points`.
void MarkWindows(int n, const std::vector<int>& points, std::vector<uint8_t>* zone) {
  static const int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (int p : points) {
    const int r = p / n, c = p % n;
    for (const auto& d : kSteps)
      for (int k = -4; k <= 4; ++k) {
        const int rr = r + k * d[0], cc = c + k * d[1];
        if (rr >= 0 && rr < n && cc >= 0 && cc < n) (*zone)[rr * n + cc] = 1;
      }
  }
}
}  // namespace

NodeSolver::NodeSolver(int64_t vcf_nodes, int64_t vct_nodes, ThreatSolverOptions options)
    // The VCT table is only allocated at full size when VCT is on.
    : solver_(options), vct_(VctSolverOptions{vct_nodes > 0 ? 16 : 4, 64}), vcf_nodes_(vcf_nodes), vct_nodes_(vct_nodes) {
  GOMOKU_CHECK(vcf_nodes >= 1, "mcts.solver_vcf_nodes must be >= 1, got " << vcf_nodes);
  GOMOKU_CHECK(vct_nodes >= 0, "mcts.solver_vct_nodes must be >= 0, got " << vct_nodes);
}

VctResult NodeSolver::Vct(const Board& board, int8_t attacker) {
  VctResult r = vct_.Vct(board, attacker, vct_nodes_);
  ++stats_.vct_queries;
  stats_.vct_nodes += r.nodes;
  return r;
}

VcfResult NodeSolver::Vcf(const Board& board, int8_t attacker) {
  VcfResult r = solver_.Vcf(board, attacker, vcf_nodes_);
  ++stats_.vcf_queries;
  stats_.vcf_nodes += r.nodes;
  return r;
}

std::vector<uint8_t> NodeSolver::RefutationZone(const Board& board, const std::vector<int>& line) {
  const int n = board.size();
  const int8_t s = board.to_move(), o = Opponent(s);
  std::vector<uint8_t> zone(board.num_points(), 0);
  if (board.rule() != Rule::kFreestyle && board.rule() != Rule::kStandard) {
    // Forbidden points depend on stones further away: no shortcut, query every move.
    std::fill(zone.begin(), zone.end(), 1);
    return zone;
  }
  // The line's points: o's moves, s's forced replies, o's final five points.
  std::vector<int> points;
  std::vector<int8_t> cells = board.cells();
  for (size_t i = 0; i < line.size(); ++i) {
    const int a = line[i];
    points.push_back(a);
    cells[a] = o;
    const Board after = Board::FromStones(n, board.rule(), cells, s, a);
    if (after.terminal()) break;
    const std::vector<int> fives = FivePoints(after, o);
    points.insert(points.end(), fives.begin(), fives.end());
    if (i + 1 < line.size() && fives.size() == 1) cells[fives[0]] = s;  // the forced reply
  }
  MarkWindows(n, points, &zone);
  for (const FourMove& f : FourMoves(board, s)) zone[f.move] = 1;
  return zone;
}

bool NodeSolver::VctNullMove(const Board& board, const std::vector<int>& line, NodeVerdict* v) {
  const int8_t s = board.to_move(), o = Opponent(s);
  ++stats_.vct_null_move_threats;
  std::vector<uint8_t> zone(board.num_points(), 0);
  MarkWindows(board.size(), line, &zone);
  for (const FourMove& f : FourMoves(board, s)) zone[f.move] = 1;
  // The queries share one budget (kVctNullMoveQueries full queries): a renju
  // position can have dozens of moves near the line, each query as dear as
  // the threat itself, and the root analysis must fit a 0.5 s move.  A move
  // left unqueried is kept, and the loss proof needs every move queried.
  const int64_t budget = kVctNullMoveQueries * vct_nodes_;
  int64_t spent = 0;
  auto refuted = [&](int m) {
    if (spent >= budget) return false;
    Board child = board;
    child.Play(m);
    if (child.terminal()) return false;
    const VctResult r = Vct(child, o);
    spent += r.nodes;
    return r.proven_win();
  };
  std::vector<int> kept, far;
  bool any_near_kept = false;
  for (int m : board.LegalMoves()) {
    if (!zone[m]) {
      far.push_back(m);
    } else if (!refuted(m)) {
      kept.push_back(m);
      any_near_kept = true;
    }
  }
  if (!any_near_kept) {
    // Every move near the line loses: ask the far ones too, for a loss proof.
    for (int m : far)
      if (!refuted(m)) kept.push_back(m);
  } else {
    kept.insert(kept.end(), far.begin(), far.end());  // unqueried: kept
  }
  std::sort(kept.begin(), kept.end());
  stats_.vct_null_move_nodes += spent;
  if (kept.empty()) {
    v->proven = Proven::kLoss;
    v->reason = "no_vct_refutation";
    ++stats_.proven_losses;
    return true;
  }
  if (kept.size() == board.LegalMoves().size()) return false;  // nothing dropped
  v->restricted = true;
  v->moves = std::move(kept);
  v->reason = "vct_null_move";
  ++stats_.restricted;
  return true;
}

NodeVerdict NodeSolver::Analyse(const Board& board, int ply) {
  GOMOKU_CHECK(!board.terminal(), "NodeSolver::Analyse on a finished game");
  ++stats_.analyses;
  const int8_t s = board.to_move(), o = Opponent(s);

  // 1, 3, 4. A five or a VCF of our own: Vcf answers both (a five point is a
  // one-move line), and starts with the forced block when o has one five
  // point (two or more: no VCF).
  const VcfResult mine = Vcf(board, s);
  if (mine.proven_win() && board.IsLegal(mine.line.front()))
    return Win(mine.line.front(), board.MakesFive(mine.line.front(), s) ? "five" : "vcf");
  // Caro (both rules): a five point can also be stopped at either end of its
  // run, so "block the five point" and "two five points lose" do not hold; the
  // solvers prove only fives there (threats.h "Caro").
  if (IsCaro(board.rule())) return NodeVerdict();
  // Renju one move before the draw at 25 empty points: whatever s plays (no
  // five, step 1) draws, so o's fives threaten nothing.
  if (board.moves_before_draw() < 2) return NodeVerdict();

  // 2, 3. The opponent's five points must be blocked.  Its VCF query finds
  // them too (a one-move line), so quiet positions cost two queries in all.
  const VcfResult threat = Vcf(board, o);
  if (!threat.proven_win()) return WithoutTheirVcf(board, ply);
  if (threat.line.size() == 1 && board.MakesFive(threat.line.front(), o)) return BlockFive(board);
  return NullMove(board, threat.line);
}

NodeVerdict NodeSolver::Win(int move, const char* reason) {
  NodeVerdict v;
  v.proven = Proven::kWin;
  v.win_move = move;
  v.restricted = true;
  v.moves = {move};
  v.reason = reason;
  ++stats_.proven_wins;
  return v;
}

NodeVerdict NodeSolver::Loss(std::vector<int> moves, const char* reason) {
  NodeVerdict v;
  v.proven = Proven::kLoss;
  v.restricted = !moves.empty();
  v.moves = std::move(moves);
  v.reason = reason;
  ++stats_.proven_losses;
  return v;
}

NodeVerdict NodeSolver::Restricted(std::vector<int> moves, const char* reason) {
  NodeVerdict v;
  v.restricted = true;
  v.moves = std::move(moves);
  v.reason = reason;
  ++stats_.restricted;
  return v;
}

NodeVerdict NodeSolver::WithoutTheirVcf(const Board& board, int ply) {
  const int8_t s = board.to_move(), o = Opponent(s);
  NodeVerdict v;
  // 6, 7. Threats with threes (o has no five point here: its VCF would be a one-move line).
  if (vct_nodes_ > 0 && ply <= kVctWinPlies) {
    const VctResult vct = Vct(board, s);
    if (vct.proven_win() && board.IsLegal(vct.line.front())) return Win(vct.line.front(), "vct");
  }
  if (vct_nodes_ > 0 && ply == 0) {
    const VctResult theirs = Vct(board, o);
    if (theirs.proven_win()) VctNullMove(board, theirs.line, &v);
  }
  return v;
}

NodeVerdict NodeSolver::BlockFive(const Board& board) {
  const std::vector<int> theirs = FivePoints(board, Opponent(board.to_move()));
  if (theirs.size() >= 2) {
    std::vector<int> legal;
    for (int p : theirs)
      if (board.IsLegal(p)) legal.push_back(p);
    return Loss(std::move(legal), "double_five");
  }
  const int block = theirs.front();
  if (!board.IsLegal(block)) return Loss({}, "block");
  return Restricted({block}, "block");
}

NodeVerdict NodeSolver::NullMove(const Board& board, const std::vector<int>& line) {
  const int8_t o = Opponent(board.to_move());
  ++stats_.null_move_threats;
  const std::vector<uint8_t> zone = RefutationZone(board, line);
  std::vector<int> kept;
  for (int m : board.LegalMoves()) {
    if (!zone[m]) continue;  // the line still wins after m
    Board child = board;
    child.Play(m);
    if (child.terminal()) {  // cannot happen (no five of ours), but a finished game is no loss
      kept.push_back(m);
      continue;
    }
    if (!Vcf(child, o).proven_win()) kept.push_back(m);
  }
  if (kept.empty()) return Loss({}, "no_refutation");
  return Restricted(std::move(kept), "null_move");
}

}  // namespace gz
