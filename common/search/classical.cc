#include "common/search/classical.h"

#include <algorithm>
#include <array>
#include <limits>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/search/node_solver.h"

namespace gz {

// Named, not anonymous: ClassicalSearch::Impl holds these types (unity builds,
// docs/architecture.md "Build").
namespace classical_detail {

// What a window holding only k stones of one colour is worth to that colour.
// Index 5 is only read as the gain of the move that completes a five.
constexpr std::array<int, 6> kWindowValue = {0, 1, 12, 90, 600, 200000};
constexpr int kBranch = 8;              // moves searched at a node below the root
constexpr int kRootBranch = 20;         // moves searched at the root (after the solver's restriction)
constexpr int kLikelyWin = 100000;      // a leaf where the mover can make an open four
constexpr int kWin = kClassicWinScore;
constexpr int kInf = std::numeric_limits<int>::max() / 2;

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The five-cell windows of one board size and which pass through each point.
struct WindowGeometry {
  int n = 0;
  std::vector<std::array<int, 5>> windows;
  std::vector<int> begin;  // windows through p: through[begin[p] .. begin[p+1])
  std::vector<int> through;
  std::vector<std::array<uint64_t, 2>> zobrist;

  explicit WindowGeometry(int size) : n(size) {
    static const int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    std::vector<std::vector<int>> per(n * n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c)
        for (const auto& d : kSteps) {
          const int r4 = r + 4 * d[0], c4 = c + 4 * d[1];
          if (r4 < 0 || r4 >= n || c4 < 0 || c4 >= n) continue;
          std::array<int, 5> w{};
          for (int k = 0; k < 5; ++k) w[k] = (r + k * d[0]) * n + c + k * d[1];
          for (int p : w) per[p].push_back(static_cast<int>(windows.size()));
          windows.push_back(w);
        }
    begin.push_back(0);
    for (int p = 0; p < n * n; ++p) {
      through.insert(through.end(), per[p].begin(), per[p].end());
      begin.push_back(static_cast<int>(through.size()));
    }
    uint64_t seed = 0x5eed0c1a55ULL + static_cast<uint64_t>(size);
    zobrist.resize(n * n);
    for (auto& z : zobrist) z = {SplitMix(&seed), SplitMix(&seed)};
  }
};

// The search's own board: cells, per-window stone counts, the two colours'
// window sums, four-window counts, a neighbourhood count and a hash, all
// updated in O(20) by Place / Unplace.
class WindowBoard {
 public:
  WindowBoard(const WindowGeometry& g, const Board& board)
      : g_(g), rule_(board.rule()), cells_(board.cells()), to_move_(board.to_move()) {
    const int np = g.n * g.n;
    count_.assign(g.windows.size(), {0, 0});
    dead_.assign(g.windows.size(), 0);
    near_.assign(np, 0);
    for (size_t w = 0; w < g.windows.size(); ++w)
      for (int p : g.windows[w]) {
        const int8_t v = cells_[p];
        if (v == kBlack || v == kWhite) ++count_[w][v - 1];
        if (v == kBlocked) dead_[w] = 1;
      }
    for (size_t w = 0; w < g.windows.size(); ++w) Account(static_cast<int>(w), +1);
    for (int p = 0; p < np; ++p)
      if (cells_[p] == kBlack || cells_[p] == kWhite) {
        Near(p, +1);
        hash_ ^= g.zobrist[p][cells_[p] - 1];
        ++stones_;
      } else if (cells_[p] == kEmpty) {
        ++empties_;
      }
  }

  int8_t to_move() const { return to_move_; }
  Rule rule() const { return rule_; }
  int8_t at(int p) const { return cells_[p]; }
  int empties() const { return empties_; }
  int stones() const { return stones_; }
  uint64_t hash() const { return hash_ ^ (to_move_ == kWhite ? 0x9d2c5680a1b2c3d4ULL : 0); }
  int fours(int8_t c) const { return fours_[c - 1]; }
  bool near(int p) const { return near_[p] > 0; }

