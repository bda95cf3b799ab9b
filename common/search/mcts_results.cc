// Mcts: what a search gives back -- visit counts and training targets (with
// forced-playout pruning), root priors and value, the analysis views, the
// move pick -- and the tree's invariant check.
#include "common/search/mcts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "common/base/errors.h"

namespace gz {

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
