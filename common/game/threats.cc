#include "common/game/threats.h"

#include <algorithm>
#include <array>

#include "common/base/errors.h"
#include "common/game/renju.h"

namespace gz {
namespace {

constexpr int8_t kWall = 3;

// The board in a padded grid: index 1 + (r+1)*W + c with W = n+1, so a step
// in any of the eight directions from an on-board point lands on a point or
// a wall (column n of each row and the rows above and below are walls) and
// runs stop without bounds checks.
struct Geometry {
  int n = 0;
  int stride = 0;
  int padded = 0;
  std::array<int, 4> dir{};                 // offsets of E, S, SE, SW
  std::vector<int> to_padded;               // board point -> padded index
  std::vector<int> to_board;                // padded index -> board point or -1
  std::vector<std::array<int, 5>> windows;  // every five-cell line segment on the board
  std::vector<int> cell_begin;              // windows through padded p: cell_windows[cell_begin[p] ..
  std::vector<int> cell_windows;            //   cell_begin[p+1])

  explicit Geometry(int size) : n(size), stride(size + 1), padded((size + 2) * (size + 1) + 2) {
    dir = {1, stride, stride + 1, stride - 1};
    to_padded.resize(n * n);
    to_board.assign(padded, -1);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        const int p = 1 + (r + 1) * stride + c;
        to_padded[r * n + c] = p;
        to_board[p] = r * n + c;
      }
    static const int kSteps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    std::vector<std::vector<int>> per_cell(padded);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c)
        for (int d = 0; d < 4; ++d) {
          const int r4 = r + 4 * kSteps[d][0], c4 = c + 4 * kSteps[d][1];
          if (r4 < 0 || r4 >= n || c4 < 0 || c4 >= n) continue;
          std::array<int, 5> w{};
          for (int k = 0; k < 5; ++k) {
            w[k] = to_padded[(r + k * kSteps[d][0]) * n + c + k * kSteps[d][1]];
            per_cell[w[k]].push_back(static_cast<int>(windows.size()));
          }
          windows.push_back(w);
        }
    cell_begin.assign(padded + 1, 0);
    for (int p = 0; p < padded; ++p) {
      cell_begin[p + 1] = cell_begin[p] + static_cast<int>(per_cell[p].size());
      cell_windows.insert(cell_windows.end(), per_cell[p].begin(), per_cell[p].end());
    }
  }
};

const Geometry& GeometryFor(int n) {
  // Built once for every legal size (a few KB each); magic statics make it thread-safe.
  static const std::vector<Geometry> all = [] {
    std::vector<Geometry> v;
    for (int s = 0; s <= kMaxBoardSize; ++s) v.emplace_back(s < kMinBoardSize ? kMinBoardSize : s);
    return v;
  }();
  return all[n];
}

constexpr int kMaxPadded = (kMaxBoardSize + 2) * (kMaxBoardSize + 1) + 2;

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Zobrist keys [colour-1][padded index], fixed seed: hashes are stable.
const std::array<std::array<uint64_t, kMaxPadded>, 2>& Zobrist() {
  static const auto keys = [] {
    std::array<std::array<uint64_t, kMaxPadded>, 2> k{};
    uint64_t s = 0x7A0B1157ULL;
    for (auto& row : k)
      for (auto& v : row) v = SplitMix(s);
    return k;
  }();
  return keys;
}

void CheckColour(int8_t c) {
  GOMOKU_CHECK(c == kBlack || c == kWhite, "colour must be black or white, got " << int(c));
}

