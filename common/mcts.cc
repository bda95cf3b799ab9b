#include "common/mcts.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace gz {

Mcts::Mcts(const MctsParams& params, uint64_t seed) : params_(params), rng_(seed), root_board_(15) {
  GOMOKU_CHECK(params.simulations >= 1, "mcts.simulations must be >= 1");
}

void Mcts::Reset(const Board& root) {
  root_board_ = root;
  nodes_.clear();
  nodes_.push_back(Node{});
  pending_ = false;
  sims_done_ = 0;
}

int Mcts::CopySubtree(const std::vector<Node>& src, int idx, std::vector<Node>& dst) {
  // Breadth-first copy keeping children contiguous.
  int new_root = static_cast<int>(dst.size());
  dst.push_back(src[idx]);
  std::vector<std::pair<int, int>> queue{{idx, new_root}};
  for (size_t q = 0; q < queue.size(); ++q) {
    auto [s, d] = queue[q];
    const Node& sn = src[s];
    if (sn.num_children == 0) {
      dst[d].first_child = -1;
      continue;
    }
    int first = static_cast<int>(dst.size());
    dst[d].first_child = first;
    for (int k = 0; k < sn.num_children; ++k) dst.push_back(src[sn.first_child + k]);
    for (int k = 0; k < sn.num_children; ++k) queue.emplace_back(sn.first_child + k, first + k);
  }
  return new_root;
}

void Mcts::Advance(int move) {
  GOMOKU_CHECK(!pending_, "Advance with a pending evaluation");
  root_board_.Play(move);  // throws RulesError if illegal
  sims_done_ = 0;
  int child = -1;
  const Node& root = nodes_.empty() ? Node{} : nodes_[0];
  if (params_.tree_reuse && !nodes_.empty())
    for (int k = 0; k < root.num_children; ++k)
      if (nodes_[root.first_child + k].move == move) child = root.first_child + k;
  if (child < 0 || root_board_.terminal()) {
    nodes_.clear();
    nodes_.push_back(Node{});
    return;
  }
  std::vector<Node> fresh;
  fresh.reserve(nodes_.size());
  CopySubtree(nodes_, child, fresh);
  for (int k = 0; k < fresh[0].num_children; ++k) {
    Node& c = fresh[fresh[0].first_child + k];
    c.prior = c.raw_prior;  // drop the previous root's noise one level down? it was never applied here
  }
  fresh[0].prior = fresh[0].raw_prior;
  nodes_.swap(fresh);
}

void Mcts::ApplyRootNoise() {
  Node& root = nodes_[0];
  if (root.num_children == 0 || params_.dirichlet_alpha <= 0 || params_.dirichlet_epsilon <= 0) return;
  std::gamma_distribution<double> gamma(params_.dirichlet_alpha, 1.0);
  std::vector<double> noise(root.num_children);
  double sum = 0;
  for (auto& x : noise) sum += (x = gamma(rng_));
  if (sum <= 0) return;
  for (int k = 0; k < root.num_children; ++k) {
    Node& c = nodes_[root.first_child + k];
    c.prior = static_cast<float>((1 - params_.dirichlet_epsilon) * c.raw_prior +
                                 params_.dirichlet_epsilon * noise[k] / sum);
  }
}

void Mcts::StartMove(bool add_noise) {
  GOMOKU_CHECK(!root_board_.terminal(), "search on a finished game");
  GOMOKU_CHECK(!pending_, "StartMove with a pending evaluation");
  sims_done_ = 0;
  if (nodes_[0].expanded) {
    for (int k = 0; k < nodes_[0].num_children; ++k) {
      Node& c = nodes_[nodes_[0].first_child + k];
      c.prior = c.raw_prior;
    }
    if (add_noise) ApplyRootNoise();
    noise_pending_ = false;
  } else {
    noise_pending_ = add_noise;  // applied when the root gets expanded
  }
}

int Mcts::SelectChild(int node) const {
  const Node& n = nodes_[node];
  const double sqrt_n = std::sqrt(static_cast<double>(std::max(n.visits, 1)));
  int best = -1;
  double best_score = -1e300;
  for (int k = 0; k < n.num_children; ++k) {
    int ci = n.first_child + k;
    const Node& c = nodes_[ci];
    double q = c.visits > 0 ? c.value_sum / c.visits : params_.fpu_value;
    double u = params_.c_puct * c.prior * sqrt_n / (1.0 + c.visits);
    double s = q + u;
    if (s > best_score) {
      best_score = s;
      best = ci;
    }
  }
  return best;
}

