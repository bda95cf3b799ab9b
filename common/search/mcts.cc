#include "common/search/mcts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
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

void Mcts::Reset(const Board& root) {
  root_board_ = root;
  nodes_.clear();
  edges_.clear();
  nodes_.push_back(Node{});
  pending_ = false;
  sims_done_ = 0;
  // Outstanding batches (if any) refer to the old tree: ExpandAndBackupBatch refuses them.
  root_in_flight_ = 0;
  pending_leaves_ = 0;
  ++tree_epoch_;
}

int Mcts::CopySubtree(int idx, std::vector<Node>& dst_nodes, std::vector<Edge>& dst_edges) const {
  // Breadth-first copy; each node's edges stay contiguous and in order.
  const int new_root = static_cast<int>(dst_nodes.size());
  dst_nodes.push_back(nodes_[idx]);
  std::vector<std::pair<int, int>> queue{{idx, new_root}};
  for (size_t q = 0; q < queue.size(); ++q) {
    const auto [s, d] = queue[q];
    const Node& sn = nodes_[s];
    if (sn.first_edge < 0) continue;
    const int first = static_cast<int>(dst_edges.size());
    dst_nodes[d].first_edge = first;
    for (int k = 0; k < sn.num_edges; ++k) {
      Edge e = edges_[sn.first_edge + k];
      if (e.child >= 0) {
        const int copy = static_cast<int>(dst_nodes.size());
        dst_nodes.push_back(nodes_[e.child]);
        queue.emplace_back(e.child, copy);
        e.child = copy;
      }
      dst_edges.push_back(e);
    }
  }
  return new_root;
}

