#include "common/game/vct.h"

#include <algorithm>

#include "common/base/errors.h"
#include "common/game/threat_grid.h"
#include "common/game/threat_solver_core.h"

namespace gz {
using namespace threat_detail;  // the scratch grid shared with threats.cc

const char* VctStatusName(VctStatus s) {
  switch (s) {
    case VctStatus::kWin: return "win";
    case VctStatus::kNoVct: return "no_vct";
    case VctStatus::kUnknown: return "unknown";
  }
  return "?";
}

// Invariants of the search (why the node code can skip checks):
//  - at an attacker node a has no five point (it would have won) and d has at
//    most one, `forced`, through d's last move;
//  - after a's move, a's five points all run through that move, and d has
//    none (a blocked it, or d had none).
// Positions only gain stones, so results are path-independent and shared
// through the table.  A "no" result carries the depth (threes left) it was
// proven for; kExact when no depth cut touched it.
namespace {
struct VctEntry {
  uint64_t key = 0;
  int16_t best = -1;   // padded index of the winning move (wins)
  int8_t status = -1;  // VctStatus, -1 = empty slot
  int8_t depth = 0;    // kNoVct: threes left it holds for (kExact: any)
};
}  // namespace

struct VctSolver::Impl : SolverCore<VctEntry> {
  static constexpr int8_t kExact = 127;
  using Entry = VctEntry;
  struct Res {
    VctStatus status;
    bool exact;  // kNoVct: no depth cut involved
  };
  struct Cand {
    int move;
    int score;  // fours first (1000), threes by their number of winning fours
  };

  Impl(int tt_log2, int max_threes) : SolverCore(tt_log2), max_threes(max_threes) {}

  bool Forbidden(int p, int8_t c) { return c == kBlack && grid.ForbiddenForBlack(p); }

  // a's five points on the lines through p (p holds a), padded, distinct.
  // Renju: a white five point that black may not occupy counts twice (it
  // cannot be blocked), so "two or more" means "d cannot stop the five".
  int FivesOf(int p, int8_t c, int out[8]) {
    int n = 0;
    for (int d : grid.geo().dir)
      for (int s = -1; s <= 1; s += 2) {
        int q = p + s * d;
        while (grid.at(q) == c) q += s * d;
        if (grid.at(q) == kEmpty && grid.FiveAlong(q, c, d) && std::find(out, out + n, q) == out + n) out[n++] = q;
      }
    return n;
  }
  int Strength(int k, const int* fives, int8_t c) {
    if (k == 1 && c == kWhite && grid.renju() && grid.ForbiddenForBlack(fives[0])) return 2;
    return k;
  }
  // Does a's move q (empty, on the grid now) win at once: legal, and d cannot stop the five?
  bool WinningFour(int q) {
    if (Forbidden(q, attacker)) return false;
    grid.Place(q, attacker);
    int f[8];
    const int k = Strength(FivesOf(q, attacker, f), f, attacker);
    grid.Unplace(q);
    return k >= 2;
  }

  Res Attack(int forced, int left, int ply, std::vector<int>* pv) {
    if (nodes >= budget) return {VctStatus::kUnknown, false};
    ++nodes;
    // Renju: the game is drawn before a four, its block and the five fit.
    if (grid.MovesBeforeDraw() < 3) return {VctStatus::kNoVct, true};
    const uint64_t key = grid.hash() ^ salt;
    {
      const Entry& e = table[key & mask];
      if (e.key == key && e.status >= 0) {
        if (e.status == static_cast<int8_t>(VctStatus::kWin)) {
          pv->push_back(grid.geo().to_board[e.best]);
          return {VctStatus::kWin, true};
        }
        if (e.depth >= left) return {VctStatus::kNoVct, e.depth == kExact};
      }
    }
    if (static_cast<int>(scratch.size()) <= ply) scratch.resize(ply + 1);
    scratch[ply].clear();
    if (forced >= 0) {
      if (Forbidden(forced, attacker)) return Store(key, {VctStatus::kNoVct, true}, left, -1);
      scratch[ply].push_back({forced, 0});
    } else {
      // Fours (a winning four ends the node at once).
      grid.WindowEmpties(attacker, 3, &probe);
      for (int m : probe) {
        if (Forbidden(m, attacker)) continue;
        grid.Place(m, attacker);
        int f[8];
        const int k = Strength(FivesOf(m, attacker, f), f, attacker);
        grid.Unplace(m);
        if (k >= 2) {
          pv->push_back(grid.geo().to_board[m]);
          return Store(key, {VctStatus::kWin, true}, left, m);
        }
        if (k == 1) scratch[ply].push_back({m, 1000});
      }
      if (left > 0) AddThrees(ply);
    }
    std::stable_sort(scratch[ply].begin(), scratch[ply].end(),
                     [](const Cand& x, const Cand& y) { return x.score > y.score; });
    // A depth-0 node that skipped its threes is not exhaustive.
    bool exact = forced >= 0 || left > 0;
    for (size_t i = 0; i < scratch[ply].size(); ++i) {
      const int m = scratch[ply][i].move;
      std::vector<int> sub;
      grid.Place(m, attacker);
      const Res r = Defend(m, left, ply, &sub);
      grid.Unplace(m);
      if (r.status == VctStatus::kWin) {
        pv->push_back(grid.geo().to_board[m]);
        pv->insert(pv->end(), sub.begin(), sub.end());
        return Store(key, r, left, m);
      }
      if (r.status == VctStatus::kUnknown) return r;
      exact = exact && r.exact;
    }
    return Store(key, {VctStatus::kNoVct, exact}, left, -1);
  }

