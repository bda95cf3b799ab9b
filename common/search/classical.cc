#include "common/search/classical.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "common/base/errors.h"
#include "common/game/renju.h"
#include "common/search/classical_board.h"
#include "common/search/node_solver.h"

namespace gz {

// Named, not anonymous: ClassicalSearch::Impl holds these types (unity builds,
// docs/architecture.md "Build").
namespace classical_detail {

constexpr int kBranch = 8;              // moves searched at a node below the root
constexpr int kRootBranch = 20;         // moves searched at the root (after the solver's restriction)
constexpr int kLikelyWin = 100000;      // a leaf where the mover can make an open four
constexpr int kWin = kClassicWinScore;
constexpr int kInf = std::numeric_limits<int>::max() / 2;

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

bool IsExcluded(int p, const std::vector<int>& excluded) {
  return std::find(excluded.begin(), excluded.end(), p) != excluded.end();
}

void DropExcluded(std::vector<int>& moves, const std::vector<int>& excluded) {
  moves.erase(std::remove_if(moves.begin(), moves.end(), [&](int p) { return IsExcluded(p, excluded); }), moves.end());
}

}  // namespace classical_detail

using namespace classical_detail;

struct ClassicalSearch::Impl {
  ClassicalOptions options;
  std::unique_ptr<WindowGeometry> geometry;
  std::vector<TtEntry> table;
  WindowBoard* board = nullptr;
  int64_t nodes = 0;
  bool aborted = false;
  const ClassicalLimits* limits = nullptr;

  // The clock and the flags; read every 256 nodes (a node costs microseconds).
  bool OutOfTime() const {
    if ((limits->stop && limits->stop->load(std::memory_order_relaxed)) ||
        (limits->interrupt && limits->interrupt->load(std::memory_order_relaxed)))
      return true;
    return limits->deadline != std::chrono::steady_clock::time_point::max() &&
           std::chrono::steady_clock::now() >= limits->deadline;
  }

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
    if (nodes >= options.node_limit || ((nodes & 255) == 0 && nodes > 0 && OutOfTime())) {
      aborted = true;
      return 0;
    }
    ++nodes;
    WindowBoard& b = *board;
    const int8_t me = b.to_move(), opp = Opponent(me);
    // Drawn: the board is full, or (renju) 25 points are empty (board.h).
    if (b.MovesBeforeDraw() <= 0) return 0;
    if (!b.FivePoints(me, 1).empty()) return kWin - ply;
    if (b.MovesBeforeDraw() == 1) return 0;  // no five: any move draws
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

  // The root's moves, best first: the solver's restriction when `restricted`,
  // else the best kRootBranch candidates; every legal move where none is left
  // (renju: every nearby point forbidden; or every refutation excluded).
  // Excluded moves are dropped; empty only when every legal move is excluded.
  std::vector<int> RootMoves(const Board& position, const NodeVerdict& verdict, bool restricted) {
    WindowBoard& b = *board;
    std::vector<int> root;
    if (restricted) {
      root = verdict.moves;
      DropExcluded(root, limits->excluded);
      // Best-ordered first, as elsewhere.
      std::stable_sort(root.begin(), root.end(), [&](int x, int y) {
        const int sx = b.MoveScore(x), sy = b.MoveScore(y);
        return sx != sy ? sx > sy : x < y;
      });
    } else {
      root = Moves(kRootBranch + limits->excluded.size(), kNoMove);
      DropExcluded(root, limits->excluded);
      if (root.size() > static_cast<size_t>(kRootBranch)) root.resize(kRootBranch);
    }
    if (root.empty()) {
      root = position.LegalMoves();
      DropExcluded(root, limits->excluded);
    }
    return root;
  }

  // One PVS iteration at `depth` over the root moves: {best move, its score};
  // when aborted, the best of the moves searched to the end (kNoMove: none).
  std::pair<int, int> SearchRoot(const std::vector<int>& root, int depth) {
    WindowBoard& b = *board;
    int alpha = -kInf;
    int best_move = kNoMove, best_score = -kInf;
    for (size_t i = 0; i < root.size(); ++i) {
      b.Place(root[i]);
      int s;
      if (i == 0) {
        s = -Pvs(depth - 1, -kInf, kInf, 1);
      } else {
        s = -Pvs(depth - 1, -alpha - 1, -alpha, 1);
        if (!aborted && s > alpha) s = -Pvs(depth - 1, -kInf, -alpha, 1);
      }
      b.Unplace(root[i]);
      if (aborted) break;
      if (s > best_score) {
        best_score = s;
        best_move = root[i];
      }
      alpha = std::max(alpha, s);
    }
    return {best_move, best_score};
  }

  // Iterative deepening over `root` (two or more moves) into `result`, each
  // iteration starting with the last one's best move.
  void Deepen(std::vector<int>& root, ClassicalResult& result) {
    for (int depth = 1; depth <= options.max_depth; ++depth) {
      const auto [best_move, best_score] = SearchRoot(root, depth);
      if (best_move != kNoMove && (!aborted || best_move != root.front())) {
        // A finished iteration, or a partial one whose first move was searched
        // to the end and beaten by a move also searched to the end.
        result.move = best_move;
        result.score = best_score;
      }
      if (aborted) break;
      result.depth = depth;
      result.pv = PrincipalVariation(best_move, depth);
      // The best move first in the next iteration.
      std::rotate(root.begin(), std::find(root.begin(), root.end(), best_move),
                  std::find(root.begin(), root.end(), best_move) + 1);
      if (best_score > kWin / 2 || best_score < -kWin / 2) break;  // a forced result: deeper changes nothing
    }
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

ClassicalResult ClassicalSearch::Search(const Board& board, const ClassicalLimits& limits) {
  if (board.terminal()) GOMOKU_THROW(RulesError, "classical: the game is over, there is no move to search");
  Impl& im = *impl_;
  const int64_t n_limit = im.options.node_limit;
  ClassicalResult result;

  // 1. The threat solver, both sides, at the root.
  NodeSolver solver(std::max<int64_t>(1, n_limit / 4), std::max<int64_t>(1, n_limit / 8));
  const NodeVerdict verdict = solver.Analyse(board, 0);
  result.solver_nodes = solver.stats().vcf_nodes + solver.stats().vct_nodes;
  if (verdict.proven == Proven::kWin && !IsExcluded(verdict.win_move, limits.excluded)) {
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
  im.limits = &limits;
  im.table.assign(size_t{1} << im.options.tt_log2, TtEntry{});
  im.nodes = 0;
  im.aborted = false;
  const bool restricted = verdict.restricted && verdict.proven != Proven::kWin;
  std::vector<int> root = im.RootMoves(board, verdict, restricted);
  if (root.empty()) {
    im.board = nullptr;
    GOMOKU_THROW(GomokuError, "classical: every legal move is excluded");
  }
  result.reason = restricted && root.size() == 1 ? verdict.reason : "search";
  result.move = root.front();
  if (root.size() == 1) {
    result.score = verdict.proven == Proven::kLoss ? -(kWin - 2) : 0;
    im.board = nullptr;
    return result;
  }
  im.Deepen(root, result);
  result.nodes = im.nodes;
  im.board = nullptr;
  return result;
}

}  // namespace gz
