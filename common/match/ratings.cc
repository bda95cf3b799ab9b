#include "common/match/ratings.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>

#include "common/base/errors.h"

namespace gz {
namespace {

constexpr double kEloPerNat = 400.0 / 2.302585092994046;  // 400 / ln 10

struct Pair {
  int i, j;      // i < j, indices into the component's variables (-1 = the anchor)
  double n = 0;  // games
  double s = 0;  // i's points
};

// log(1 / (1 + exp(-x))), without overflow.
double LogSigmoid(double x) { return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x)); }
double Sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

double Theta(const std::vector<double>& t, int k) { return k < 0 ? 0.0 : t[static_cast<size_t>(k)]; }

double LogLikelihood(const std::vector<Pair>& pairs, const std::vector<double>& t) {
  double ll = 0;
  for (const Pair& p : pairs) {
    const double d = Theta(t, p.i) - Theta(t, p.j);
    ll += p.s * LogSigmoid(d) + (p.n - p.s) * LogSigmoid(-d);
  }
  return ll;
}

// Solves a * x = b for a symmetric positive definite a (Cholesky).  Returns
// false when a is not positive definite.
bool Cholesky(std::vector<double>& a, int n) {
  for (int c = 0; c < n; ++c) {
    double d = a[c * n + c];
    for (int k = 0; k < c; ++k) d -= a[c * n + k] * a[c * n + k];
    if (!(d > 1e-300)) return false;
    d = std::sqrt(d);
    a[c * n + c] = d;
    for (int r = c + 1; r < n; ++r) {
      double v = a[r * n + c];
      for (int k = 0; k < c; ++k) v -= a[r * n + k] * a[c * n + k];
      a[r * n + c] = v / d;
    }
  }
  return true;
}
std::vector<double> CholeskySolve(const std::vector<double>& l, int n, std::vector<double> b) {
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < r; ++k) b[r] -= l[r * n + k] * b[k];
    b[r] /= l[r * n + r];
  }
  for (int r = n - 1; r >= 0; --r) {
    for (int k = r + 1; k < n; ++k) b[r] -= l[k * n + r] * b[k];
    b[r] /= l[r * n + r];
  }
  return b;
}

// Gradient and negative Hessian (the Fisher information) at t.
void Derivatives(const std::vector<Pair>& pairs, const std::vector<double>& t, int n, std::vector<double>& grad,
                 std::vector<double>& info) {
  grad.assign(static_cast<size_t>(n), 0.0);
  info.assign(static_cast<size_t>(n) * n, 0.0);
  for (const Pair& p : pairs) {
    const double e = Sigmoid(Theta(t, p.i) - Theta(t, p.j));
    const double r = p.s - p.n * e;  // i's surplus over expectation
    const double w = p.n * e * (1 - e);
    if (p.i >= 0) {
      grad[p.i] += r;
      info[p.i * n + p.i] += w;
    }
    if (p.j >= 0) {
      grad[p.j] -= r;
      info[p.j * n + p.j] += w;
    }
    if (p.i >= 0 && p.j >= 0) {
      info[p.i * n + p.j] -= w;
      info[p.j * n + p.i] -= w;
    }
  }
}

}  // namespace

double ExpectedScore(double diff) { return 1.0 / (1.0 + std::pow(10.0, -diff / 400.0)); }