  void Place(int p) {
    const int8_t c = to_move_;
    for (int i = g_.begin[p]; i < g_.begin[p + 1]; ++i) {
      const int w = g_.through[i];
      Account(w, -1);
      ++count_[w][c - 1];
      Account(w, +1);
    }
    cells_[p] = c;
    hash_ ^= g_.zobrist[p][c - 1];
    Near(p, +1);
    ++stones_;
    --empties_;
    to_move_ = Opponent(c);
  }
  void Unplace(int p) {
    const int8_t c = cells_[p];
    for (int i = g_.begin[p]; i < g_.begin[p + 1]; ++i) {
      const int w = g_.through[i];
      Account(w, -1);
      --count_[w][c - 1];
      Account(w, +1);
    }
    cells_[p] = kEmpty;
    hash_ ^= g_.zobrist[p][c - 1];
    Near(p, -1);
    --stones_;
    ++empties_;
    to_move_ = c;
  }

  // Would `c` at empty `p` make a winning line (the rule's five)?
  bool MakesFive(int p, int8_t c) const {
    const bool exact = rule_ == Rule::kStandard || (rule_ == Rule::kRenju && c == kBlack);
    static const int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    const int n = g_.n, r = p / n, col = p % n;
    for (const auto& d : kSteps) {
      int len = 1;
      for (int sgn : {-1, 1})
        for (int k = 1;; ++k) {
          const int rr = r + sgn * k * d[0], cc = col + sgn * k * d[1];
          if (rr < 0 || rr >= n || cc < 0 || cc >= n || cells_[rr * n + cc] != c) break;
          ++len;
        }
      if (exact ? len == 5 : len >= 5) return true;
    }
    return false;
  }

  // The distinct five points of `c` (at most `limit` collected), ascending
  // within what was found.
  std::vector<int> FivePoints(int8_t c, size_t limit) const {
    std::vector<int> out;
    if (fours_[c - 1] == 0) return out;
    for (size_t w = 0; w < g_.windows.size() && out.size() < limit; ++w) {
      if (dead_[w] || count_[w][c - 1] != 4 || count_[w][2 - c] != 0) continue;
      for (int p : g_.windows[w])
        if (cells_[p] == kEmpty && std::find(out.begin(), out.end(), p) == out.end() && MakesFive(p, c))
          out.push_back(p);
    }
    return out;
  }

  // A point where `c` would have two or more distinct five points (an open
  // four or a double four), judged by the windows of three; kNoMove if none.
  int OpenFourPoint(int8_t c) const {
    // For each empty e of a three-window, the window's other empty f is the
    // five point e would make; e with two different f's is an open four.
    first_.clear();
    for (size_t w = 0; w < g_.windows.size(); ++w) {
      if (dead_[w] || count_[w][c - 1] != 3 || count_[w][2 - c] != 0) continue;
      int e[2], k = 0;
      for (int p : g_.windows[w])
        if (cells_[p] == kEmpty && k < 2) e[k++] = p;
      for (int i = 0; i < 2; ++i) {
        const int a = e[i], b = e[1 - i];
        auto it = std::find_if(first_.begin(), first_.end(), [a](const std::pair<int, int>& x) { return x.first == a; });
        if (it == first_.end()) {
          first_.push_back({a, b});
        } else if (it->second != b) {
          if (rule_ == Rule::kRenju && c == kBlack) continue;  // may be forbidden: not judged here
          return a;
        }
      }
    }
    return kNoMove;
  }

  // The windows' sums with the tempo, from the side to move's view.
  int Eval() const {
    const int me = score_[to_move_ - 1], opp = score_[2 - to_move_];
    return me + me / 5 - opp;
  }

