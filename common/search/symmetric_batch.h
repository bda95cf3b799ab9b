// Symmetry handling for network evaluation, shared by the local evaluator and
// the inference server so that both compute exactly the same thing.
//
//   none   - identity only
//   random - one symmetry per position, chosen from the position hash (so the
//            choice is deterministic and identical locally and on the server)
//   all8   - all 8 symmetries of each position in the same forward; the
//            probabilities and values are averaged
#pragma once

#include <memory>
#include <string>

#include "common/search/evaluator.h"

namespace gz {

enum class SymmetryMode : uint8_t { kNone = 0, kRandom = 1, kAll8 = 2 };
SymmetryMode ParseSymmetryMode(const std::string& s);  // throws ConfigError
const char* SymmetryModeName(SymmetryMode m);
int SymmetriesPerPosition(SymmetryMode m);
// The symmetries used for `pos` (SymmetriesPerPosition(m) of them) written to syms.
void SymmetriesFor(const Position& pos, SymmetryMode m, int* syms);

// Encodes SymmetriesPerPosition(m) planes blocks for `pos` into out.
void EncodeSymmetric(const Position& pos, SymmetryMode m, float* out);
// Combines the per-symmetry network outputs of one position back to original
// coordinates.  log_policy: per x size*size, values: per.
void CombineSymmetric(const Position& pos, SymmetryMode m, const float* log_policy, const float* values,
                      EvalResult* out);

// Evaluator over a BatchForward: all positions (times their symmetries) go
// into one forward.  Owns the forward.  Not thread-safe.
class SymmetricEvaluator : public Evaluator {
 public:
  SymmetricEvaluator(std::unique_ptr<BatchForward> forward, SymmetryMode mode);
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override;
  std::string Describe() const override;
  BatchForward& forward() { return *forward_; }

 private:
  std::unique_ptr<BatchForward> forward_;
  SymmetryMode mode_;
  std::vector<float> planes_, logp_, values_;
};

}  // namespace gz
