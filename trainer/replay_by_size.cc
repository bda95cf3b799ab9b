#include "trainer/replay_by_size.h"

#include <algorithm>
#include <string>

#include "common/base/errors.h"

namespace gz {

namespace {
std::string SizesList(const std::vector<int>& sizes) {
  std::string out;
  for (int s : sizes) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}
}  // namespace

ReplayBySize::ReplayBySize(const std::vector<int>& sizes, int window_iterations) : window_(window_iterations) {
  GOMOKU_CHECK(!sizes.empty(), "a replay window needs at least one board size");
  sizes_ = sizes;
  std::sort(sizes_.begin(), sizes_.end());
  sizes_.erase(std::unique(sizes_.begin(), sizes_.end()), sizes_.end());
  for (int s : sizes_) buffers_.emplace(s, ReplayBuffer(s, window_iterations));
}

const ReplayBuffer& ReplayBySize::buffer(int size) const {
  auto it = buffers_.find(size);
  GOMOKU_CHECK(it != buffers_.end(), "no replay buffer of board size " << size << " (the run's sizes are "
                                                                       << SizesList(sizes_) << ")");
  return it->second;
}

void ReplayBySize::SetValueTargetQWeight(double w) {
  for (auto& [s, b] : buffers_) b.SetValueTargetQWeight(w);
}

void ReplayBySize::SetSampleWindow(int64_t max_samples) {
  sample_window_ = max_samples;
  SplitSampleWindow();
}

void ReplayBySize::SplitSampleWindow() {
  if (buffers_.size() == 1) {  // ReplayBuffer's own rule, bit for bit
    buffers_.begin()->second.SetSampleWindow(sample_window_);
    return;
  }
  const int64_t held = num_samples();
  for (auto& [s, b] : buffers_) {
    int64_t w = 0;  // all held
    if (sample_window_ > 0 && sample_window_ < held && b.num_samples() > 0) {
      const long double share = static_cast<long double>(sample_window_) * b.num_samples() / held;
      w = std::max<int64_t>(1, static_cast<int64_t>(share));
    }
    b.SetSampleWindow(w);
  }
}

std::map<int, std::vector<const GameRecord*>> ReplayBySize::BySize(const std::vector<const GameRecord*>& games,
                                                                   const char* verb) const {
  std::map<int, std::vector<const GameRecord*>> by_size;
  for (const GameRecord* g : games) {
    GOMOKU_CHECK(has_size(g->board_size), "game of board size " << g->board_size << " " << verb
                                                                << " a replay window of board sizes "
                                                                << SizesList(sizes_));
    by_size[g->board_size].push_back(g);
  }
  return by_size;
}

void ReplayBySize::AddIteration(int64_t iteration, const std::vector<const GameRecord*>& games) {
  if (buffers_.size() == 1) {
    buffers_.begin()->second.AddIteration(iteration, games);  // refuses another size itself
  } else {
    auto by_size = BySize(games, "added to");
    // Every size's buffer takes the iteration (empty or not): all age out alike.
    for (auto& [s, b] : buffers_) b.AddIteration(iteration, by_size[s]);
  }
  SplitSampleWindow();
}

void ReplayBySize::AppendGames(int64_t iteration, const std::vector<const GameRecord*>& games) {
  if (buffers_.size() == 1) {
    buffers_.begin()->second.AppendGames(iteration, games);
  } else {
    auto by_size = BySize(games, "appended to");
    // Every buffer checks the window precondition (they hold the same iterations).
    for (auto& [s, b] : buffers_) b.AppendGames(iteration, by_size[s]);
  }
  SplitSampleWindow();
}

int64_t ReplayBySize::num_samples() const {
  int64_t n = 0;
  for (const auto& [s, b] : buffers_) n += b.num_samples();
  return n;
}

int64_t ReplayBySize::num_samples(int size) const { return has_size(size) ? buffer(size).num_samples() : 0; }

int64_t ReplayBySize::sampled_samples() const {
  int64_t n = 0;
  for (const auto& [s, b] : buffers_) n += b.sampled_samples();
  return n;
}

int64_t ReplayBySize::sampled_samples(int size) const { return has_size(size) ? buffer(size).sampled_samples() : 0; }

std::vector<int64_t> ReplayBySize::iterations() const {
  std::vector<int64_t> out;
  for (const auto& [s, b] : buffers_) {
    std::vector<int64_t> its = b.iterations();
    out.insert(out.end(), its.begin(), its.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t ReplayBySize::samples_in(int64_t iteration) const {
  int64_t n = 0;
  for (const auto& [s, b] : buffers_) n += b.samples_in(iteration);
  return n;
}

int ReplayBySize::DrawSize(std::mt19937_64& rng) const {
  const int64_t total = sampled_samples();
  GOMOKU_CHECK(total > 0, "cannot sample from an empty replay buffer");
  int only = 0, with_samples = 0;
  for (const auto& [s, b] : buffers_)
    if (b.sampled_samples() > 0) {
      only = s;
      ++with_samples;
    }
  if (with_samples == 1) return only;  // no draw: the plain buffer's RNG stream
  int64_t pick = std::uniform_int_distribution<int64_t>(0, total - 1)(rng);
  for (const auto& [s, b] : buffers_) {
    if (pick < b.sampled_samples()) return s;
    pick -= b.sampled_samples();
  }
  return sizes_.back();  // not reached
}

int ReplayBySize::SampleBatch(int n, std::mt19937_64& rng, float* planes, float* policy, float* value) const {
  const int size = DrawSize(rng);
  buffer(size).SampleBatch(n, rng, planes, policy, value);
  return size;
}

}  // namespace gz