  // Ordering score of `p` for the side to move: what the stone adds to its
  // windows (attack) and takes from the opponent's (defence).
  int MoveScore(int p) const {
    const int c = to_move_ - 1, o = 1 - c;
    int attack = 0, defence = 0;
    for (int i = g_.begin[p]; i < g_.begin[p + 1]; ++i) {
      const int w = g_.through[i];
      if (dead_[w]) continue;
      const int m = count_[w][c], q = count_[w][o];
      if (q == 0) attack += kWindowValue[m + 1] - kWindowValue[m];
      if (m == 0) defence += kWindowValue[q];
    }
    return attack + defence;
  }

  std::vector<int8_t>* cells() { return &cells_; }

 private:
  void Account(int w, int sign) {
    if (dead_[w]) return;
    const int b = count_[w][0], wh = count_[w][1];
    if (wh == 0) score_[0] += sign * kWindowValue[std::min(b, 4)];
    if (b == 0) score_[1] += sign * kWindowValue[std::min(wh, 4)];
    if (b == 4 && wh == 0) fours_[0] += sign;
    if (wh == 4 && b == 0) fours_[1] += sign;
  }
  void Near(int p, int delta) {
    const int n = g_.n, r = p / n, c = p % n;
    for (int rr = std::max(0, r - 2); rr <= std::min(n - 1, r + 2); ++rr)
      for (int cc = std::max(0, c - 2); cc <= std::min(n - 1, c + 2); ++cc) near_[rr * n + cc] += delta;
  }

  const WindowGeometry& g_;
  Rule rule_;
  std::vector<int8_t> cells_;
  int8_t to_move_;
  std::vector<std::array<int, 2>> count_;
  std::vector<uint8_t> dead_;
  std::vector<int> near_;
  std::array<int, 2> score_{0, 0};
  std::array<int, 2> fours_{0, 0};
  uint64_t hash_ = 0;
  int stones_ = 0;
  int empties_ = 0;
  mutable std::vector<std::pair<int, int>> first_;
};

enum : uint8_t { kExact = 0, kLower = 1, kUpper = 2 };
struct TtEntry {
  uint64_t key = 0;
  int32_t score = 0;
  int16_t depth = -1;
  int16_t move = kNoMove;
  uint8_t bound = kExact;
};

// Mate scores are stored relative to the node, so a table hit at another ply
// reads the right distance.
int ToTable(int s, int ply) { return s > kWin / 2 ? s + ply : s < -kWin / 2 ? s - ply : s; }
int FromTable(int s, int ply) { return s > kWin / 2 ? s - ply : s < -kWin / 2 ? s + ply : s; }

}  // namespace classical_detail

using namespace classical_detail;

struct ClassicalSearch::Impl {
  ClassicalOptions options;
  std::unique_ptr<WindowGeometry> geometry;
  std::vector<TtEntry> table;
  WindowBoard* board = nullptr;
  int64_t nodes = 0;
  bool aborted = false;

  const WindowGeometry& Geometry(int n) {
    if (!geometry || geometry->n != n) geometry = std::make_unique<WindowGeometry>(n);
    return *geometry;
  }

  bool Allowed(int p) {
    WindowBoard& b = *board;
    if (b.rule() != Rule::kRenju || b.to_move() != kBlack) return true;
    return ForbiddenReasonOnCells(geometry->n, b.cells(), p) == ForbiddenReason::kNone;
  }

  // Candidate moves of the side to move, best first; `limit` of them at most
  // (renju black: forbidden points skipped).  `first`: tried first if present.
  std::vector<int> Moves(size_t limit, int first) {
    WindowBoard& b = *board;
    const int np = geometry->n * geometry->n;
    std::vector<std::pair<int, int>> scored;
    for (int p = 0; p < np; ++p)
      if (b.at(p) == kEmpty && (b.near(p) || b.stones() == 0))
        scored.push_back({p == first ? kInf : b.MoveScore(p), p});
    std::sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    std::vector<int> out;
    for (const auto& s : scored) {
      if (out.size() >= limit) break;
      if (Allowed(s.second)) out.push_back(s.second);
    }
    return out;
  }

