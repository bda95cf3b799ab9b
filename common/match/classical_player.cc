#include "common/match/classical_player.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/base/errors.h"

namespace gz {
namespace {

constexpr int64_t kMaxClassicalNodes = 1000000000;

bool IsProof(int score) { return score > kClassicWinScore / 2 || score < -kClassicWinScore / 2; }

bool BySolver(const ClassicalResult& r) { return r.reason == "vcf" || r.reason == "vct"; }

// The search's reason ("five", "block", "vcf", "vct", "search") as a player's.
MoveReason ReasonOf(const ClassicalResult& r) {
  if (r.reason == "five") return MoveReason::kWin;
  if (r.reason == "block") return MoveReason::kBlock;
  if (BySolver(r) || r.score > kClassicWinScore / 2) return MoveReason::kProven;
  return MoveReason::kSearch;
}

float Squash(int score) {
  if (score > kClassicWinScore / 2) return 1.0f;
  if (score < -kClassicWinScore / 2) return -1.0f;
  return static_cast<float>(score / (std::abs(static_cast<double>(score)) + 1000.0));
}

}  // namespace

int64_t ParseClassicalSpec(const std::string& spec, const std::string& what) {
  const std::string prefix = "classical:";
  if (spec.rfind(prefix, 0) != 0) return 0;
  const std::string n = spec.substr(prefix.size());
  try {
    size_t used = 0;
    const long long v = std::stoll(n, &used);
    if (used == n.size() && v >= 1 && v <= kMaxClassicalNodes) return v;
  } catch (const std::exception&) {
  }
  GOMOKU_THROW(ConfigError, what << ": '" << spec << "' needs a node count in [1, " << kMaxClassicalNodes
                                 << "] after 'classical:'");
}

ClassicalPlayer::ClassicalPlayer(int64_t node_limit)
    : node_limit_(node_limit), search_(ClassicalOptions{node_limit}) {}

std::string ClassicalPlayer::CheckSize(int size) const { return BoardSizeOutOfRange(size); }

std::string ClassicalPlayer::Describe() const {
  std::ostringstream os;
  os << "classical:" << node_limit_ << " (alpha-beta with the threat solver, no net; " << node_limit_
     << " nodes a move or the turn's time)";
  return os.str();
}

MoveDecision ClassicalPlayer::ChooseMove(const Board& board, const SearchLimits& limits) {
  GOMOKU_CHECK(!board.terminal(), "ChooseMove on a finished game");
  const auto start = std::chrono::steady_clock::now();
  ClassicalLimits cl;
  cl.deadline = limits.deadline;
  cl.stop = limits.stop;
  cl.interrupt = limits.interrupt;
  cl.excluded = limits.excluded;
  const int centre = (board.size() / 2) * board.size() + board.size() / 2;
  if (board.move_count() == 0 && board.IsLegal(centre) &&
      std::find(cl.excluded.begin(), cl.excluded.end(), centre) == cl.excluded.end()) {
    // The empty board: every point evaluates alike, and move ordering alone
    // would pick an edge-ward point; players open at the centre.
    last_ = ClassicalResult{};
    last_.move = centre;
    last_.reason = "search";
    last_.pv = {centre};
  } else {
    last_ = search_.Search(board, cl);
  }
  const ClassicalResult& r = last_;

  MoveDecision d;
  d.move = r.move;
  d.value = Squash(r.score);
  d.reason = ReasonOf(r);
  d.simulations = static_cast<int>(std::min<int64_t>(r.nodes, INT32_MAX));
  d.root_visits = d.simulations;
  d.best_share = 1.0;
  d.top = {{r.move, d.simulations}};
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // The report: one line, the principal variation, a proof when the score is one.
  report_ = ShortcutReport(r.move, d.reason == MoveReason::kWin, d.value);
  MoveReport& m = report_.moves.front();
  if (!r.pv.empty() && r.pv.front() == r.move) m.pv = r.pv;
  m.visits = report_.root_visits = d.simulations;
  if (d.reason != MoveReason::kWin && IsProof(r.score)) {
    const bool win = r.score > 0;
    const bool solver = BySolver(r);
    // A search score is kClassicWinScore - plies; the solver's line is not kept.
    const int plies = solver ? 1 : kClassicWinScore - std::abs(r.score);
    m.proof = ProofInfo{win, std::max(1, plies), !solver, m.pv};
    report_.proof = m.proof;
  }
  return d;
}

}  // namespace gz