  // Threes of a (no four of a wins here, so every winning four after m uses m:
  // it shares a window holding two of a's stones before m).
  void AddThrees(int ply) {
    grid.WindowEmpties(attacker, 2, &three_probe);
    const Geometry& g = grid.geo();
    for (int m : three_probe) {
      if (Forbidden(m, attacker)) continue;
      grid.Place(m, attacker);
      int f[8];
      int wins = 0;
      if (FivesOf(m, attacker, f) == 0) {  // a four is listed already
        qs.clear();
        for (int i = g.cell_begin[m]; i < g.cell_begin[m + 1]; ++i) {
          const int w = g.cell_windows[i];
          if (grid.Count(attacker, w) != 3 || grid.Count(Opponent(attacker), w) != 0) continue;
          for (int q : g.windows[w])
            if (grid.at(q) == kEmpty && std::find(qs.begin(), qs.end(), q) == qs.end()) {
              qs.push_back(q);
              if (WinningFour(q)) ++wins;
            }
        }
      }
      grid.Unplace(m);
      if (wins > 0) scratch[ply].push_back({m, wins});
    }
  }

  // a has just played m (on the grid); d to move.
  Res Defend(int m, int left, int ply, std::vector<int>* pv) {
    int f[8];
    const int k = Strength(FivesOf(m, attacker, f), f, attacker);
    if (k >= 2) return {VctStatus::kWin, true};
    if (k == 1) return Reply(f[0], left, ply, pv);
    if (left == 0) return {VctStatus::kNoVct, false};
    // Renju: after a three the win takes d's reply, a's winning four, its
    // block and the five; the draw at 25 empty points may come first.  (Also
    // what makes the replies left out below harmless.)
    if (grid.MovesBeforeDraw() < 4) return {VctStatus::kNoVct, true};
    // A three (or a forced block): a's winning fours.
    std::vector<int> wins;           // padded q
    std::vector<int> break_set;      // freestyle/standard: points common to all break sets
    WinningFours(&wins, &break_set);
    if (wins.empty()) return {VctStatus::kNoVct, true};  // no threat: the line fails
    std::vector<int> replies;
    DefenderReplies(wins, break_set, &replies);
    if (replies.empty()) {
      // Renju: black with no legal point at all is a draw, not a loss.
      if (Opponent(attacker) == kBlack && grid.renju() && !BlackHasAllowedPoint()) return {VctStatus::kNoVct, true};
      return {VctStatus::kWin, true};
    }
    return EveryReplyLoses(replies, left, ply, pv);
  }

  // a's winning fours now (padded points) and, off renju, the points common to
  // every one's break set (the four's point and, for a double five, both fives).
  void WinningFours(std::vector<int>* wins, std::vector<int>* break_set) {
    grid.WindowEmpties(attacker, 3, &probe);
    bool first = true;
    for (int q : probe) {
      if (Forbidden(q, attacker)) continue;
      grid.Place(q, attacker);
      int fq[8];
      const int kq = FivesOf(q, attacker, fq);
      const int sq = Strength(kq, fq, attacker);
      grid.Unplace(q);
      if (sq < 2) continue;
      wins->push_back(q);
      if (grid.renju()) continue;
      std::vector<int> b = {q};
      if (kq == 2) b.insert(b.end(), fq, fq + 2);
      if (first) {
        *break_set = b;
        first = false;
      } else {
        std::vector<int> keep;
        for (int p : *break_set)
          if (std::find(b.begin(), b.end(), p) != b.end()) keep.push_back(p);
        break_set->swap(keep);
      }
    }
  }