// Scratch position: padded cells, per-window stone counts, Zobrist hash.
// Place/Unplace are O(20); the queries are documented in threats.h.
class Grid {
 public:
  void Load(const Board& b) {
    g_ = &GeometryFor(b.size());
    standard_ = b.rule() == Rule::kStandard;
    renju_ = b.rule() == Rule::kRenju;
    if (renju_) board_cells_.assign(b.num_points(), kEmpty);
    cells_.assign(g_->padded, kWall);
    count_[0].assign(g_->windows.size(), 0);
    count_[1].assign(g_->windows.size(), 0);
    mark_.assign(g_->padded, 0);
    stamp_ = 0;
    hash_ = 0;
    for (int m = 0; m < b.num_points(); ++m) cells_[g_->to_padded[m]] = kEmpty;
    for (int m = 0; m < b.num_points(); ++m) {
      if (b.at(m) == kBlocked) {  // nobody's point: a wall inside the board
        const int p = g_->to_padded[m];
        cells_[p] = kWall;
        hash_ ^= Zobrist()[0][p] ^ Zobrist()[1][p];
        if (renju_) board_cells_[m] = kBlocked;
      } else if (b.at(m) != kEmpty) {
        Place(g_->to_padded[m], b.at(m));
      }
    }
  }

  const Geometry& geo() const { return *g_; }
  int8_t at(int p) const { return cells_[p]; }
  uint64_t hash() const { return hash_; }

  bool renju() const { return renju_; }

  // Renju: is the empty padded point p forbidden for black right now?
  bool ForbiddenForBlack(int p) {
    return renju_ && ForbiddenReasonOnCells(g_->n, &board_cells_, g_->to_board[p]) != ForbiddenReason::kNone;
  }

  void Place(int p, int8_t c) {
    cells_[p] = c;
    if (renju_) board_cells_[g_->to_board[p]] = c;
    hash_ ^= Zobrist()[c - 1][p];
    auto& cnt = count_[c - 1];
    for (int i = g_->cell_begin[p]; i < g_->cell_begin[p + 1]; ++i) ++cnt[g_->cell_windows[i]];
  }
  void Unplace(int p) {
    const int8_t c = cells_[p];
    cells_[p] = kEmpty;
    if (renju_) board_cells_[g_->to_board[p]] = kEmpty;
    hash_ ^= Zobrist()[c - 1][p];
    auto& cnt = count_[c - 1];
    for (int i = g_->cell_begin[p]; i < g_->cell_begin[p + 1]; ++i) --cnt[g_->cell_windows[i]];
  }

  // Would `c` at the empty point p make a five along direction offset d?
  bool FiveAlong(int p, int8_t c, int d) const {
    int len = 1;
    for (int q = p + d; cells_[q] == c; q += d) ++len;
    for (int q = p - d; cells_[q] == c; q -= d) ++len;
    // Exactly five under standard, and for black under renju.
    return (standard_ || (renju_ && c == kBlack)) ? len == kWinLength : len >= kWinLength;
  }
  bool MakesFive(int p, int8_t c) const {
    for (int d : g_->dir)
      if (FiveAlong(p, c, d)) return true;
    return false;
  }

  // Five points of c on the lines through p (p holds c): on each of the eight
  // rays only the first point past c's own stones can have p in its run.
  // Returns how many; *first gets the lowest padded index.
  int FivesThrough(int p, int8_t c, int* first) const {
    int n = 0;
    *first = -1;
    for (int d : g_->dir)
      for (int s = -1; s <= 1; s += 2) {
        int q = p + s * d;
        while (cells_[q] == c) q += s * d;
        if (cells_[q] == kEmpty && FiveAlong(q, c, d)) {
          ++n;
          if (*first < 0 || q < *first) *first = q;
        }
      }
    return n;
  }

  // Every five point of c (padded indices, unordered): each lies in a window
  // holding four of c and nothing of the opponent.
  void AllFives(int8_t c, std::vector<int>* out) {
    out->clear();
    NextStamp();
    const auto& own = count_[c - 1];
    const auto& opp = count_[2 - c];
    for (size_t w = 0; w < own.size(); ++w) {
      if (own[w] != 4 || opp[w] != 0) continue;
      for (int p : g_->windows[w])
        if (cells_[p] == kEmpty && mark_[p] != stamp_) {
          mark_[p] = stamp_;
          if (MakesFive(p, c)) out->push_back(p);
        }
    }
  }

