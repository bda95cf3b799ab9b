#include "common/match/evaluator_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <sstream>

#include "common/base/errors.h"
#include "common/match/move_player.h"
#include "common/net/net_api.h"
#include "common/search/simple_evaluators.h"
#include "common/search/symmetric_batch.h"

namespace gz {
FixedEvaluator::FixedEvaluator(std::unique_ptr<Evaluator> evaluator, int size, bool thread_safe)
    : evaluator_(std::move(evaluator)), size_(size), thread_safe_(thread_safe) {}

std::string FixedEvaluator::CheckSize(int size) const {
  if (size_ <= 0 || size == size_) return BoardSizeOutOfRange(size);
  return "board size " + std::to_string(size) + " is not supported: this player was made for " +
         std::to_string(size_) + "x" + std::to_string(size_);
}

EvaluatorSource::EvaluatorSource(const std::string& weights, const Config& config,
                                 const std::vector<std::string>& league_nets)
    : seed_(config.run.seed), symmetry_(ParseSymmetryMode(config.inference.symmetry)) {
  settings_.backend = config.inference.backend;
  settings_.device = config.inference.device;
  settings_.threads = config.inference.threads;
  std::vector<std::string> paths;
  if (!weights.empty()) paths.push_back(weights);
  for (const std::string& p : league_nets)
    if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  if (paths.empty()) {
    baseline_ = std::make_unique<RolloutEvaluator>(baseline_rule_, 1, seed_);
    return;
  }
  for (const std::string& path : paths) {
    Net net;
    net.path = path;
    try {
      // The one read of the file; ForGame makes each size's forward from it.
      net.forwards = std::make_unique<NetForwards>(path, settings_);
      net.info = net.forwards->info();
      auto& first = net.by_size[net.info.board_size];
      first = std::make_unique<SymmetricEvaluator>(net.forwards->Make(net.info.board_size), symmetry_);
      spdlog::info("engine: loaded {} ({}x{}, {}, {} ch x {} blocks, {} heads, iteration {}): {}", path,
                   net.info.board_size, net.info.board_size, net.info.rule, net.info.channels, net.info.blocks,
                   NetHeadsName(net.info.heads), net.info.iteration, first->Describe());
    } catch (const std::exception& e) {
      net.load_error = e.what();
      net.forwards.reset();
      net.by_size.clear();
      spdlog::error("engine: cannot load weights {}: {}", path, net.load_error);
    }
    nets_.push_back(std::move(net));
  }
}

EvaluatorSource::~EvaluatorSource() = default;

int EvaluatorSource::Pick(int size, Rule rule) const {
  // Best first: the game's rule and trained for the size; the game's rule; a
  // kin rule (both caro rules) trained for the size; a kin rule; any rule
  // trained for the size; any rule.  Ties: list order.
  int best = -1, best_rank = 6;
  for (int i = 0; i < static_cast<int>(nets_.size()); ++i) {
    const Net& n = nets_[static_cast<size_t>(i)];
    if (!n.forwards || !CheckpointPlaysSize(n.info, size)) continue;
    const bool same_rule = n.info.rule == RuleName(rule);
    const bool kin_rule = IsCaro(rule) && (n.info.rule == RuleName(Rule::kCaro) ||
                                           n.info.rule == RuleName(Rule::kCaroOverline));
    const bool same_size = n.info.board_size == size;
    const int rank = (same_rule ? 0 : kin_rule ? 2 : 4) + (same_size ? 0 : 1);
    if (rank < best_rank) {
      best = i;
      best_rank = rank;
    }
  }
  return best;
}

std::string EvaluatorSource::NetFor(int size, Rule rule) const {
  const int i = Pick(size, rule);
  return i < 0 ? "" : nets_[static_cast<size_t>(i)].path;
}

std::string EvaluatorSource::CheckSize(int size) const {
  std::ostringstream why;
  if (const std::string range = BoardSizeOutOfRange(size); !range.empty()) {
    why << range;
  } else if (uses_network()) {
    for (const Net& n : nets_)
      if (!n.forwards) {
        why << "cannot load weights " << n.path << ": " << n.load_error;
        break;
      }
    const bool plays = std::any_of(nets_.begin(), nets_.end(),
                                   [size](const Net& n) { return CheckpointPlaysSize(n.info, size); });
    if (why.str().empty() && !plays) {
      const Net& n = nets_.front();
      why << "board size " << size << " is not supported: the checkpoint" << (nets_.size() > 1 ? "s were" : " was")
          << " trained for " << n.info.board_size << "x" << n.info.board_size;
      for (size_t i = 1; i < nets_.size(); ++i) why << ", " << nets_[i].info.board_size << "x" << nets_[i].info.board_size;
      why << " and fc heads play only that size (a conv-heads checkpoint plays any size)";
    }
  }
  std::string s = why.str();
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

Evaluator& EvaluatorSource::ForGame(int size, Rule rule) {
  if (uses_network()) {
    const int i = Pick(size, rule);
    GOMOKU_CHECK(i >= 0, "no network plays " << size << "x" << size << ": " << CheckSize(size));
    Net& n = nets_[static_cast<size_t>(i)];
    if (i != current_) spdlog::info("engine: {} plays this {}x{} {} game", n.path, size, size, RuleName(rule));
    current_ = i;
    std::unique_ptr<Evaluator>& evaluator = n.by_size[size];
    if (!evaluator) {
      // Conv heads: a forward at the game's size, from the weights in memory.
      evaluator = std::make_unique<SymmetricEvaluator>(n.forwards->Make(size), symmetry_);
      spdlog::info("engine: {} now plays {}x{} too: {}", n.path, size, size, evaluator->Describe());
    }
    const std::string key = std::string(RuleName(rule)) + "/" + n.path;
    if (n.info.rule != RuleName(rule) && warned_rule_for_ != key) {
      spdlog::warn("engine: no net of rule '{}' plays {}x{}; {} (rule '{}') plays it, and the search applies the "
                   "game's rule",
                   RuleName(rule), size, size, n.path, n.info.rule);
      warned_rule_for_ = key;
    }
    return *evaluator;
  }
  if (rule != baseline_rule_) {
    baseline_ = std::make_unique<RolloutEvaluator>(rule, 1, seed_);
    baseline_rule_ = rule;
  }
  return *baseline_;
}

const ForwardChoice* EvaluatorSource::forward() const {
  for (const Net& n : nets_)
    if (n.forwards) return &n.forwards->choice();
  return nullptr;
}

std::string EvaluatorSource::Describe() const {
  std::ostringstream os;
  if (!uses_network())
    os << "pure-MCTS baseline: " << baseline_->Describe();
  else {
    const Net& n = nets_[static_cast<size_t>(std::max(current_, 0))];
    if (!n.forwards)
      os << "network " << n.path << " (failed to load: " << n.load_error << ")";
    else
      os << "network " << n.path << " (" << n.info.board_size << "x" << n.info.board_size << ", " << n.info.heads
         << " heads, " << n.info.rule << ", iteration " << n.info.iteration << "; "
         << n.forwards->choice().Describe() << ")";
    if (nets_.size() > 1) os << " and " << nets_.size() - 1 << " more league net(s)";
  }
  return os.str();
}

}  // namespace gz
