#include "common/game/threats.h"

#include <algorithm>
#include <array>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/game/threat_grid.h"
#include "common/game/threat_solver_core.h"

namespace gz {
using namespace threat_detail;  // the scratch grid, shared with vct.cc

namespace {

// Fours of c on the loaded grid, as board points.
std::vector<FourMove> FoursOn(Grid& g, int8_t c) {
  std::vector<int> cand;
  g.FourCandidates(c, &cand);
  std::vector<FourMove> out;
  for (int p : cand) {
    if (g.MakesFive(p, c)) continue;  // a five, not a four
    if (c == kBlack && g.ForbiddenForBlack(p)) continue;  // renju: black may not play it
    g.Place(p, c);
    int first;
    const int k = g.FivesThrough(p, c, &first);
    g.Unplace(p);
    if (k == 0) continue;
    out.push_back({g.geo().to_board[p], k, g.geo().to_board[first]});
  }
  std::sort(out.begin(), out.end(), [](const FourMove& a, const FourMove& b) { return a.move < b.move; });
  return out;
}

}  // namespace

const char* VcfStatusName(VcfStatus s) {
  switch (s) {
    case VcfStatus::kWin: return "win";
    case VcfStatus::kNoVcf: return "no_vcf";
    case VcfStatus::kUnknown: return "unknown";
  }
  return "?";
}

std::vector<int> FivePoints(const Board& board, int8_t colour) {
  CheckColour(colour);
  std::vector<int> out;
  if (board.terminal()) return out;
  Grid g;
  g.Load(board);
  std::vector<int> padded;
  g.AllFives(colour, &padded);
  for (int p : padded) out.push_back(g.geo().to_board[p]);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<FourMove> FourMoves(const Board& board, int8_t colour) {
  CheckColour(colour);
  if (board.terminal()) return {};
  Grid g;
  g.Load(board);
  return FoursOn(g, colour);
}

std::vector<int> OpenFourMoves(const Board& board, int8_t colour) {
  std::vector<int> out;
  for (const FourMove& f : FourMoves(board, colour))
    if (f.num_fives >= 2) out.push_back(f.move);
  return out;
}

// ---------------------------------------------------------------------------
// VCF.  Every node is the attacker to move with no five point of its own (it
// would have won); `forced` is the defender's single five point, if any, which
// the attacker must occupy.  Each defender node has one reply (the block), so
// a node's value is that of the best attacker child and the first win found
// ends the search.  Positions only gain stones, so exact results are
// path-independent and can be shared through the table.

namespace {
struct VcfEntry {
  uint64_t key = 0;
  int16_t best = -1;  // padded index of the winning move (kWin entries)
  int8_t status = -1; // VcfStatus, -1 = empty slot
};
}  // namespace

struct ThreatSolver::Impl : SolverCore<VcfEntry> {
  using Entry = VcfEntry;
  struct Cand {
    int move;
    int fives;
    int block;
  };

  explicit Impl(int tt_log2) : SolverCore(tt_log2) {}

  VcfStatus Attack(int forced, int depth, std::vector<int>* pv) {
    if (nodes >= budget) return VcfStatus::kUnknown;
    ++nodes;
    // Renju: the game is drawn before a four, its block and the five fit.
    if (grid.MovesBeforeDraw() < 3) return VcfStatus::kNoVcf;
    const uint64_t key = grid.hash() ^ salt;
    Entry& e = table[key & mask];
    int hint = -1;
    if (e.key == key && e.status >= 0) {
      if (e.status == static_cast<int8_t>(VcfStatus::kNoVcf)) return VcfStatus::kNoVcf;
      hint = e.best;  // a win from an earlier query: walk it first to rebuild the line
    }
    if (static_cast<int>(scratch.size()) <= depth) scratch.resize(depth + 1);
    std::vector<Cand>& cands = scratch[depth];
    cands.clear();
    if (forced >= 0) {
      // Renju: black cannot block on a forbidden point, so this line fails.
      if (attacker == kBlack && grid.ForbiddenForBlack(forced)) {
        Store(key, VcfStatus::kNoVcf, -1);
        return VcfStatus::kNoVcf;
      }
      probe.assign(1, forced);
    } else {
      grid.FourCandidates(attacker, &probe);
    }
    for (int m : probe) {
      // No five point of the attacker exists here, so m is never a five.
      if (attacker == kBlack && forced < 0 && grid.ForbiddenForBlack(m)) continue;  // renju
      grid.Place(m, attacker);
      int block;
      int k = grid.FivesThrough(m, attacker, &block);
      // Renju: a single five point that black may not occupy cannot be blocked.
      if (k == 1 && attacker == kWhite && grid.ForbiddenForBlack(block)) k = 2;
      grid.Unplace(m);
      if (k == 0) continue;
      if (k >= 2) {  // open four or double four (or, renju, a forbidden block): the defender cannot block all
        pv->push_back(grid.geo().to_board[m]);
        Store(key, VcfStatus::kWin, m);
        return VcfStatus::kWin;
      }
      cands.push_back({m, k, block});
    }
    if (hint >= 0)
      for (size_t i = 0; i < cands.size(); ++i)
        if (cands[i].move == hint) {
          std::swap(cands[0], cands[i]);
          break;
        }
    const int8_t defender = Opponent(attacker);
    // Index loop: deeper calls may grow `scratch` and move this vector's storage.
    for (size_t i = 0; i < scratch[depth].size(); ++i) {
      const Cand c = scratch[depth][i];
      grid.Place(c.move, attacker);
      grid.Place(c.block, defender);
      int counter;
      const int dk = grid.FivesThrough(c.block, defender, &counter);
      VcfStatus r = VcfStatus::kNoVcf;
      // Two counter-fives cannot both be blocked: this four fails.
      if (dk <= 1) r = Attack(dk == 1 ? counter : -1, depth + 1, pv);
      grid.Unplace(c.block);
      grid.Unplace(c.move);
      if (r == VcfStatus::kWin) {
        pv->push_back(grid.geo().to_board[c.move]);
        Store(key, VcfStatus::kWin, c.move);
        return r;
      }
      if (r == VcfStatus::kUnknown) return r;  // the budget is spent for every sibling too
    }
    Store(key, VcfStatus::kNoVcf, -1);
    return VcfStatus::kNoVcf;
  }

  void Store(uint64_t key, VcfStatus s, int best) {
    Entry& e = table[key & mask];
    e.key = key;
    e.status = static_cast<int8_t>(s);
    e.best = static_cast<int16_t>(best);
  }

  std::vector<int> probe;
  std::vector<std::vector<Cand>> scratch;
};

ThreatSolver::ThreatSolver(ThreatSolverOptions options) {
  CheckTableLog2("threat solver", options.tt_log2);
  impl_ = std::make_unique<Impl>(options.tt_log2);
}

ThreatSolver::~ThreatSolver() = default;

void ThreatSolver::ClearTable() { impl_->ClearTable(); }

VcfResult ThreatSolver::Vcf(const Board& board, int8_t attacker, int64_t node_budget) {
  VcfResult res;
  Impl& s = *impl_;
  int forced = -1;
  if (s.DecidedAtRoot("VCF", board, attacker, node_budget, /*salt_tag=*/0, VcfStatus::kNoVcf, &res, &forced))
    return res;
  if (forced >= 0 && attacker == kBlack && s.grid.ForbiddenForBlack(forced)) {
    res.status = VcfStatus::kNoVcf;  // renju: black cannot block the five
    res.nodes = 1;
    return res;
  }
  res.status = s.Attack(forced, 0, &res.line);
  res.nodes = s.nodes;
  if (res.status == VcfStatus::kWin)
    std::reverse(res.line.begin(), res.line.end());
  else
    res.line.clear();
  return res;
}

}  // namespace gz