namespace {

// The games as players (by name, indexed in name order) and per-pair totals.
struct GameGraph {
  std::vector<std::string> names;
  std::map<std::string, int> index;
  std::map<std::pair<int, int>, Pair> totals;  // (i < j) -> games and i's points
  std::vector<std::vector<int>> adjacent;
  std::vector<PlayerRating> stats;             // games and points of each player
};

GameGraph BuildGraph(const std::vector<RatedGame>& games) {
  GameGraph g;
  for (const RatedGame& r : games) {
    GOMOKU_CHECK(r.a != r.b, "a game of '" << r.a << "' against itself");
    GOMOKU_CHECK(r.score_a >= 0 && r.score_a <= 1, "score " << r.score_a << " outside [0, 1]");
    g.index.emplace(r.a, 0);
    g.index.emplace(r.b, 0);
  }
  for (auto& [name, k] : g.index) {
    k = static_cast<int>(g.names.size());
    g.names.push_back(name);
  }
  g.adjacent.resize(g.names.size());
  g.stats.resize(g.names.size());
  for (const RatedGame& r : games) {
    int a = g.index[r.a], b = g.index[r.b];
    double sa = r.score_a;
    g.stats[a].games++;
    g.stats[b].games++;
    g.stats[a].score += sa;
    g.stats[b].score += 1 - sa;
    if (a > b) {
      std::swap(a, b);
      sa = 1 - sa;
    }
    Pair& p = g.totals[{a, b}];
    if (p.n == 0) {
      g.adjacent[a].push_back(b);
      g.adjacent[b].push_back(a);
    }
    p.i = a;
    p.j = b;
    p.n += 1;
    p.s += sa;
  }
  return g;
}

// Connected groups, numbered in name order of their first member; returns
// each player's group and fills each group's size.
std::vector<int> ConnectedGroups(const GameGraph& g, std::vector<int>* group_size) {
  const int np = static_cast<int>(g.names.size());
  std::vector<int> group(static_cast<size_t>(np), -1);
  for (int s = 0; s < np; ++s) {
    if (group[s] >= 0) continue;
    const int id = static_cast<int>(group_size->size());
    group_size->push_back(0);
    std::deque<int> queue{s};
    group[s] = id;
    while (!queue.empty()) {
      int v = queue.front();
      queue.pop_front();
      ++(*group_size)[id];
      for (int w : g.adjacent[v])
        if (group[w] < 0) {
          group[w] = id;
          queue.push_back(w);
        }
    }
  }
  return group;
}

// `anchor` when it played, else the first member of the first largest group
// (groups are numbered in name order of their first member, so that member
// is also the group's first name).
int ChooseAnchor(const GameGraph& g, const std::vector<int>& group, const std::vector<int>& group_size,
                 const std::string& anchor) {
  if (auto it = g.index.find(anchor); it != g.index.end()) return it->second;
  int best = 0;
  for (int gi = 1; gi < static_cast<int>(group_size.size()); ++gi)
    if (group_size[gi] > group_size[best]) best = gi;
  for (int k = 0; k < static_cast<int>(group.size()); ++k)
    if (group[k] == best) return k;
  return 0;
}

// Maximum likelihood by damped Newton over the n variables (the rated group
// minus the anchor, whose theta is 0).  Returns theta; `chol` holds the
// Cholesky factor of the information matrix at the optimum.
std::vector<double> FitNewton(const std::vector<Pair>& pairs, int n, std::vector<double>* chol, int* iterations) {
  std::vector<double> t(static_cast<size_t>(n), 0.0), grad, info;
  if (n == 0) return t;
  double ll = LogLikelihood(pairs, t);
  for (int step = 0; step < 200; ++step) {
    Derivatives(pairs, t, n, grad, info);
    *chol = info;
    GOMOKU_CHECK(Cholesky(*chol, n), "rating fit: singular information matrix");
    std::vector<double> delta = CholeskySolve(*chol, n, grad);
    double largest = 0;
    for (double d : delta) largest = std::max(largest, std::abs(d));
    ++*iterations;
    if (largest < 1e-10) break;
    // Halve the step until the likelihood does not drop.
    double scale = 1.0;
    std::vector<double> next(t.size());
    for (int tries = 0; tries < 60; ++tries) {
      for (int k = 0; k < n; ++k) next[k] = t[k] + scale * delta[k];
      double nll = LogLikelihood(pairs, next);
      if (nll >= ll - 1e-12 * std::abs(ll)) {
        ll = nll;
        break;
      }
      scale /= 2;
    }
    t = next;
  }
  Derivatives(pairs, t, n, grad, info);
  *chol = info;
  GOMOKU_CHECK(Cholesky(*chol, n), "rating fit: singular information matrix");
  return t;
}

}  // namespace

RatingTable FitRatings(const std::vector<RatedGame>& games, const std::string& anchor) {
  RatingTable table;
  const GameGraph g = BuildGraph(games);
  if (g.names.empty()) return table;
  const int np = static_cast<int>(g.names.size());
  std::vector<int> group_size;
  const std::vector<int> group = ConnectedGroups(g, &group_size);
  const int anchor_index = ChooseAnchor(g, group, group_size, anchor);
  table.anchor = g.names[anchor_index];
  const int rated_group = group[anchor_index];
  // Variables: the rated group minus the anchor.
  std::vector<int> var(static_cast<size_t>(np), -1);
  std::vector<int> members;
  for (int k = 0; k < np; ++k) {
    if (group[k] != rated_group) {
      table.unrated.push_back(g.names[k]);
      continue;
    }
    if (k != anchor_index) {
      var[k] = static_cast<int>(members.size());
      members.push_back(k);
    }
  }
  std::vector<Pair> pairs;
  for (const auto& [key, p] : g.totals) {
    if (group[p.i] != rated_group) continue;
    Pair q{var[p.i], var[p.j], p.n, std::clamp(p.s, 0.5, p.n - 0.5)};
    if (p.n < 1) q.s = p.n / 2;
    pairs.push_back(q);
  }
  const int n = static_cast<int>(members.size());
  std::vector<double> chol;
  const std::vector<double> t = FitNewton(pairs, n, &chol, &table.iterations);
  PlayerRating anchor_rating = g.stats[anchor_index];
  anchor_rating.elo = anchor_rating.low = anchor_rating.high = anchor_rating.sigma = 0;
  table.rated[g.names[anchor_index]] = anchor_rating;
  for (int v = 0; v < n; ++v) {
    // Variance: the diagonal of the inverse information (column v of it).
    std::vector<double> unit(static_cast<size_t>(n), 0.0);
    unit[v] = 1.0;
    const double var_nat = CholeskySolve(chol, n, unit)[v];
    PlayerRating r = g.stats[members[v]];
    r.elo = t[v] * kEloPerNat;
    r.sigma = std::sqrt(std::max(0.0, var_nat)) * kEloPerNat;
    r.low = r.elo - 1.96 * r.sigma;
    r.high = r.elo + 1.96 * r.sigma;
    table.rated[g.names[members[v]]] = r;
  }
  return table;
}

}  // namespace gz
