#include "common/search/simple_evaluators.h"

#include <cmath>
#include <random>

#include "common/base/errors.h"

namespace gz {

void UniformEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  GOMOKU_CHECK(positions.size() == results.size(), "positions/results size mismatch");
  for (size_t i = 0; i < positions.size(); ++i) {
    const int pts = positions[i].size * positions[i].size;
    results[i].log_policy.assign(pts, -std::log(static_cast<float>(pts)));
    results[i].value = 0.0f;
    results[i].model_generation = 0;
  }
}

void RolloutEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  GOMOKU_CHECK(positions.size() == results.size(), "positions/results size mismatch");
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& pos = positions[i];
    const int pts = pos.size * pos.size;
    results[i].log_policy.assign(pts, -std::log(static_cast<float>(pts)));
    results[i].model_generation = 0;
    std::mt19937_64 rng(seed_ ^ pos.Hash());
    Board start = Board::FromStones(pos.size, rule_, pos.cells, pos.to_move, pos.last_move);
    double total = 0.0;
    std::vector<int> empties;
    for (int r = 0; r < rollouts_; ++r) {
      Board b = start;
      if (rule_ == Rule::kRenju) {
        // Every empty point (white may take black's forbidden ones); black
        // draws again until its point is legal.  A position where black has
        // no legal point is a draw, so some point always is.
        empties.clear();
        for (int p = 0; p < pts; ++p)
          if (b.at(p) == kEmpty) empties.push_back(p);
        while (!b.terminal()) {
          std::uniform_int_distribution<size_t> pick(0, empties.size() - 1);
          size_t k = pick(rng);
          while (b.to_move() == kBlack && !b.IsLegal(empties[k])) k = pick(rng);
          int m = empties[k];
          empties[k] = empties.back();
          empties.pop_back();
          b.Play(m);
        }
      } else {
        empties = b.LegalMoves();
        while (!b.terminal()) {
          std::uniform_int_distribution<size_t> pick(0, empties.size() - 1);
          size_t k = pick(rng);
          int m = empties[k];
          empties[k] = empties.back();
          empties.pop_back();
          b.Play(m);
        }
      }
      Outcome o = b.outcome();
      if (o == Outcome::kDraw) continue;
      int8_t winner = o == Outcome::kBlackWins ? kBlack : kWhite;
      total += winner == pos.to_move ? 1.0 : -1.0;
    }
    results[i].value = rollouts_ > 0 ? static_cast<float>(total / rollouts_) : 0.0f;
  }
}

std::string RolloutEvaluator::Describe() const {
  return "random-rollout evaluator (" + std::to_string(rollouts_) + " playouts per leaf, no network)";
}

}  // namespace gz
