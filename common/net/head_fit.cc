#include "common/net/head_fit.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "common/base/errors.h"
#include "common/game/encoder.h"

namespace gz {
namespace {

constexpr int kGamesAtOnce = 64;
constexpr int kBatch = 256;

// A game's opening: 0-4 stones on random empty points within 3 of the centre, colours alternating.
Board RandomOpening(int size, Rule rule, std::mt19937_64& rng) {
  Board b(size, rule);
  const int stones = static_cast<int>(rng() % 5);
  const int c = size / 2;
  for (int i = 0; i < stones && !b.terminal();) {
    const int r = c - 3 + static_cast<int>(rng() % 7), col = c - 3 + static_cast<int>(rng() % 7);
    const int m = r * size + col;
    if (b.IsLegal(m)) {
      b.Play(m);
      ++i;
    }
  }
  return b;
}

torch::Tensor Encode(const std::vector<Board>& boards, int size) {
  torch::Tensor planes = torch::empty({static_cast<int64_t>(boards.size()), kNumPlanes, size, size});
  float* out = planes.data_ptr<float>();
  for (size_t i = 0; i < boards.size(); ++i) EncodePosition(boards[i].ToPosition(), 0, out + i * PlaneFloats(size));
  return planes;
}

// The parameters to fit: the heads (everything but the stem input_* and the
// residual tower), or with `whole` every parameter.
std::vector<torch::Tensor> FittedParameters(PolicyValueNet& net, bool whole) {
  std::vector<torch::Tensor> out;
  for (auto& p : net->named_parameters(true))
    if (whole || (p.key().rfind("input_", 0) != 0 && p.key().rfind("tower.", 0) != 0)) out.push_back(p.value());
  return out;
}

// Each game goes on with a move drawn from the teacher's policy `logp` over
// its legal moves; finished games drop out.
void PlayTeacherMoves(std::vector<Board>& games, const torch::Tensor& logp, int n, std::mt19937_64& rng) {
  torch::Tensor p = logp.exp();
  const float* pp = p.data_ptr<float>();
  std::vector<Board> next;
  for (size_t g = 0; g < games.size(); ++g) {
    std::vector<double> w(static_cast<size_t>(n), 0.0);
    for (int m = 0; m < n; ++m)
      if (games[g].IsLegal(m)) w[static_cast<size_t>(m)] = std::max(1e-6, static_cast<double>(pp[g * n + m]));
    if (std::all_of(w.begin(), w.end(), [](double x) { return x == 0.0; })) continue;
    std::discrete_distribution<int> pick(w.begin(), w.end());
    games[g].Play(pick(rng));
    if (!games[g].terminal()) next.push_back(games[g]);
  }
  games = std::move(next);
}

// The fitting set, shuffled: the student's inputs and the teacher's targets.
struct FitSet {
  torch::Tensor x, logp, v;
};

// `o.positions` positions and the teacher's targets; the student's inputs are
// the (frozen) tower's features, or with `whole` the encoded planes.
FitSet TeacherPositions(PolicyValueNet& teacher, PolicyValueNet& student, const HeadFitOptions& o,
                        std::mt19937_64& rng) {
  const int n = o.size * o.size;
  std::vector<torch::Tensor> inputs, target_logp, target_v;
  int have = 0;
  std::vector<Board> games;
  {
    torch::NoGradGuard no_grad;
    while (have < o.positions) {
      while (static_cast<int>(games.size()) < kGamesAtOnce) games.push_back(RandomOpening(o.size, o.rule, rng));
      torch::Tensor planes = Encode(games, o.size);
      auto [logp, v] = teacher->forward(planes);
      inputs.push_back(o.whole ? planes : student->Tower(planes));
      target_logp.push_back(logp);
      target_v.push_back(v);
      have += static_cast<int>(games.size());
      PlayTeacherMoves(games, logp, n, rng);
    }
  }
  FitSet set{torch::cat(inputs).narrow(0, 0, o.positions), torch::cat(target_logp).narrow(0, 0, o.positions),
             torch::cat(target_v).narrow(0, 0, o.positions)};
  torch::Tensor order = torch::randperm(o.positions);
  set.x = set.x.index_select(0, order);
  set.logp = set.logp.index_select(0, order);
  set.v = set.v.index_select(0, order);
  return set;
}

// KL(teacher || student) on the policy and the squared value difference.
std::pair<torch::Tensor, torch::Tensor> LossOf(const torch::Tensor& logp, const torch::Tensor& v,
                                               const torch::Tensor& tl, const torch::Tensor& tvv) {
  torch::Tensor kl = (tl.exp() * (tl - logp)).sum(1).mean();
  torch::Tensor mse = (v - tvv).pow(2).mean();
  return std::make_pair(kl, mse);
}

// The student's outputs on rows of the fitting set's inputs.
std::pair<torch::Tensor, torch::Tensor> StudentOn(PolicyValueNet& student, const torch::Tensor& rows, bool whole) {
  return whole ? student->ForwardConv(rows) : student->ConvHeads(rows);
}

// `o.steps` Adam steps on random batches of the first `fit` rows.
void TrainStudent(PolicyValueNet& student, const FitSet& set, int fit, const HeadFitOptions& o) {
  student->train();
  torch::optim::Adam opt(FittedParameters(student, o.whole), torch::optim::AdamOptions(1e-3));
  for (int step = 0; step < o.steps; ++step) {
    torch::Tensor idx = torch::randint(fit, {kBatch}, torch::kLong);
    auto [logp, v] = StudentOn(student, set.x.index_select(0, idx), o.whole);
    auto [kl, mse] = LossOf(logp, v, set.logp.index_select(0, idx), set.v.index_select(0, idx));
    torch::Tensor loss = kl + mse;
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  student->eval();
}

}  // namespace

std::string HeadFitReport::Describe() const {
  std::ostringstream os;
  os.precision(3);
  os << positions << " positions; held out: policy KL " << policy_kl << " nats, value MSE " << value_mse
     << ", top move agrees " << 100.0 * top1_agree << "%";
  return os.str();
}

HeadFitReport FitConvHeads(PolicyValueNet& teacher, PolicyValueNet& student, const HeadFitOptions& o) {
  GOMOKU_CHECK(student->heads == NetHeads::kConv, "FitConvHeads: the student must have conv heads");
  GOMOKU_CHECK(o.positions >= 100 && o.steps >= 1, "FitConvHeads: needs at least 100 positions and 1 step");
  torch::manual_seed(o.seed);
  std::mt19937_64 rng(o.seed);
  teacher->eval();
  student->eval();
  const FitSet set = TeacherPositions(teacher, student, o, rng);
  const int held = std::max(1, o.positions / 10), fit = o.positions - held;
  TrainStudent(student, set, fit, o);

  // The held-out rows.
  HeadFitReport r;
  r.positions = o.positions;
  torch::NoGradGuard no_grad;
  auto [logp, v] = StudentOn(student, set.x.narrow(0, fit, held), o.whole);
  torch::Tensor tl = set.logp.narrow(0, fit, held);
  auto [kl, mse] = LossOf(logp, v, tl, set.v.narrow(0, fit, held));
  r.policy_kl = kl.item<double>();
  r.value_mse = mse.item<double>();
  r.top1_agree = logp.argmax(1).eq(tl.argmax(1)).to(torch::kFloat).mean().item<double>();
  return r;
}

}  // namespace gz