  // Superset of c's fours (padded, unordered, no duplicates): the empty
  // points of windows holding three of c and nothing of the opponent.  A four
  // and its five point always share such a window.
  void FourCandidates(int8_t c, std::vector<int>* out) {
    out->clear();
    NextStamp();
    const auto& own = count_[c - 1];
    const auto& opp = count_[2 - c];
    for (size_t w = 0; w < own.size(); ++w) {
      if (own[w] != 3 || opp[w] != 0) continue;
      for (int p : g_->windows[w])
        if (cells_[p] == kEmpty && mark_[p] != stamp_) {
          mark_[p] = stamp_;
          out->push_back(p);
        }
    }
  }

 private:
  void NextStamp() {
    if (++stamp_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      stamp_ = 1;
    }
  }

  const Geometry* g_ = nullptr;
  bool standard_ = false;
  bool renju_ = false;
  std::vector<int8_t> board_cells_;  // renju only: the cells unpadded, for the forbidden-point judge
  std::vector<int8_t> cells_;
  std::array<std::vector<uint8_t>, 2> count_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  uint64_t hash_ = 0;
};

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

struct ThreatSolver::Impl {
  struct Entry {
    uint64_t key = 0;
    int16_t best = -1;  // padded index of the winning move (kWin entries)
    int8_t status = -1; // VcfStatus, -1 = empty slot
  };
  struct Cand {
    int move;
    int fives;
    int block;
  };

  explicit Impl(int tt_log2) : table(size_t{1} << tt_log2), mask((uint64_t{1} << tt_log2) - 1) {}

  VcfStatus Attack(int forced, int depth, std::vector<int>* pv) {
    if (nodes >= budget) return VcfStatus::kUnknown;
    ++nodes;
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

  std::vector<Entry> table;
  uint64_t mask;
  Grid grid;
  int8_t attacker = kBlack;
  uint64_t salt = 0;
  int64_t nodes = 0;
  int64_t budget = 0;
  std::vector<int> probe;
  std::vector<std::vector<Cand>> scratch;
  std::vector<int> root_fives;
};

ThreatSolver::ThreatSolver(ThreatSolverOptions options) {
  if (options.tt_log2 < 4 || options.tt_log2 > 26)
    GOMOKU_THROW(ConfigError, "threat solver tt_log2 " << options.tt_log2 << " out of range [4, 26]");
  impl_ = std::make_unique<Impl>(options.tt_log2);
}

ThreatSolver::~ThreatSolver() = default;

void ThreatSolver::ClearTable() { std::fill(impl_->table.begin(), impl_->table.end(), Impl::Entry{}); }

VcfResult ThreatSolver::Vcf(const Board& board, int8_t attacker, int64_t node_budget) {
  CheckColour(attacker);
  GOMOKU_CHECK(node_budget >= 1, "VCF node budget must be >= 1, got " << node_budget);
  VcfResult res;
  if (board.terminal()) {
    res.status = VcfStatus::kNoVcf;
    return res;
  }
  Impl& s = *impl_;
  s.grid.Load(board);
  s.attacker = attacker;
  uint64_t seed = (static_cast<uint64_t>(board.size()) << 16) ^ (static_cast<uint64_t>(board.rule()) << 8) ^
                  static_cast<uint64_t>(attacker);
  s.salt = SplitMix(seed);
  s.nodes = 0;
  s.budget = node_budget;

  s.grid.AllFives(attacker, &s.root_fives);
  if (!s.root_fives.empty()) {
    res.status = VcfStatus::kWin;
    res.line = {s.grid.geo().to_board[*std::min_element(s.root_fives.begin(), s.root_fives.end())]};
    res.nodes = 1;
    return res;
  }
  s.grid.AllFives(Opponent(attacker), &s.root_fives);
  if (s.root_fives.size() >= 2) {
    res.status = VcfStatus::kNoVcf;
    res.nodes = 1;
    return res;
  }
  const int forced = s.root_fives.empty() ? -1 : s.root_fives[0];
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
