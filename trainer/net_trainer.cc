#include "trainer/net_trainer.h"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "trainer/data_parallel.h"

namespace gz {

double ScheduledLearningRate(const TrainConfig& c, int64_t iteration) {
  if (c.lr_schedule == "step") {
    const int64_t drops = std::max<int64_t>(iteration - 1, 0) / c.lr_step_iterations;
    const double stepped = c.learning_rate * std::pow(c.lr_step_gamma, static_cast<double>(drops));
    return std::max(stepped, std::min(c.lr_min, c.learning_rate));
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

void NetTrainer::CheckSize(int size, const char* what) const {
  GOMOKU_CHECK(size == net_->board_size || (net_->heads == NetHeads::kConv && size >= kMinBoardSize &&
                                            size <= kMaxBoardSize),
               what << " board size " << size << " != network " << net_->board_size
                    << " (only a net with conv heads runs at other sizes)");
}

NetTrainer::Batch NetTrainer::ToTensors(const float* planes, const float* policy, const float* value, int n,
                                        int size) {
  if (size == 0) size = net_->board_size;
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  Batch b;
  b.planes = torch::from_blob(const_cast<float*>(planes), {n, kNumPlanes, size, size}, opts).to(device_, false, true);
  b.policy = torch::from_blob(const_cast<float*>(policy), {n, size * size}, opts).to(device_, false, true);
  b.value = torch::from_blob(const_cast<float*>(value), {n}, opts).to(device_, false, true);
  return b;
}

NetTrainer::Losses NetTrainer::ComputeLosses(const Batch& b) {
  auto [log_policy, value] = net_->forward(b.planes);
  Losses l;
  l.policy = -(b.policy * log_policy).sum(1).mean();
  l.value = (value - b.value).pow(2).mean();
  l.l2 = torch::zeros({}, log_policy.options());
  if (config_.weight_decay > 0) {
    for (const auto& p : net_->parameters())
      if (p.dim() > 1) l.l2 = l.l2 + p.pow(2).sum();
    l.l2 = l.l2 * config_.weight_decay;
  }
  l.total = l.policy + l.value + l.l2;
  {
    torch::NoGradGuard no_grad;
    l.entropy = -(log_policy.exp() * log_policy).sum(1).mean();
    torch::Tensor decisive = b.value != 0;
    l.agree = ((value.sign() == b.value.sign()) & decisive).sum();
    l.decisive = decisive.sum();
  }
  return l;
}

void NetTrainer::AddMetrics(const Losses& l, TrainMetrics* m) {
  m->policy_loss += l.policy.item<double>();
  m->value_loss += l.value.item<double>();
  m->l2_loss += l.l2.item<double>();
  m->total_loss += l.total.item<double>();
  m->entropy += l.entropy.item<double>();
  m->value_accuracy += l.agree.item<double>();  // divided by `decisive` at the end
  m->decisive += l.decisive.item<int64_t>();
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

// A step's global batch as broadcast: [1 = a step, 0 = the end marker],
// planes (batch * PlaneFloats), policy (batch * size^2), value (batch).
size_t WireFloats(int batch, int size) {
  return 1 + static_cast<size_t>(batch) * (PlaneFloats(size) + size * size + 1);
}
}  // namespace

TrainMetrics NetTrainer::Train(const ReplayBuffer& buffer, int64_t iteration, int steps, int batch_size,
                               uint64_t seed, const std::atomic<bool>* stop) {
  CheckSize(buffer.board_size(), "replay buffer");
  const int size = buffer.board_size();
  if (!dp_)
    return TrainLocal(
        size,
        [&](std::mt19937_64& rng, float* planes, float* policy, float* value) {
          buffer.SampleBatch(batch_size, rng, planes, policy, value);
          return size;
        },
        iteration, steps, batch_size, seed, stop);
  GOMOKU_CHECK(size == net_->board_size,
               "data-parallel training runs at the network's board size " << net_->board_size << ", not " << size);
  // Data-parallel: the followers' command, the state, then the global batches
  // (sampled here, by the same seeded RNG as one process draws).
  TrainMetrics m;
  m.learning_rate = ScheduledLearningRate(config_, iteration);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(m.learning_rate);
  std::mt19937_64 rng(seed);
  dp_->stats() = DistStats();
  dp_->Post({{"op", "train"}, {"iteration", iteration}, {"batch_size", batch_size}, {"lr", m.learning_rate}});
  SyncState();
  std::vector<float> wire(WireFloats(batch_size, size));
  float* wp = wire.data() + 1;
  float* wpol = wp + static_cast<size_t>(batch_size) * PlaneFloats(size);
  float* wval = wpol + static_cast<size_t>(batch_size) * size * size;
  torch::Tensor wire_t = torch::from_blob(wire.data(), {static_cast<int64_t>(wire.size())}, torch::kFloat32);
  net_->train();
  for (int s = 0; s < steps; ++s) {
    if (stop && stop->load()) break;
    buffer.SampleBatch(batch_size, rng, wp, wpol, wval);
    wire[0] = 1.0f;
    dp_->Broadcast(wire_t);
    DistributedStep(wire.data(), batch_size, iteration, s, &m);
    ++m.steps;
    m.samples += batch_size;
    ++m.steps_by_size[size];
  }
  wire[0] = 0.0f;
  dp_->Broadcast(wire_t);  // the end marker (also after a stop: the followers leave the loop)
  net_->eval();
  Finish(&m);
  return m;
}

TrainMetrics NetTrainer::Train(const ReplayBySize& replay, int64_t iteration, int steps, int batch_size, uint64_t seed,
                               const std::atomic<bool>* stop) {
  if (replay.sizes().size() == 1) return Train(replay.buffer(replay.sizes().front()), iteration, steps, batch_size,
                                               seed, stop);
  for (int size : replay.sizes()) CheckSize(size, "replay window");
  GOMOKU_CHECK(!dp_, "data-parallel training takes one board size; the replay window has " << replay.sizes().size());
  // One size per batch: positions of different sizes never share a forward.
  return TrainLocal(
      replay.max_size(),
      [&](std::mt19937_64& rng, float* planes, float* policy, float* value) {
        return replay.SampleBatch(batch_size, rng, planes, policy, value);
      },
      iteration, steps, batch_size, seed, stop);
}

TrainMetrics NetTrainer::TrainLocal(int max_size, const BatchSampler& sample, int64_t iteration, int steps,
                                    int batch_size, uint64_t seed, const std::atomic<bool>* stop) {
  TrainMetrics m;
  m.learning_rate = ScheduledLearningRate(config_, iteration);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(m.learning_rate);
  std::vector<float> planes(static_cast<size_t>(batch_size) * PlaneFloats(max_size));
  std::vector<float> policy(static_cast<size_t>(batch_size) * max_size * max_size);
  std::vector<float> value(batch_size);
  std::mt19937_64 rng(seed);
  net_->train();
  for (int s = 0; s < steps; ++s) {
    if (stop && stop->load()) break;
    const int size = sample(rng, planes.data(), policy.data(), value.data());
    LocalStep(planes.data(), policy.data(), value.data(), batch_size, size, iteration, s, &m);
  }
  net_->eval();
  Finish(&m);
  return m;
}

void NetTrainer::LocalStep(const float* planes, const float* policy, const float* value, int n, int size,
                           int64_t iteration, int step, TrainMetrics* m) {
  Batch b = ToTensors(planes, policy, value, n, size);
  optimizer_->zero_grad();
  Losses l = ComputeLosses(b);
  AddMetrics(l, m);
  if (!std::isfinite(l.total.item<double>())) {
    net_->eval();
    GOMOKU_THROW(ModelError, "training diverged: loss is " << l.total.item<double>() << " at step " << step
                                                            << " of iteration " << iteration);
  }
  l.total.backward();
  optimizer_->step();
  ++m->steps;
  m->samples += n;
  ++m->steps_by_size[size];
}

void NetTrainer::SyncState() {
  std::string blob;
  if (dp_->leader()) blob = SerializeState();
  dp_->BroadcastBytes(&blob);
  if (!dp_->leader()) LoadState(blob);
}

void NetTrainer::DistributedStep(const float* wire, int batch, int64_t iteration, int step, TrainMetrics* m) {
  const int size = net_->board_size;
  const int world = dp_->world_size();
  const auto [first, last] = RankSlice(batch, dp_->rank(), world);
  const int n = last - first;
  const float* planes = wire + 1;
  const float* policy = planes + static_cast<size_t>(batch) * PlaneFloats(size);
  const float* value = policy + static_cast<size_t>(batch) * size * size;
  Batch b = ToTensors(planes + static_cast<size_t>(first) * PlaneFloats(size),
                      policy + static_cast<size_t>(first) * size * size, value + first, n);
  optimizer_->zero_grad();
  Losses l = ComputeLosses(b);
  // This rank's share of the global mean: summing the ranks' weighted
  // gradients gives the gradient of the whole batch's loss.
  const double w = static_cast<double>(n) / batch;
  (l.total * w).backward();
  std::vector<torch::Tensor> sync;
  std::vector<torch::Tensor> buffers;
  torch::Tensor metrics;
  {
    torch::NoGradGuard no_grad;
    for (auto& p : net_->parameters()) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      sync.push_back(p.grad());
    }
    for (auto& buf : net_->buffers())
      if (buf.is_floating_point()) buffers.push_back(buf);
    sync.insert(sync.end(), buffers.begin(), buffers.end());
    metrics = torch::stack({l.policy.detach() * w, l.value.detach() * w, l.l2.detach() * w, l.total.detach() * w,
                            l.entropy * w, l.agree.to(torch::kFloat32), l.decisive.to(torch::kFloat32)});
    sync.push_back(metrics);
  }
  dp_->AllreduceSum(sync);
  {
    torch::NoGradGuard no_grad;
    for (auto& buf : buffers) buf.div_(world);  // per-rank statistics, averaged
  }
  const torch::Tensor mc = metrics.to(torch::kCPU);
  const float* mv = mc.data_ptr<float>();
  m->policy_loss += mv[0];
  m->value_loss += mv[1];
  m->l2_loss += mv[2];
  m->total_loss += mv[3];
  m->entropy += mv[4];
  m->value_accuracy += mv[5];
  m->decisive += static_cast<int64_t>(mv[6]);
  if (!std::isfinite(mv[3])) {
    net_->eval();
    GOMOKU_THROW(ModelError, "training diverged: loss is " << mv[3] << " at step " << step << " of iteration "
                                                            << iteration);
  }
  optimizer_->step();
}

TrainMetrics NetTrainer::Follow(const nlohmann::json& command) {
  GOMOKU_CHECK(dp_ && !dp_->leader(), "Follow runs on a follower rank");
  const int batch = command.at("batch_size").get<int>();
  const int64_t iteration = command.at("iteration").get<int64_t>();
  TrainMetrics m;
  m.learning_rate = command.at("lr").get<double>();
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(m.learning_rate);
  dp_->stats() = DistStats();
  SyncState();
  std::vector<float> wire(WireFloats(batch, net_->board_size));
  torch::Tensor wire_t = torch::from_blob(wire.data(), {static_cast<int64_t>(wire.size())}, torch::kFloat32);
  net_->train();
  for (int s = 0;; ++s) {
    dp_->Broadcast(wire_t);
    if (wire[0] == 0.0f) break;
    DistributedStep(wire.data(), batch, iteration, s, &m);
    ++m.steps;
    m.samples += batch;
  }
  net_->eval();
  Finish(&m);
  return m;
}

std::string NetTrainer::SerializeState() {
  auto save = [](auto& what) {
    torch::serialize::OutputArchive archive;
    what.save(archive);
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
  };
  const std::string net = save(*net_);
  const std::string opt = save(*optimizer_);
  const uint64_t n = net.size();
  std::string out(reinterpret_cast<const char*>(&n), sizeof n);
  return out + net + opt;
}

void NetTrainer::LoadState(const std::string& bytes) {
  uint64_t n = 0;
  if (bytes.size() < sizeof n) GOMOKU_THROW(ModelError, "data-parallel state: " << bytes.size() << " bytes");
  std::memcpy(&n, bytes.data(), sizeof n);
  if (n > bytes.size() - sizeof n) GOMOKU_THROW(ModelError, "data-parallel state: bad length " << n);
  try {
    std::istringstream net_in(bytes.substr(sizeof n, n));
    torch::serialize::InputArchive net_archive;
    net_archive.load_from(net_in, device_);
    net_->load(net_archive);
    std::istringstream opt_in(bytes.substr(sizeof n + n));
    torch::serialize::InputArchive opt_archive;
    opt_archive.load_from(opt_in, device_);
    optimizer_->load(opt_archive);
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ModelError, "data-parallel state from rank 0 does not fit this rank's network/optimizer (same "
                             "board.*, net.* and train.optimizer on every rank?): "
                                 << e.what_without_backtrace());
  }
}

TrainMetrics NetTrainer::Evaluate(const float* planes, const float* policy, const float* value, int n, int size) {
  GOMOKU_CHECK(n > 0, "Evaluate needs at least one sample");
  if (size != 0) CheckSize(size, "evaluation data");
  net_->eval();
  torch::NoGradGuard no_grad;
  TrainMetrics m;
  Batch b = ToTensors(planes, policy, value, n, size);
  AddMetrics(ComputeLosses(b), &m);
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
