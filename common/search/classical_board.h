// Internal to classical.cc: the classical player's own board (window stone
// counts, the pattern evaluation's sums, a hash), apart from the search that
// uses it.  Not a public API.
//
// Thread-safety: WindowGeometry is immutable once built; a WindowBoard is one
// search's scratch state, one thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/base/errors.h"
#include "common/base/splitmix.h"
#include "common/game/board.h"
#include "common/game/renju.h"

namespace gz {
// Named, not anonymous: ClassicalSearch::Impl holds these types (unity builds,
// docs/architecture.md "Build").
namespace classical_detail {

// What a window holding only k stones of one colour is worth to that colour.
// Index 5 is only read as the gain of the move that completes a five.
constexpr std::array<int, 6> kWindowValue = {0, 1, 12, 90, 600, 200000};


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
    for (auto& z : zobrist) z = {SplitMix64(seed), SplitMix64(seed)};
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
  // Board::moves_before_draw for this position (renju: the draw at 25 empty points).
  int MovesBeforeDraw() const { return gz::MovesBeforeDraw(rule_, g_.n * g_.n, stones_, empties_); }
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
    // Caro: exactly five, not the opponent at both ends; caro-overline: or six or more (board.h).
    const bool caro = IsCaro(rule_);
    const bool exact = rule_ == Rule::kCaro || rule_ == Rule::kStandard || (rule_ == Rule::kRenju && c == kBlack);
    static const int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    const int n = g_.n, r = p / n, col = p % n;
    for (const auto& d : kSteps) {
      int len = 1, blocked_ends = 0;
      for (int sgn : {-1, 1})
        for (int k = 1;; ++k) {
          const int rr = r + sgn * k * d[0], cc = col + sgn * k * d[1];
          const bool on = rr >= 0 && rr < n && cc >= 0 && cc < n;
          if (!on || cells_[rr * n + cc] != c) {
            blocked_ends += !on || cells_[rr * n + cc] != kEmpty;  // the edge closes an end too (board.h)
            break;
          }
          ++len;
        }
      if (caro && blocked_ends == 2 && len == 5) continue;
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

}  // namespace classical_detail
}  // namespace gz