void Mcts::Advance(int move) {
  GOMOKU_CHECK(!pending_, "Advance with a pending evaluation");
  GOMOKU_CHECK(pending_leaves_ == 0, "Advance with " << pending_leaves_ << " batch leaves pending");
  root_board_.Play(move);  // throws RulesError if illegal
  ++tree_epoch_;
  sims_done_ = 0;
  int child = -1;
  if (params_.tree_reuse && !nodes_.empty() && nodes_[0].first_edge >= 0) {
    const Node& root = nodes_[0];
    for (int k = 0; k < root.num_visited; ++k)
      if (edges_[root.first_edge + k].move == move) child = edges_[root.first_edge + k].child;
  }
  if (child < 0 || root_board_.terminal()) {
    nodes_.clear();
    edges_.clear();
    nodes_.push_back(Node{});
    return;
  }
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  nodes.reserve(nodes_.size());
  edges.reserve(edges_.size());
  CopySubtree(child, nodes, edges);
  nodes_.swap(nodes);
  edges_.swap(edges);
  // VCT is asked at the search root only (NodeSolver steps 6-7), and the
  // reused root was analysed as a deeper node: ask again, and when VCT finds
  // something start from a fresh root, whose expansion gets the verdict.
  if (solver_ && params_.solver_vct_nodes > 0 && nodes_[0].proven == 0) {
    const std::string why = solver_->Analyse(root_board_, 0).reason;
    if (why == "vct" || why == "vct_null_move" || why == "no_vct_refutation") {
      nodes_.clear();
      edges_.clear();
      nodes_.push_back(Node{});
    }
  }
  // The new root's edges carry their network priors in order (the old root's
  // noise never reached this level); StartMove adds this move's noise.
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
    // Exact score.  The player who just moved (the leaf's mover) won or drew.
    Outcome o = leaf_board_.outcome();
    nodes_[node].terminal = static_cast<int8_t>(o);
    double v_mover = o == Outcome::kDraw ? 0.0 : 1.0;
    if (solver_ && o != Outcome::kDraw && nodes_[node].proven == 0) {
      nodes_[node].proven = -1;  // the side to move here has lost
      SolverBackup();
    }
    Backup(v_mover);
    ++sims_done_;
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

void Mcts::AddInFlight(const std::vector<int>& edges, int delta) {
  root_in_flight_ += delta;
  for (int e : edges) {
    const int v = edges_[e].in_flight + delta;
    GOMOKU_CHECK(v >= 0 && v <= INT16_MAX, "in-flight count out of range on an edge: " << v);
    edges_[e].in_flight = static_cast<int16_t>(v);
  }
}

int Mcts::DescendToLeaf(std::vector<int>& path, std::vector<int>& edges, Board& board) {
  path.assign(1, 0);
  edges.clear();
  board = root_board_;
  int node = 0;
  int incoming = root_in_flight_;  // in-flight count of the edge into `node`
  while (nodes_[node].expanded && nodes_[node].num_edges > 0) {
    if (nodes_[node].proven != 0 && node != 0) break;  // solver: a leaf with an exact value
    const int e = EnterEdge(node, SelectEdge(node, incoming));
    board.Play(edges_[e].move);
    edges.push_back(e);
    incoming = edges_[e].in_flight;
    node = edges_[e].child;
    path.push_back(node);
  }
  return incoming;
}

void Mcts::SelectLeaves(LeafBatch& batch, int max_leaves) {
  GOMOKU_CHECK(max_leaves >= 1, "SelectLeaves needs max_leaves >= 1, got " << max_leaves);
  GOMOKU_CHECK(!pending_, "SelectLeaves with a pending single-leaf evaluation");
  GOMOKU_CHECK(batch.size_ == 0, "SelectLeaves with a batch whose " << batch.size_ << " leaves are still pending");
  batch.exact_ = 0;
  batch.collisions_ = 0;
  batch.owner_ = this;
  batch.epoch_ = tree_epoch_;
  collided_edges_.clear();
  int collided_descents = 0;
  std::vector<int>& path = scratch_path_;
  std::vector<int>& edges = scratch_edges_;
  Board& board = scratch_board_;
  while (batch.size_ + batch.exact_ < max_leaves && batch.collisions_ < max_leaves) {
    if (MoveDone() || sims_done_ + pending_leaves_ >= move_simulations_) break;
    const int incoming = DescendToLeaf(path, edges, board);
    const int node = path.back();
    if (board.terminal()) {  // exact, as in SelectLeaf
      const Outcome o = board.outcome();
      nodes_[node].terminal = static_cast<int8_t>(o);
      const double v_mover = o == Outcome::kDraw ? 0.0 : 1.0;
      if (solver_ && o != Outcome::kDraw && nodes_[node].proven == 0) {
        nodes_[node].proven = -1;
        SolverBackup(path);
      }
      Backup(path, v_mover);
      ++sims_done_;
      ++batch.exact_;
      continue;
    }
    const bool proven_leaf = solver_ && nodes_[node].proven != 0 && node != 0;
    if (!proven_leaf && incoming > 0) {
      // Collision: this leaf is pending (here or in another batch).  Its
      // virtual loss steers the rest of this gather; reverted below.
      AddInFlight(edges, +1);
      collided_edges_.insert(collided_edges_.end(), edges.begin(), edges.end());
      collided_edges_.push_back(-1);  // separator
      ++collided_descents;
      ++batch.collisions_;
      if (node == 0) break;  // the root's own expansion is pending: nothing else to gather
      continue;
    }
    bool restricted = false;
    if (batch.size_ == static_cast<int>(batch.leaves_.size())) {
      batch.leaves_.emplace_back();
      batch.positions_.emplace_back();
    }
    LeafBatch::Leaf& leaf = batch.leaves_[batch.size_];
    leaf.moves.clear();
    if (solver_) {
      if (!nodes_[node].expanded && (nodes_[node].proven == 0 || node == 0)) {
        NodeVerdict v = solver_->Analyse(board, board.move_count() - root_board_.move_count());
        restricted = v.restricted;
        leaf.moves = std::move(v.moves);
        if (v.proven != Proven::kNone && nodes_[node].proven == 0) {
          nodes_[node].proven = v.proven == Proven::kWin ? 1 : -1;
          SolverBackup(path);
        }
      }
      if (nodes_[node].proven != 0 && node != 0) {
        Backup(path, nodes_[node].proven < 0 ? 1.0 : -1.0);
        ++sims_done_;
        ++batch.exact_;
        continue;
      }
    }
    leaf.restricted = restricted;
    leaf.path.assign(path.begin(), path.end());
    leaf.edges.assign(edges.begin(), edges.end());
    leaf.board = board;
    Position& pos = batch.positions_[batch.size_];
    pos.size = board.size();
    pos.cells.assign(board.cells().begin(), board.cells().end());
    pos.last_move = board.last_move();
    pos.to_move = board.to_move();
    pos.rule = board.rule();
    AddInFlight(edges, +1);
    ++batch.size_;
    ++pending_leaves_;
  }
  // Revert the collisions' virtual loss (exact: integer counts).
  root_in_flight_ -= collided_descents;
  for (size_t i = 0; i < collided_edges_.size(); ++i) {
    const int e = collided_edges_[i];
    if (e >= 0) edges_[e].in_flight = static_cast<int16_t>(edges_[e].in_flight - 1);
  }
  collided_edges_.clear();
}

void Mcts::ExpandAndBackupBatch(LeafBatch& batch, std::span<const EvalResult> results) {
  if (batch.size_ == 0) {
    GOMOKU_CHECK(results.empty(), "ExpandAndBackupBatch: " << results.size() << " results for an empty batch");
    return;
  }
  GOMOKU_CHECK(batch.owner_ == this && batch.epoch_ == tree_epoch_,
               "ExpandAndBackupBatch with a batch of another search or of a tree since reset");
  GOMOKU_CHECK(static_cast<int>(results.size()) == batch.size_,
               "ExpandAndBackupBatch: " << results.size() << " results for " << batch.size_ << " leaves");
  const int pts = root_board_.num_points();
  for (const EvalResult& r : results)
    GOMOKU_CHECK(static_cast<int>(r.log_policy.size()) == pts,
                 "evaluator returned " << r.log_policy.size() << " policy entries, expected " << pts);
  for (int i = 0; i < batch.size_; ++i) AddInFlight(batch.leaves_[i].edges, -1);
  for (int i = 0; i < batch.size_; ++i) {
    LeafBatch::Leaf& leaf = batch.leaves_[i];
    ExpandLeaf(leaf.path.back(), leaf.board, results[i], solver_ && leaf.restricted, leaf.moves);
    Backup(leaf.path, -static_cast<double>(results[i].value));
    ++sims_done_;
  }
  pending_leaves_ -= batch.size_;
  batch.size_ = 0;
}

void Mcts::CancelBatch(LeafBatch& batch) {
  if (batch.size_ == 0) return;
  if (batch.owner_ == this && batch.epoch_ == tree_epoch_) {
    for (int i = 0; i < batch.size_; ++i) AddInFlight(batch.leaves_[i].edges, -1);
    pending_leaves_ -= batch.size_;
  }
  batch.size_ = 0;
}

std::string Mcts::CheckTree() const {
  std::ostringstream why;
  if (root_in_flight_ != pending_leaves_)
    why << "root in flight " << root_in_flight_ << " but " << pending_leaves_ << " leaves pending";
  std::vector<int> incoming(nodes_.size(), 0);
  incoming[0] = root_in_flight_;
  for (size_t i = 0; i < nodes_.size() && why.str().empty(); ++i) {
    const Node& n = nodes_[i];
    if (!n.expanded || n.first_edge < 0) continue;
    int64_t child_visits = 0, out = 0;
    for (int k = 0; k < n.num_edges; ++k) {
      const Edge& e = edges_[n.first_edge + k];
      if ((k < n.num_visited) != (e.child >= 0)) {
        why << "node " << i << " edge " << k << ": child " << e.child << " with " << n.num_visited << " visited";
        break;
      }
      if (e.in_flight < 0 || (e.child < 0 && e.in_flight != 0)) {
        why << "node " << i << " edge " << k << ": in flight " << e.in_flight;
        break;
      }
      out += e.in_flight;
      if (e.child >= 0) {
        child_visits += nodes_[e.child].visits;
        incoming[e.child] = e.in_flight;
      }
    }
    if (!why.str().empty()) break;
    if (n.num_edges > 0 && out != incoming[i])
      why << "node " << i << ": " << incoming[i] << " in flight into it, " << out << " out of it";
    else if (n.num_edges > 0 && (n.proven == 0 ? n.visits != 1 + child_visits : n.visits < 1 + child_visits))
      why << "node " << i << " (proven " << int(n.proven) << "): " << n.visits << " visits, children " << child_visits;
  }
  return why.str();
}

void Mcts::SearchBatched(Evaluator& evaluator, bool add_noise, int max_leaves) {
  StartMove(add_noise);
  LeafBatch batch;
  std::vector<EvalResult> results;
  while (!MoveDone()) {
    SelectLeaves(batch, max_leaves);
    if (batch.empty()) continue;
    results.resize(batch.size());
    try {
      evaluator.Evaluate(batch.positions(), results);
    } catch (...) {
      CancelBatch(batch);
      throw;
    }
    ExpandAndBackupBatch(batch, results);
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

std::vector<int> Mcts::VisitCounts() const {
  std::vector<int> v(root_board_.num_points(), 0);
  if (const int win = ProvenMove(); win != kNoMove) {
    v[win] = 1;
    return v;
  }
  const Node& root = nodes_[0];
  for (int k = 0; k < root.num_visited; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    v[e.move] = nodes_[e.child].visits;
  }
  // A budget of one simulation only expands a fresh root: the move is then
  // the one a second simulation would visit, the best prior (edge 0 while
  // none is visited, by the edge-order invariant).
  if (root.num_visited == 0 && root.num_edges > 0) v[edges_[root.first_edge].move] = 1;
  return v;
}

std::vector<int> Mcts::PruneForcedVisits(const std::vector<ChildStats>& children, double c_puct, int parent_visits,
                                         int total, float k) {
  std::vector<int> out(children.size(), 0);
  if (children.empty()) return out;
  size_t best = 0;
  for (size_t i = 0; i < children.size(); ++i) {
    out[i] = children[i].visits;
    const ChildStats& c = children[i];
    const ChildStats& b = children[best];
    if (c.visits > b.visits || (c.visits == b.visits && c.move < b.move)) best = i;
  }
  const double c_sqrt_n = c_puct * std::sqrt(static_cast<double>(std::max(parent_visits, 1)));
  auto puct = [&](const ChildStats& c, int visits) { return c.q + c_sqrt_n * c.prior / (1.0 + visits); };
  const double best_puct = puct(children[best], children[best].visits);
  for (size_t i = 0; i < children.size(); ++i) {
    const ChildStats& c = children[i];
    if (i == best || c.visits <= 0) continue;
    const int forced = static_cast<int>(std::floor(k * std::sqrt(static_cast<double>(c.prior) * total)));
    int d = 0;
    while (d < forced && d < c.visits && puct(c, c.visits - d - 1) < best_puct) ++d;
    int left = c.visits - d;
    if (d > 0 && left <= 1) left = 0;  // reduced to a single visit: dropped (KataGo)
    out[i] = left;
  }
  return out;
}

std::vector<int> Mcts::PrunedVisitCounts() const {
  std::vector<int> v = VisitCounts();
  if (!forced_active_ || ProvenMove() != kNoMove) return v;
  const Node& root = nodes_[0];
  if (root.num_visited == 0) return v;
  std::vector<ChildStats> children;
  int total = 0;
  for (int k = 0; k < root.num_visited; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    const Node& c = nodes_[e.child];
    if (c.visits <= 0) continue;
    children.push_back({c.visits, c.value_sum / c.visits, e.prior, e.move});
    total += c.visits;
  }
  const std::vector<int> pruned = PruneForcedVisits(children, params_.c_puct, root.visits, total,
                                                    params_.forced_playouts_k);
  for (size_t i = 0; i < children.size(); ++i) v[children[i].move] = pruned[i];
  return v;
}

std::vector<float> Mcts::RootPriors(bool raw) const {
  std::vector<float> p(root_board_.num_points(), 0.0f);
  const Node& root = nodes_[0];
  if (root.first_edge < 0) return p;
  for (int k = 0; k < root.num_edges; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    p[e.move] = raw ? e.raw_prior : e.prior;
  }
  return p;
}

std::vector<float> Mcts::VisitDistribution() const {
  std::vector<int> counts = VisitCounts();
  double total = 0;
  for (int c : counts) total += c;
  std::vector<float> d(counts.size(), 0.0f);
  if (total <= 0) return d;
  for (size_t i = 0; i < counts.size(); ++i) d[i] = static_cast<float>(counts[i] / total);
  return d;
}

float Mcts::RootValue() const {
  const Node& root = nodes_[0];
  if (root.proven != 0) return root.proven > 0 ? 1.0f : -1.0f;
  if (root.visits == 0) return 0.0f;
  // root.value_sum is from the view of the player before the root.
  return static_cast<float>(std::clamp(-root.value_sum / root.visits, -1.0, 1.0));
}

int Mcts::RootVisits() const { return nodes_[0].visits; }

std::vector<Mcts::RootChild> Mcts::RootChildren() const {
  std::vector<RootChild> out;
  const Node& root = nodes_[0];
  if (!root.expanded || root.first_edge < 0) return out;
  out.reserve(static_cast<size_t>(root.num_edges));
  for (int k = 0; k < root.num_edges; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    RootChild c;
    c.move = e.move;
    c.prior = e.raw_prior;
    if (e.child >= 0) {
      const Node& n = nodes_[e.child];
      c.visits = n.visits;
      // n.value_sum is from the view of the player who moved into n: the root's side to move.
      c.q = n.visits > 0 ? n.value_sum / n.visits : 0.0;
      // n.proven is for the side to move at n, the root's opponent.
      c.proven = n.proven < 0 ? Proven::kWin : n.proven > 0 ? Proven::kLoss : Proven::kNone;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<int> Mcts::PrincipalVariation(int first, int max_length) const {
  std::vector<int> line;
  const Node& root = nodes_[0];
  if (!root.expanded || max_length <= 0) return line;
  // The child of `node` the line follows: -1 when it has no visited child.
  auto next = [&](int node, int want) {
    const Node& n = nodes_[node];
    int best = -1;
    for (int k = 0; k < n.num_visited; ++k) {
      const int e = n.first_edge + k;
      const Node& c = nodes_[edges_[e].child];
      if (want != kNoMove) {
        if (edges_[e].move == want) return e;
        continue;
      }
      if (c.visits <= 0 && !(n.proven > 0 && c.proven < 0)) continue;
      if (best < 0) {
        best = e;
        continue;
      }
      const Node& b = nodes_[edges_[best].child];
      // A proven-won node follows its winning child.
      const bool c_wins = n.proven > 0 && c.proven < 0, b_wins = n.proven > 0 && b.proven < 0;
      if (c_wins != b_wins) {
        if (c_wins) best = e;
        continue;
      }
      if (c.visits > b.visits || (c.visits == b.visits && edges_[e].move < edges_[best].move)) best = e;
    }
    return want != kNoMove ? -1 : best;
  };
  int node = 0;
  int e = next(0, first);
  while (e >= 0 && static_cast<int>(line.size()) < max_length) {
    line.push_back(edges_[e].move);
    node = edges_[e].child;
    if (!nodes_[node].expanded) break;
    e = next(node, kNoMove);
  }
  return line;
}

int Mcts::ExcludeRootMoves(const std::vector<int>& moves) {
  GOMOKU_CHECK(pending_leaves_ == 0 && !pending_, "ExcludeRootMoves with leaves pending");
  Node& root = nodes_[0];
  GOMOKU_CHECK(root.expanded, "ExcludeRootMoves before the root is expanded");
  auto excluded = [&](const Edge& e) { return std::find(moves.begin(), moves.end(), e.move) != moves.end(); };
  std::vector<Edge> visited, unvisited, removed;
  for (int k = 0; k < root.num_edges; ++k) {
    const Edge& e = edges_[root.first_edge + k];
    (excluded(e) ? removed : e.child >= 0 ? visited : unvisited).push_back(e);
  }
  const int left = static_cast<int>(visited.size() + unvisited.size());
  if (removed.empty() || left == 0) return left;
  for (const Edge& e : removed)
    if (e.child >= 0) {
      // The root's totals hold each child's backups negated (its own view).
      root.visits -= nodes_[e.child].visits;
      root.value_sum += nodes_[e.child].value_sum;
    }
  // Kept visited edges first (the visited prefix), then the kept unvisited
  // ones; the removed edges stay behind num_edges, unreachable.
  int k = root.first_edge;
  for (const auto* part : {&visited, &unvisited, &removed})
    for (const Edge& e : *part) edges_[k++] = e;
  root.num_edges = static_cast<int16_t>(left);
  root.num_visited = static_cast<int16_t>(visited.size());
  PromoteBestUnvisited(0);
  bool won = false, all_lost = unvisited.empty();
  for (const Edge& e : visited) {
    won = won || nodes_[e.child].proven < 0;
    all_lost = all_lost && nodes_[e.child].proven > 0;
  }
  // A loss stays a loss (every move lost, so does every subset).
  root.proven = won ? 1 : (root.proven < 0 || all_lost) ? -1 : 0;
  return left;
}

int PickMove(const std::vector<int>& visits, float tau, std::mt19937_64& rng) {
  int best = -1;
  for (size_t i = 0; i < visits.size(); ++i)
    if (visits[i] > 0 && (best < 0 || visits[i] > visits[best])) best = static_cast<int>(i);
  GOMOKU_CHECK(best >= 0, "no visited move to pick");
  if (tau <= 0.05f) return best;
  std::vector<double> w(visits.size(), 0.0);
  double inv = 1.0 / tau;
  for (size_t i = 0; i < visits.size(); ++i)
    if (visits[i] > 0) w[i] = std::pow(static_cast<double>(visits[i]) / visits[best], inv);
  std::discrete_distribution<int> dist(w.begin(), w.end());
  return dist(rng);
}

}  // namespace gz
