#include "common/search/symmetric_batch.h"

#include <cmath>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/splitmix.h"
#include "common/game/symmetry.h"

namespace gz {

namespace {

// Each mode's name in config files, logs and the wire docs, written once.
struct NamedMode {
  SymmetryMode mode;
  const char* name;
};
constexpr NamedMode kModeNames[] = {
    {SymmetryMode::kNone, "none"}, {SymmetryMode::kRandom, "random"}, {SymmetryMode::kAll8, "all8"}};

}  // namespace

SymmetryMode ParseSymmetryMode(const std::string& s) {
  for (const NamedMode& m : kModeNames)
    if (s == m.name) return m.mode;
  GOMOKU_THROW(ConfigError, "unknown symmetry mode '" << s << "' (expected none, random or all8)");
}

const char* SymmetryModeName(SymmetryMode m) {
  for (const NamedMode& n : kModeNames)
    if (n.mode == m) return n.name;
  return "?";
}

int SymmetriesPerPosition(SymmetryMode m) { return m == SymmetryMode::kAll8 ? kNumSymmetries : 1; }

void SymmetriesFor(const Position& pos, SymmetryMode m, int* syms) {
  switch (m) {
    case SymmetryMode::kNone: syms[0] = 0; return;
    case SymmetryMode::kRandom: {
      syms[0] = static_cast<int>(SplitMix64Mix(pos.Hash() + kSplitMixGamma) % kNumSymmetries);
      return;
    }
    case SymmetryMode::kAll8:
      for (int s = 0; s < kNumSymmetries; ++s) syms[s] = s;
      return;
  }
}

void EncodeSymmetric(const Position& pos, SymmetryMode m, float* out) {
  int syms[kNumSymmetries];
  SymmetriesFor(pos, m, syms);
  const int per = SymmetriesPerPosition(m);
  const int stride = PlaneFloats(pos.size);
  const std::vector<int> forbidden = ForbiddenPlanePoints(pos);  // once for every symmetry
  for (int i = 0; i < per; ++i) EncodePosition(pos, syms[i], forbidden, out + i * stride);
}

void CombineSymmetric(const Position& pos, SymmetryMode m, const float* log_policy, const float* values,
                      EvalResult* out) {
  int syms[kNumSymmetries];
  SymmetriesFor(pos, m, syms);
  const int per = SymmetriesPerPosition(m);
  const int pts = pos.size * pos.size;
  out->log_policy.assign(pts, 0.0f);
  if (per == 1) {
    UntransformPolicy(syms[0], log_policy, out->log_policy.data(), pos.size);
    out->value = values[0];
    return;
  }
  // Average probabilities (not log-probabilities), then take the log.
  std::vector<double> acc(pts, 0.0);
  double v = 0.0;
  for (int i = 0; i < per; ++i) {
    const float* lp = log_policy + static_cast<size_t>(i) * pts;
    for (int p = 0; p < pts; ++p) acc[p] += std::exp(static_cast<double>(lp[TransformPoint(syms[i], p, pos.size)]));
    v += values[i];
  }
  for (int p = 0; p < pts; ++p) {
    double a = acc[p] / per;
    out->log_policy[p] = static_cast<float>(a > 0 ? std::log(a) : -1e30);
  }
  out->value = static_cast<float>(v / per);
}

SymmetricEvaluator::SymmetricEvaluator(std::unique_ptr<BatchForward> forward, SymmetryMode mode)
    : forward_(std::move(forward)), mode_(mode) {
  GOMOKU_CHECK(forward_ != nullptr, "SymmetricEvaluator needs a forward");
}

void SymmetricEvaluator::Evaluate(std::span<const Position> positions, std::span<EvalResult> results) {
  GOMOKU_CHECK(positions.size() == results.size(), "positions/results size mismatch");
  if (positions.empty()) return;
  const int size = forward_->board_size();
  const int per = SymmetriesPerPosition(mode_);
  const int stride = PlaneFloats(size);
  const int pts = size * size;
  const int n = static_cast<int>(positions.size()) * per;
  planes_.resize(static_cast<size_t>(n) * stride);
  logp_.resize(static_cast<size_t>(n) * pts);
  values_.resize(n);
  for (size_t i = 0; i < positions.size(); ++i) {
    if (positions[i].size != size)
      GOMOKU_THROW(ModelError, "position of size " << positions[i].size << " but the network plays " << size);
    EncodeSymmetric(positions[i], mode_, planes_.data() + i * per * stride);
  }
  int64_t gen = forward_->Forward(planes_.data(), n, logp_.data(), values_.data());
  for (size_t i = 0; i < positions.size(); ++i) {
    CombineSymmetric(positions[i], mode_, logp_.data() + i * per * pts, values_.data() + i * per, &results[i]);
    results[i].model_generation = gen;
  }
}

std::string SymmetricEvaluator::Describe() const {
  return forward_->Describe() + ", symmetry " + SymmetryModeName(mode_);
}

}  // namespace gz
