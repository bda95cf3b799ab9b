#include "infer_server/auto_wait.h"

#include <algorithm>
#include <cmath>

namespace gz {
namespace {

constexpr double kFitWeight = 1.0 / 32;      // EWLS forgetting per forward
constexpr double kMinBatchVariance = 0.25;   // positions^2: below this the fit is kept
constexpr double kTauForwards = 8;
constexpr double kMinTau_s = 0.002, kMaxTau_s = 0.2;

double Decayed(double value, double at, double now, double tau) {
  return now > at ? value * std::exp(-(now - at) / tau) : value;
}

}  // namespace

double AutoWaitModel::Tau() const {
  return std::clamp(kTauForwards * avg_forward_s_, kMinTau_s, kMaxTau_s);
}

void AutoWaitModel::RecordArrival(double now, int positions) {
  arrivals_ = Decayed(arrivals_, arrivals_at_, now, Tau()) + positions;
  arrivals_at_ = std::max(arrivals_at_, now);
}

void AutoWaitModel::RecordForward(double start, double end, int positions) {
  const double t = std::max(end - start, 0.0);
  busy_ = Decayed(busy_, busy_at_, end, Tau()) + t;
  busy_at_ = std::max(busy_at_, end);
  ++forwards_;
  avg_forward_s_ = forwards_ == 1 ? t : avg_forward_s_ + (t - avg_forward_s_) * kFitWeight;
  const double x = positions, w = s0_ == 0 ? 1.0 : kFitWeight;  // the first sample, unless seeded
  s0_ = (1 - w) * s0_ + w;
  sx_ = (1 - w) * sx_ + w * x;
  sy_ = (1 - w) * sy_ + w * t;
  sxx_ = (1 - w) * sxx_ + w * x * x;
  sxy_ = (1 - w) * sxy_ + w * x * t;
  Fit();
}

void AutoWaitModel::SeedCost(int b1, double t1, int b2, double t2) {
  s0_ = 1;
  sx_ = (b1 + b2) / 2.0;
  sy_ = (t1 + t2) / 2.0;
  sxx_ = (static_cast<double>(b1) * b1 + static_cast<double>(b2) * b2) / 2.0;
  sxy_ = (b1 * t1 + b2 * t2) / 2.0;
  if (forwards_ == 0) avg_forward_s_ = std::max(t1, t2);
  fitted_ = false;
  Fit();
}

void AutoWaitModel::Fit() {
  const double mx = sx_ / s0_, my = sy_ / s0_;
  const double var = sxx_ / s0_ - mx * mx;
  if (var >= kMinBatchVariance) {
    c_ = std::max(0.0, (sxy_ / s0_ - mx * my) / var);
    t0_ = my - c_ * mx;
    if (t0_ < 0) {  // forwards proportional to their size: no fixed cost
      t0_ = 0;
      c_ = my / std::max(mx, 1.0);
    }
    fitted_ = true;
  } else if (!fitted_) {
    // All forwards of one size so far: charge it all to the fixed cost (an
    // over-estimate for big batches; the ceiling bounds the effect).
    c_ = 0;
    t0_ = my;
  }
}

WaitEstimates AutoWaitModel::Estimates(double now) const {
  WaitEstimates e;
  const double tau = Tau();
  e.tau_s = tau;
  e.t0_s = t0_;
  e.c_s = c_;
  e.forwards = forwards_;
  e.arrival_per_s = Decayed(arrivals_, arrivals_at_, now, tau) / tau;
  e.busy = std::clamp(Decayed(busy_, busy_at_, now, tau) / tau, 0.0, 1.0);
  return e;
}

double AutoWaitModel::Budget(int b, const WaitEstimates& e) {
  if (b < 1) b = 1;
  return (e.t0_s * (1 + e.busy * b) - e.c_s * b) / (b + 1);
}

double AutoWaitModel::OpenUntil(int b, const WaitEstimates& e, double now, double last_growth) {
  const double budget = Budget(b, e);
  if (budget <= 0 || e.arrival_per_s * budget < 1) return now;  // next position expected too late
  return last_growth + budget;
}

double AutoWaitModel::CeilingAt(double oldest, double opened, double ceiling_s) {
  return std::max(oldest, opened) + ceiling_s;
}

}  // namespace gz