  TtEntry& Slot(uint64_t key) { return table[key & (table.size() - 1)]; }

  int Pvs(int depth, int alpha, int beta, int ply) {
    if (nodes >= options.node_limit) {
      aborted = true;
      return 0;
    }
    ++nodes;
    WindowBoard& b = *board;
    const int8_t me = b.to_move(), opp = Opponent(me);
    if (!b.FivePoints(me, 1).empty()) return kWin - ply;
    if (b.empties() == 0) return 0;
    std::vector<int> moves;
    bool forced = false;
    const std::vector<int> blocks = b.FivePoints(opp, 2);
    if (blocks.size() >= 2) return -(kWin - ply - 1);
    if (blocks.size() == 1) {
      if (!Allowed(blocks[0])) return -(kWin - ply - 1);
      moves = blocks;
      forced = true;  // the block costs no depth: fours are searched to the end
    }
    const uint64_t key = b.hash();
    TtEntry& e = Slot(key);
    int tt_move = kNoMove;
    if (e.key == key) {
      tt_move = e.move;
      if (e.depth >= depth) {
        const int s = FromTable(e.score, ply);
        if (e.bound == kExact || (e.bound == kLower && s >= beta) || (e.bound == kUpper && s <= alpha)) return s;
      }
    }
    if (!forced) {
      if (depth <= 0) {
        if (b.OpenFourPoint(me) != kNoMove) return kLikelyWin;
        return b.Eval();
      }
      moves = Moves(kBranch, tt_move);
      if (moves.empty()) return 0;  // renju: black has only forbidden points near the stones
    }
    const int child_depth = forced ? depth : depth - 1;
    const int alpha0 = alpha;
    int best = -kInf, best_move = moves[0];
    for (size_t i = 0; i < moves.size(); ++i) {
      b.Place(moves[i]);
      int s;
      if (i == 0) {
        s = -Pvs(child_depth, -beta, -alpha, ply + 1);
      } else {
        s = -Pvs(child_depth, -alpha - 1, -alpha, ply + 1);
        if (!aborted && s > alpha && s < beta) s = -Pvs(child_depth, -beta, -alpha, ply + 1);
      }
      b.Unplace(moves[i]);
      if (aborted) return 0;
      if (s > best) {
        best = s;
        best_move = moves[i];
      }
      if (s > alpha) alpha = s;
      if (alpha >= beta) break;
    }
    e.key = key;
    e.score = ToTable(best, ply);
    e.depth = static_cast<int16_t>(depth);
    e.move = static_cast<int16_t>(best_move);
    e.bound = best <= alpha0 ? kUpper : best >= beta ? kLower : kExact;
    return best;
  }

  std::vector<int> PrincipalVariation(int root_move, int depth) {
    std::vector<int> pv{root_move};
    WindowBoard& b = *board;
    b.Place(root_move);
    while (static_cast<int>(pv.size()) < depth) {
      const TtEntry& e = Slot(b.hash());
      if (e.key != b.hash() || e.move == kNoMove || b.at(e.move) != kEmpty) break;
      pv.push_back(e.move);
      b.Place(e.move);
    }
    for (auto it = pv.rbegin(); it != pv.rend(); ++it) b.Unplace(*it);
    return pv;
  }
};

ClassicalSearch::ClassicalSearch(ClassicalOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.node_limit < 1) GOMOKU_THROW(ConfigError, "classical: the node limit must be >= 1, got " << options.node_limit);
  if (options.tt_log2 < 8 || options.tt_log2 > 24)
    GOMOKU_THROW(ConfigError, "classical: tt_log2 must be in 8..24, got " << options.tt_log2);
  if (options.max_depth < 1 || options.max_depth > 200)
    GOMOKU_THROW(ConfigError, "classical: max_depth must be in 1..200, got " << options.max_depth);
  impl_->options = options;
}