  // d's considered replies to a's threat: its fours, then the moves that break
  // every winning four (off renju the common break set; renju: every point d
  // may play, tried against each winning four).
  void DefenderReplies(const std::vector<int>& wins, const std::vector<int>& break_set, std::vector<int>* replies) {
    const int8_t d = Opponent(attacker);
    grid.WindowEmpties(d, 3, &probe);
    for (int x : probe) {
      if (Forbidden(x, d)) continue;
      grid.Place(x, d);
      int fx[8];
      const int kx = FivesOf(x, d, fx);
      grid.Unplace(x);
      if (kx > 0) replies->push_back(x);
    }
    auto add = [&](int x) {
      if (std::find(replies->begin(), replies->end(), x) == replies->end()) replies->push_back(x);
    };
    if (!grid.renju()) {
      for (int x : break_set) add(x);
      return;
    }
    const Geometry& g = grid.geo();
    for (int bp = 0; bp < g.n * g.n; ++bp) {
      const int x = g.to_padded[bp];
      if (grid.at(x) != kEmpty || Forbidden(x, d)) continue;
      grid.Place(x, d);
      bool still = false;
      for (int q : wins)
        if (q != x && WinningFour(q)) {
          still = true;
          break;
        }
      grid.Unplace(x);
      if (!still) add(x);
    }
  }

  // Whether every reply of d loses: kWin with the first reply's line in pv,
  // else the result of the first reply that does not lose.
  Res EveryReplyLoses(const std::vector<int>& replies, int left, int ply, std::vector<int>* pv) {
    bool first_reply = true;
    for (int x : replies) {
      std::vector<int> sub;
      const Res r = Reply(x, left - 1, ply, &sub);
      if (r.status != VctStatus::kWin) return r;
      if (first_reply) {
        pv->insert(pv->end(), sub.begin(), sub.end());
        first_reply = false;
      }
    }
    return {VctStatus::kWin, true};
  }

  // d plays x (a legal point); then a is to move with `left` threes left.
  Res Reply(int x, int left, int ply, std::vector<int>* pv) {
    const int8_t d = Opponent(attacker);
    grid.Place(x, d);
    int fx[8];
    const int kx = FivesOf(x, d, fx);
    Res r{VctStatus::kNoVct, true};  // two counter-fives cannot both be blocked
    std::vector<int> sub;
    if (kx <= 1) r = Attack(kx == 1 ? fx[0] : -1, left, ply + 1, &sub);
    grid.Unplace(x);
    if (r.status == VctStatus::kWin) {
      pv->push_back(grid.geo().to_board[x]);
      pv->insert(pv->end(), sub.begin(), sub.end());
    }
    return r;
  }

  bool BlackHasAllowedPoint() {
    const Geometry& g = grid.geo();
    for (int bp = 0; bp < g.n * g.n; ++bp) {
      const int x = g.to_padded[bp];
      if (grid.at(x) == kEmpty && !grid.ForbiddenForBlack(x)) return true;
    }
    return false;
  }

  Res Store(uint64_t key, Res r, int left, int best) {
    Entry& e = table[key & mask];
    e.key = key;
    e.status = static_cast<int8_t>(r.status);
    e.best = static_cast<int16_t>(best);
    e.depth = r.exact ? kExact : static_cast<int8_t>(left);
    return r;
  }

  int max_threes;
  std::vector<int> probe, three_probe, qs;
  std::vector<std::vector<Cand>> scratch;
};

VctSolver::VctSolver(VctSolverOptions options) {
  CheckTableLog2("VCT solver", options.tt_log2);
  if (options.max_threes < 0 || options.max_threes > 64)
    GOMOKU_THROW(ConfigError, "VCT solver max_threes " << options.max_threes << " out of range [0, 64]");
  impl_ = std::make_unique<Impl>(options.tt_log2, options.max_threes);
}

VctSolver::~VctSolver() = default;

void VctSolver::ClearTable() { impl_->ClearTable(); }

VctResult VctSolver::Vct(const Board& board, int8_t attacker, int64_t node_budget) {
  VctResult res;
  Impl& s = *impl_;
  int forced = -1;
  if (s.DecidedAtRoot("VCT", board, attacker, node_budget, /*salt_tag=*/0x5C7ULL, VctStatus::kNoVct, &res, &forced))
    return res;
  for (int left = 0; left <= s.max_threes; ++left) {
    res.line.clear();
    const Impl::Res r = s.Attack(forced, left, 0, &res.line);
    res.nodes = s.nodes;
    if (r.status == VctStatus::kWin) {
      res.status = VctStatus::kWin;
      res.threes = left;
      return res;
    }
    if (r.status == VctStatus::kUnknown) break;
    if (r.exact) {
      res.status = VctStatus::kNoVct;
      res.line.clear();
      return res;
    }
  }
  res.status = VctStatus::kUnknown;
  res.line.clear();
  return res;
}

}  // namespace gz