const Position* Mcts::SelectLeaf() {
  GOMOKU_CHECK(!pending_, "SelectLeaf with a pending evaluation");
  path_.clear();
  path_.push_back(0);
  leaf_board_ = root_board_;
  int node = 0;
  while (nodes_[node].expanded && nodes_[node].num_children > 0) {
    node = SelectChild(node);
    leaf_board_.Play(nodes_[node].move);
    path_.push_back(node);
  }
  if (leaf_board_.terminal()) {
    // Exact score.  The player who just moved (the leaf's mover) won or drew.
    Outcome o = leaf_board_.outcome();
    nodes_[node].terminal = static_cast<int8_t>(o);
    double v_mover = o == Outcome::kDraw ? 0.0 : 1.0;
    Backup(v_mover);
    ++sims_done_;
    return nullptr;
  }
  leaf_position_.size = leaf_board_.size();
  leaf_position_.cells.assign(leaf_board_.cells().begin(), leaf_board_.cells().end());
  leaf_position_.last_move = leaf_board_.last_move();
  leaf_position_.to_move = leaf_board_.to_move();
  pending_ = true;
  return &leaf_position_;
}

void Mcts::ExpandAndBackup(const EvalResult& result) {
  GOMOKU_CHECK(pending_, "ExpandAndBackup without a pending leaf");
  const int pts = leaf_board_.num_points();
  GOMOKU_CHECK(static_cast<int>(result.log_policy.size()) == pts,
               "evaluator returned " << result.log_policy.size() << " policy entries, expected " << pts);
  pending_ = false;
  ++evaluations_;
  last_generation_ = result.model_generation;
  int leaf = path_.back();
  // Softmax over legal moves only.
  std::vector<int>& legal = scratch_legal_;
  legal.clear();
  const auto& cells = leaf_board_.cells();
  for (int m = 0; m < pts; ++m)
    if (cells[m] == kEmpty) legal.push_back(m);
  float mx = -1e30f;
  for (int m : legal) mx = std::max(mx, result.log_policy[m]);
  std::vector<float>& pri = scratch_prior_;
  pri.resize(legal.size());
  double sum = 0;
  for (size_t i = 0; i < legal.size(); ++i) sum += (pri[i] = std::exp(result.log_policy[legal[i]] - mx));
  const double inv_sum = sum > 0 ? 1.0 / sum : 0.0;
  int first = static_cast<int>(nodes_.size());
  if (nodes_.capacity() < nodes_.size() + legal.size())
    nodes_.reserve(std::max(nodes_.capacity() * 2, nodes_.size() + legal.size() * 64));
  for (size_t i = 0; i < legal.size(); ++i) {
    Node c;
    c.move = static_cast<int16_t>(legal[i]);
    c.raw_prior = c.prior = static_cast<float>(sum > 0 ? pri[i] * inv_sum : 1.0 / legal.size());
    nodes_.push_back(c);
  }
  Node& ln = nodes_[leaf];
  ln.first_child = first;
  ln.num_children = static_cast<int16_t>(legal.size());
  ln.expanded = true;
  if (leaf == 0 && noise_pending_) {
    ApplyRootNoise();
    noise_pending_ = false;
  }
  // value is for the leaf's side to move; the leaf's mover sees the negation.
  Backup(-static_cast<double>(result.value));
  ++sims_done_;
}

void Mcts::Backup(double v_mover) {
  double v = v_mover;
  for (int i = static_cast<int>(path_.size()) - 1; i >= 0; --i) {
    Node& n = nodes_[path_[i]];
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
  const Node& root = nodes_[0];
  for (int k = 0; k < root.num_children; ++k) {
    const Node& c = nodes_[root.first_child + k];
    v[c.move] = c.visits;
  }
  return v;
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
  if (root.visits == 0) return 0.0f;
  // root.value_sum is from the view of the player before the root.
  return static_cast<float>(std::clamp(-root.value_sum / root.visits, -1.0, 1.0));
}

int Mcts::RootVisits() const { return nodes_[0].visits; }

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