ClassicalSearch::~ClassicalSearch() = default;

int ClassicalSearch::StaticEval(const Board& board) {
  WindowGeometry g(board.size());
  WindowBoard b(g, board);
  return b.Eval();
}

ClassicalResult ClassicalSearch::Search(const Board& board) {
  if (board.terminal()) GOMOKU_THROW(RulesError, "classical: the game is over, there is no move to search");
  Impl& im = *impl_;
  const int64_t n_limit = im.options.node_limit;
  ClassicalResult result;

  // 1. The threat solver, both sides, at the root.
  NodeSolver solver(std::max<int64_t>(1, n_limit / 4), std::max<int64_t>(1, n_limit / 8));
  const NodeVerdict verdict = solver.Analyse(board, 0);
  result.solver_nodes = solver.stats().vcf_nodes + solver.stats().vct_nodes;
  if (verdict.proven == Proven::kWin) {
    result.move = verdict.win_move;
    result.score = kWin - 1;
    result.reason = verdict.reason;
    result.pv = {verdict.win_move};
    return result;
  }

  // 2. PVS with iterative deepening.
  const WindowGeometry& g = im.Geometry(board.size());
  WindowBoard b(g, board);
  im.board = &b;
  im.table.assign(size_t{1} << im.options.tt_log2, TtEntry{});
  im.nodes = 0;
  im.aborted = false;
  std::vector<int> root;
  if (verdict.restricted) {
    root = verdict.moves;
    // Best-ordered first, as elsewhere.
    std::stable_sort(root.begin(), root.end(), [&](int x, int y) {
      const int sx = b.MoveScore(x), sy = b.MoveScore(y);
      return sx != sy ? sx > sy : x < y;
    });
  } else {
    root = im.Moves(kRootBranch, kNoMove);
  }
  if (root.empty()) root = board.LegalMoves();  // renju: every nearby point forbidden
  result.reason = verdict.restricted && root.size() == 1 ? verdict.reason : "search";
  result.move = root.front();
  if (root.size() == 1) {
    result.score = verdict.proven == Proven::kLoss ? -(kWin - 2) : 0;
    im.board = nullptr;
    return result;
  }
  for (int depth = 1; depth <= im.options.max_depth; ++depth) {
    int alpha = -kInf;
    int best_move = kNoMove, best_score = -kInf;
    for (size_t i = 0; i < root.size(); ++i) {
      b.Place(root[i]);
      int s;
      if (i == 0) {
        s = -im.Pvs(depth - 1, -kInf, kInf, 1);
      } else {
        s = -im.Pvs(depth - 1, -alpha - 1, -alpha, 1);
        if (!im.aborted && s > alpha) s = -im.Pvs(depth - 1, -kInf, -alpha, 1);
      }
      b.Unplace(root[i]);
      if (im.aborted) break;
      if (s > best_score) {
        best_score = s;
        best_move = root[i];
      }
      alpha = std::max(alpha, s);
    }
    if (best_move != kNoMove && (!im.aborted || best_move != root.front())) {
      // A finished iteration, or a partial one whose first move was searched
      // to the end and beaten by a move also searched to the end.
      result.move = best_move;
      result.score = best_score;
    }
    if (im.aborted) break;
    result.depth = depth;
    result.pv = im.PrincipalVariation(best_move, depth);
    // The best move first in the next iteration.
    std::rotate(root.begin(), std::find(root.begin(), root.end(), best_move),
                std::find(root.begin(), root.end(), best_move) + 1);
    if (best_score > kWin / 2 || best_score < -kWin / 2) break;  // a forced result: deeper changes nothing
  }
  result.nodes = im.nodes;
  im.board = nullptr;
  return result;
}

}  // namespace gz
