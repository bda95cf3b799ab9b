#include "trainer/net_trainer.h"

#include <cmath>
#include <random>
#include <sstream>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {

double ScheduledLearningRate(const TrainConfig& c, int64_t iteration) {
  if (c.lr_schedule == "step") {
    const int64_t drops = std::max<int64_t>(iteration - 1, 0) / c.lr_step_iterations;
    return c.learning_rate * std::pow(c.lr_step_gamma, static_cast<double>(drops));
  }
  return c.learning_rate;
}

NetTrainer::NetTrainer(PolicyValueNet net, const TrainConfig& config, torch::Device device)
    : net_(std::move(net)), config_(config), device_(device) {
  net_->to(device_);
  if (config_.optimizer == "sgd") {
    optimizer_ = std::make_unique<torch::optim::SGD>(
        net_->parameters(), torch::optim::SGDOptions(config_.learning_rate).momentum(config_.momentum));
  } else if (config_.optimizer == "adam") {
    optimizer_ = std::make_unique<torch::optim::Adam>(net_->parameters(),
                                                      torch::optim::AdamOptions(config_.learning_rate));
  } else {
    GOMOKU_THROW(ConfigError, "config key 'train.optimizer': unknown optimizer '" << config_.optimizer << "'");
  }
  net_->eval();
}

NetTrainer::Batch NetTrainer::ToTensors(const float* planes, const float* policy, const float* value, int n) {
  const int size = net_->board_size;
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  Batch b;
  b.planes = torch::from_blob(const_cast<float*>(planes), {n, kNumPlanes, size, size}, opts).to(device_, false, true);
  b.policy = torch::from_blob(const_cast<float*>(policy), {n, size * size}, opts).to(device_, false, true);
  b.value = torch::from_blob(const_cast<float*>(value), {n}, opts).to(device_, false, true);
  return b;
}

torch::Tensor NetTrainer::Losses(const Batch& b, TrainMetrics* m) {
  auto [log_policy, value] = net_->forward(b.planes);
  torch::Tensor policy_loss = -(b.policy * log_policy).sum(1).mean();
  torch::Tensor value_loss = (value - b.value).pow(2).mean();
  torch::Tensor l2 = torch::zeros({}, log_policy.options());
  if (config_.weight_decay > 0) {
    for (const auto& p : net_->parameters())
      if (p.dim() > 1) l2 = l2 + p.pow(2).sum();
    l2 = l2 * config_.weight_decay;
  }
  torch::Tensor total = policy_loss + value_loss + l2;
  {
    torch::NoGradGuard no_grad;
    torch::Tensor entropy = -(log_policy.exp() * log_policy).sum(1).mean();
    torch::Tensor decisive = b.value != 0;
    torch::Tensor agree = (value.sign() == b.value.sign()) & decisive;
    m->policy_loss += policy_loss.item<double>();
    m->value_loss += value_loss.item<double>();
    m->l2_loss += l2.item<double>();
    m->total_loss += total.item<double>();
    m->entropy += entropy.item<double>();
    m->value_accuracy += agree.sum().item<double>();  // divided by `decisive` at the end
    m->decisive += decisive.sum().item<int64_t>();
  }
  return total;
}

namespace {
void Finish(TrainMetrics* m) {
  if (m->steps > 0) {
    const double s = static_cast<double>(m->steps);
    m->policy_loss /= s;
    m->value_loss /= s;
    m->l2_loss /= s;
    m->total_loss /= s;
    m->entropy /= s;
  }
  m->value_accuracy = m->decisive > 0 ? m->value_accuracy / static_cast<double>(m->decisive) : 0.0;
}
}  // namespace

TrainMetrics NetTrainer::Train(const ReplayBuffer& buffer, int64_t iteration, int steps, int batch_size,
                               uint64_t seed, const std::atomic<bool>* stop) {
  GOMOKU_CHECK(buffer.board_size() == net_->board_size,
               "replay buffer board size " << buffer.board_size() << " != network " << net_->board_size);
  TrainMetrics m;
  m.learning_rate = ScheduledLearningRate(config_, iteration);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(m.learning_rate);
  const int size = buffer.board_size();
  std::vector<float> planes(static_cast<size_t>(batch_size) * PlaneFloats(size));
  std::vector<float> policy(static_cast<size_t>(batch_size) * size * size);
  std::vector<float> value(batch_size);
  std::mt19937_64 rng(seed);
  net_->train();
  for (int s = 0; s < steps; ++s) {
    if (stop && stop->load()) break;
    buffer.SampleBatch(batch_size, rng, planes.data(), policy.data(), value.data());
    Batch b = ToTensors(planes.data(), policy.data(), value.data(), batch_size);
    optimizer_->zero_grad();
    torch::Tensor loss = Losses(b, &m);
    if (!std::isfinite(loss.item<double>())) {
      net_->eval();
      GOMOKU_THROW(ModelError, "training diverged: loss is " << loss.item<double>() << " at step " << s
                                                              << " of iteration " << iteration);
    }
    loss.backward();
    optimizer_->step();
    ++m.steps;
    m.samples += batch_size;
  }
  net_->eval();
  Finish(&m);
  return m;
}

TrainMetrics NetTrainer::Evaluate(const float* planes, const float* policy, const float* value, int n) {
  GOMOKU_CHECK(n > 0, "Evaluate needs at least one sample");
  net_->eval();
  torch::NoGradGuard no_grad;
  TrainMetrics m;
  Batch b = ToTensors(planes, policy, value, n);
  Losses(b, &m);
  m.steps = 1;
  m.samples = n;
  Finish(&m);
  return m;
}

void NetTrainer::SaveOptimizerState(const std::string& path) {
  torch::serialize::OutputArchive archive;
  optimizer_->save(archive);
  std::ostringstream out;
  archive.save_to(out);
  WriteFileAtomic(path, out.str());
}

void NetTrainer::LoadOptimizerState(const std::string& path) {
  std::istringstream in(ReadFileOrThrow(path));
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(in, device_);
    optimizer_->load(archive);
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ModelError, "optimizer state " << path << " does not fit this network/optimizer: "
                                                << e.what_without_backtrace());
  }
}

}  // namespace gz
