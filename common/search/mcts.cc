// Mcts: the tree, PUCT selection, expansion (with the node solver's verdict)
// and backup, one leaf at a time.  The batched descent, tree reuse and the
// results live beside it (mcts_batch.cc, mcts_reuse.cc, mcts_results.cc).
#include "common/search/mcts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "common/base/errors.h"

namespace gz {

namespace {
// Renju, black to move: `legal` becomes the board's legal moves (the empty
// points less black's forbidden ones, ascending); returns their largest
// log-prior.
[[gnu::noinline]] float KeepLegalForBlack(const Board& board, const float* logp, std::vector<int>& legal) {
  legal = board.LegalMoves();
  float mx = -1e30f;
  for (int m : legal) mx = std::max(mx, logp[m]);
  return mx;
}
}  // namespace

Mcts::Mcts(const MctsParams& params, uint64_t seed) : params_(params), rng_(seed), root_board_(15) {
  GOMOKU_CHECK(params.simulations >= 1, "mcts.simulations must be >= 1");
  static_assert(sizeof(Node) == 24, "the solver flag lives in the node's padding");
  static_assert(sizeof(Edge) == 16, "the in-flight count lives in the edge's padding");
  if (params.solver) solver_ = SolverSlot(params.solver_vcf_nodes, params.solver_vct_nodes);
  move_simulations_ = params.simulations;
  nodes_.push_back(Node{});  // a root, so that MoveDone and RootProven are defined before Reset
}

int Mcts::EnterEdge(int node, int e) {
  if (edges_[e].child >= 0) return e;
  // First visit of the best unvisited edge (or of a forced one, moved into
  // the best unvisited edge's place): give it a node and line up the next one.
  const int slot = nodes_[node].first_edge + nodes_[node].num_visited;
  if (e != slot) {
    std::swap(edges_[e], edges_[slot]);
    e = slot;
  }
  edges_[e].child = static_cast<int>(nodes_.size());
  nodes_.push_back(Node{});
  ++nodes_[node].num_visited;
  PromoteBestUnvisited(node);  // touches only edges after e
  return e;
}

void Mcts::PromoteBestUnvisited(int node) {
  const Node& n = nodes_[node];
  const int begin = n.first_edge + n.num_visited, end = n.first_edge + n.num_edges;
  if (begin >= end) return;
  int best = begin;
  for (int e = begin + 1; e < end; ++e) {
    const Edge& c = edges_[e];
    const Edge& b = edges_[best];
    if (c.prior > b.prior || (c.prior == b.prior && c.move < b.move)) best = e;
  }
  if (best != begin) std::swap(edges_[best], edges_[begin]);
}

void Mcts::ResetRootPriors(bool add_noise) {
  Node& root = nodes_[0];
  if (root.first_edge < 0) return;
  Edge* edges = edges_.data() + root.first_edge;
  const int n = root.num_edges;
  for (int k = 0; k < n; ++k) edges[k].prior = edges[k].raw_prior;
  const float alpha = NoiseAlpha(n);
  if (add_noise && alpha > 0 && params_.dirichlet_epsilon > 0) {
    // Noise is drawn in ascending move order, whatever order the edges are in.
    std::vector<std::pair<int16_t, int>> by_move(n);
    for (int k = 0; k < n; ++k) by_move[k] = {edges[k].move, k};
    std::sort(by_move.begin(), by_move.end());
    std::gamma_distribution<double> gamma(alpha, 1.0);
    std::vector<double> noise(n);
    double sum = 0;
    for (auto& x : noise) sum += (x = gamma(rng_));
    if (sum > 0)
      for (int i = 0; i < n; ++i) {
        Edge& e = edges[by_move[i].second];
        e.prior = static_cast<float>((1 - params_.dirichlet_epsilon) * e.raw_prior +
                                     params_.dirichlet_epsilon * noise[i] / sum);
      }
  }
  PromoteBestUnvisited(0);
}

void Mcts::StartMove(bool add_noise) { StartMove(add_noise, params_.simulations); }

void Mcts::StartMove(bool add_noise, int simulations) {
  GOMOKU_CHECK(!root_board_.terminal(), "search on a finished game");
  GOMOKU_CHECK(!pending_, "StartMove with a pending evaluation");
  GOMOKU_CHECK(pending_leaves_ == 0, "StartMove with " << pending_leaves_ << " batch leaves pending");
  GOMOKU_CHECK(simulations >= 1, "a move's search needs at least one simulation, got " << simulations);
  sims_done_ = 0;
  move_simulations_ = simulations;
  forced_active_ = add_noise && params_.forced_playouts_k > 0 && params_.dirichlet_epsilon > 0 &&
                   (params_.dirichlet_alpha > 0 || params_.dirichlet_alpha_scaled > 0);
  if (nodes_[0].expanded) {
    ResetRootPriors(add_noise);
    noise_pending_ = false;
  } else {
    noise_pending_ = add_noise;  // applied when the root gets expanded
  }
}

double Mcts::UnvisitedQ(int node) const {
  const Node& n = nodes_[node];
  const float reduction = node == 0 ? params_.fpu_reduction_root : params_.fpu_reduction;
  if (reduction <= 0 || n.visits <= 0) return params_.fpu_value;
  // n.value_sum is from the view of the player who moved into n; its
  // children's Q are from the view of the side to move at n.
  return -n.value_sum / n.visits - reduction;
}

int Mcts::ForcedRootEdge() const {
  const Node& root = nodes_[0];
  int total = 0;
  for (int k = 0; k < root.num_visited; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    total += nodes_[e.child].visits + e.in_flight;
  }
  if (total <= 0) return -1;
  int best = -1;
  for (int e = root.first_edge; e < root.first_edge + root.num_edges; ++e) {
    const Edge& edge = edges_[e];
    const int visits = (edge.child >= 0 ? nodes_[edge.child].visits : 0) + edge.in_flight;
    if (visits >= ForcedPlayouts(edge.prior, total)) continue;
    if (best < 0 || edge.prior > edges_[best].prior || (edge.prior == edges_[best].prior && edge.move < edges_[best].move))
      best = e;
  }
  return best;
}

int Mcts::SelectEdge(int node, int parent_in_flight) const {
  const Node& n = nodes_[node];
  if (node == 0 && forced_active_)
    if (const int forced = ForcedRootEdge(); forced >= 0) return forced;
  // Virtual loss (batch API): each in-flight descent counts as a visit of
  // the parent and as a lost visit of the child.  Without any in flight this
  // is the plain formula, bit for bit.
  const double sqrt_n = std::sqrt(static_cast<double>(std::max(n.visits + parent_in_flight, 1)));
  const double c_sqrt_n = params_.c_puct * sqrt_n;
  const double fpu = UnvisitedQ(node);
  const int end = n.first_edge + std::min<int>(n.num_visited + 1, n.num_edges);
  int best = -1;
  int best_move = 1 << 30;
  double best_score = -1e300;
  for (int e = n.first_edge; e < end; ++e) {
    const Edge& edge = edges_[e];
    double s = fpu + c_sqrt_n * edge.prior;  // unvisited
    if (edge.child >= 0) {
      const Node& c = nodes_[edge.child];
      if (edge.in_flight == 0) {
        if (c.visits > 0) s = c.value_sum / c.visits + c_sqrt_n * edge.prior / (1.0 + c.visits);
      } else {
        const int vn = c.visits + edge.in_flight;
        s = (c.value_sum - edge.in_flight) / vn + c_sqrt_n * edge.prior / (1.0 + vn);
      }
    }
    if (s > best_score || (s == best_score && edge.move < best_move)) {
      best_score = s;
      best = e;
      best_move = edge.move;
    }
  }
  return best;
}

const Position* Mcts::SelectLeaf() {
  GOMOKU_CHECK(!pending_, "SelectLeaf with a pending evaluation");
  GOMOKU_CHECK(pending_leaves_ == 0, "SelectLeaf with " << pending_leaves_ << " batch leaves pending");
  path_.clear();
  path_.push_back(0);
  leaf_board_ = root_board_;
  int node = 0;
  while (nodes_[node].expanded && nodes_[node].num_edges > 0) {
    if (nodes_[node].proven != 0 && node != 0) break;  // solver: a leaf with an exact value
    const int e = EnterEdge(node, SelectEdge(node));
    leaf_board_.Play(edges_[e].move);
    node = edges_[e].child;
    path_.push_back(node);
  }
  if (leaf_board_.terminal()) {
    BackupTerminal(path_, leaf_board_);
    return nullptr;
  }
  if (solver_) {
    Node& n = nodes_[node];
    // A node is analysed when it is about to be expanded; the root always
    // (it needs its children even when proven), others only while unproven.
    if (!n.expanded && (n.proven == 0 || node == 0)) {
      NodeVerdict v = solver_->Analyse(leaf_board_, leaf_board_.move_count() - root_board_.move_count());
      pending_restricted_ = v.restricted;
      pending_moves_ = std::move(v.moves);
      if (v.proven != Proven::kNone && n.proven == 0) {
        n.proven = v.proven == Proven::kWin ? 1 : -1;
        SolverBackup();
      }
    }
    if (n.proven != 0 && node != 0) {
      // Exact: the leaf's mover wins when the side to move here loses.
      Backup(n.proven < 0 ? 1.0 : -1.0);
      ++sims_done_;
      return nullptr;
    }
  }
  leaf_position_.size = leaf_board_.size();
  leaf_position_.cells.assign(leaf_board_.cells().begin(), leaf_board_.cells().end());
  leaf_position_.last_move = leaf_board_.last_move();
  leaf_position_.to_move = leaf_board_.to_move();
  leaf_position_.rule = leaf_board_.rule();  // the encoder's renju plane
  pending_ = true;
  return &leaf_position_;
}

void Mcts::ExpandAndBackup(const EvalResult& result) {
  GOMOKU_CHECK(pending_, "ExpandAndBackup without a pending leaf");
  const int pts = leaf_board_.num_points();
  GOMOKU_CHECK(static_cast<int>(result.log_policy.size()) == pts,
               "evaluator returned " << result.log_policy.size() << " policy entries, expected " << pts);
  pending_ = false;
  const bool restricted = solver_ && pending_restricted_;
  pending_restricted_ = false;
  ExpandLeaf(path_.back(), leaf_board_, result, restricted, pending_moves_);
  // value is for the leaf's side to move; the leaf's mover sees the negation.
  Backup(-static_cast<double>(result.value));
  ++sims_done_;
}

void Mcts::ExpandLeaf(int leaf, const Board& board, const EvalResult& result, bool restricted,
                      const std::vector<int>& moves) {
  const int pts = board.num_points();
  ++evaluations_;
  last_generation_ = result.model_generation;
  // Softmax over legal moves only.
  std::vector<int>& legal = scratch_legal_;
  legal.clear();
  const int8_t* cells = board.cells().data();
  const float* logp = result.log_policy.data();
  float mx = -1e30f;
  if (restricted) {
    for (int m : moves) {  // the solver's forced moves (legal, ascending)
      legal.push_back(m);
      mx = std::max(mx, logp[m]);
    }
  } else {
    for (int m = 0; m < pts; ++m)
      if (cells[m] == kEmpty) {
        legal.push_back(m);
        mx = std::max(mx, logp[m]);
      }
    // Renju: black's forbidden points are no children.  Out of line: a branch
    // inside the loop above cost the freestyle search 20% (bench_mcts).
    if (board.rule() == Rule::kRenju && board.to_move() == kBlack) [[unlikely]]
      mx = KeepLegalForBlack(board, logp, legal);
  }
  const int n = static_cast<int>(legal.size());
  std::vector<float>& pri = scratch_prior_;
  pri.resize(n);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += (pri[i] = std::exp(logp[legal[i]] - mx));
  const double inv_sum = sum > 0 ? 1.0 / sum : 0.0;
  const int first = static_cast<int>(edges_.size());
  if (edges_.capacity() < edges_.size() + n)
    edges_.reserve(std::max(edges_.capacity() * 2, edges_.size() + static_cast<size_t>(n) * 64));
  for (int i = 0; i < n; ++i) {
    const float p = static_cast<float>(sum > 0 ? pri[i] * inv_sum : 1.0 / n);
    edges_.push_back(Edge{p, p, -1, static_cast<int16_t>(legal[i])});
  }
  Node& ln = nodes_[leaf];
  ln.first_edge = first;
  ln.num_edges = static_cast<int16_t>(n);
  ln.num_visited = 0;
  ln.expanded = true;
  if (leaf == 0) {
    ResetRootPriors(noise_pending_);
    noise_pending_ = false;
  } else {
    PromoteBestUnvisited(leaf);
  }
}

void Mcts::SolverBackup(const std::vector<int>& path) {
  for (int i = static_cast<int>(path.size()) - 2; i >= 0; --i) {
    Node& p = nodes_[path[i]];
    const Node& c = nodes_[path[i + 1]];
    if (p.proven != 0) return;
    if (c.proven < 0) {
      p.proven = 1;
      continue;
    }
    if (c.proven == 0 || p.num_visited < p.num_edges) return;
    for (int k = 0; k < p.num_edges; ++k)
      if (nodes_[edges_[p.first_edge + k].child].proven <= 0) return;
    p.proven = -1;
  }
}

Proven Mcts::RootProven() const {
  const int8_t p = nodes_[0].proven;
  return p > 0 ? Proven::kWin : p < 0 ? Proven::kLoss : Proven::kNone;
}

int Mcts::ProvenMove() const {
  const Node& root = nodes_[0];
  if (root.proven <= 0 || !root.expanded || root.num_edges == 0) return kNoMove;
  int best = kNoMove;
  for (int k = 0; k < root.num_visited; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    if (nodes_[e.child].proven < 0 && (best == kNoMove || e.move < best)) best = e.move;
  }
  if (best == kNoMove && root.num_edges == 1) best = edges_[root.first_edge].move;
  return best;
}

void Mcts::BackupTerminal(const std::vector<int>& path, const Board& board) {
  // Exact score.  The player who just moved (the leaf's mover) won or drew.
  const int node = path.back();
  const Outcome o = board.outcome();
  nodes_[node].terminal = static_cast<int8_t>(o);
  const double v_mover = o == Outcome::kDraw ? 0.0 : 1.0;
  if (solver_ && o != Outcome::kDraw && nodes_[node].proven == 0) {
    nodes_[node].proven = -1;  // the side to move here has lost
    SolverBackup(path);
  }
  Backup(path, v_mover);
  ++sims_done_;
}

void Mcts::Backup(const std::vector<int>& path, double v_mover) {
  double v = v_mover;
  for (int i = static_cast<int>(path.size()) - 1; i >= 0; --i) {
    Node& n = nodes_[path[i]];
    n.visits += 1;
    n.value_sum += v;
    v = -v;
  }
}

void Mcts::Search(Evaluator& evaluator, bool add_noise) {
  StartMove(add_noise);
  EvalResult res;
  while (!MoveDone()) {
    const Position* leaf = SelectLeaf();
    if (!leaf) continue;
    evaluator.Evaluate(std::span<const Position>(leaf, 1), std::span<EvalResult>(&res, 1));
    ExpandAndBackup(res);
  }
}

}  // namespace gz
