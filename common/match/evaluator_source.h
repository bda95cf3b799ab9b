// Where a SearchPlayer's evaluations come from, game by game
// (EvaluatorProvider): the engine's and the dashboard's EvaluatorSource, or
// one FixedEvaluator made for a match (arena, the evaluator).
//
// EvaluatorSource: a checkpoint (a local network) or, without one, the
// pure-MCTS baseline (RolloutEvaluator with 1 playout per leaf).
//
// The network's forward is the one ChooseForward (common/net/forward_choice.h)
// picks from inference.backend, inference.device and inference.threads: on
// the CPU by default the native forward, 2-3x faster than LibTorch's at the
// engine's batches (docs/benchmarks.md "The native CPU forward").  native with
// a CUDA device is refused (at START, like any load failure).
//
// League nets (docs/engine.md "Nets for every league"): besides `weights`
// the source may hold more checkpoints, and each game is played by the one
// that fits it best: of the game's rule and trained for its size, else of its
// rule and playing the size (conv heads), else (with a warning) a net of a
// kin rule (the caro net for caro-overline: the same game but for overlines),
// else any net that plays the size; ties go to the earlier one (`weights`
// first, then the list order).  The rule is known only when the game's first search starts (INFO
// rule comes after START), so the pick is made by ForGame.
//
// Networks are loaded at construction, so START answers quickly; a load
// failure does not throw here but is kept and reported by CheckSize(), which
// the protocol turns into `ERROR ...` at START (a folder with one broken net
// is refused whole).  A network with fc heads plays only the board size it
// was trained for; one with conv heads (docs/network.md "Heads") plays any
// size 5..22: each net's file is read once, at construction, and its forward
// for a size is made from memory the first time that size is played and kept
// (one per net and size), so games or analysis queries of mixed sizes never
// read a file again; the baseline plays any size 5..22.
// Thread-safety: none; owned by the engine's main thread (a provider's
// evaluators are called from the search threads as thread_safe() allows).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/config/config.h"
#include "common/game/board.h"
#include "common/net/forward_choice.h"
#include "common/net/net_api.h"
#include "common/search/evaluator.h"
#include "common/search/symmetric_batch.h"

namespace gz {

// What a SearchPlayer asks of where its evaluations come from.
class EvaluatorProvider {
 public:
  virtual ~EvaluatorProvider() = default;
  // "" when games on a size x size board can be played, else why not (one line).
  virtual std::string CheckSize(int size) const = 0;
  // One line: what plays.
  virtual std::string Describe() const = 0;
  // The evaluator for a game of `size` under `rule`.  Precondition:
  // CheckSize(size) is "".  Valid at least until the next ForGame.
  virtual Evaluator& ForGame(int size, Rule rule) = 0;
  // Whether its evaluators may be called from several search threads at
  // once (the rollout baseline); a network's calls are serialised.
  virtual bool thread_safe() const = 0;
};

// One evaluator for every game, whatever its rule (a match's players: a net
// loaded for the match's board size, the rollout or uniform baseline).  Owns it.
class FixedEvaluator final : public EvaluatorProvider {
 public:
  // `size`: the board size it plays (0: any size kMinBoardSize..kMaxBoardSize).
  FixedEvaluator(std::unique_ptr<Evaluator> evaluator, int size, bool thread_safe);
  std::string CheckSize(int size) const override;
  std::string Describe() const override { return evaluator_->Describe(); }
  Evaluator& ForGame(int /*size*/, Rule /*rule*/) override { return *evaluator_; }
  bool thread_safe() const override { return thread_safe_; }

 private:
  std::unique_ptr<Evaluator> evaluator_;
  int size_;
  bool thread_safe_;
};

class EvaluatorSource : public EvaluatorProvider {
 public:
  // Baseline when `weights` and `league_nets` are empty, else the networks
  // (loaded now; `weights` is "" or the first candidate).  Reads run.seed and
  // inference.device, inference.threads, inference.symmetry,
  // inference.backend from `config`.
  EvaluatorSource(const std::string& weights, const Config& config,
                  const std::vector<std::string>& league_nets = {});
  ~EvaluatorSource();

  bool uses_network() const { return !nets_.empty(); }
  bool thread_safe() const override { return !uses_network(); }
  // "" when the engine can play on a size x size board, else why not (one line).
  std::string CheckSize(int size) const override;
  // The evaluator for games of `size` under `rule` (the best-fitting net, see
  // above).  Precondition: CheckSize(size) is "".  A net's reference stays
  // valid as long as the source; the baseline's until the next ForGame with
  // another rule.  Throws GomokuError when the net's forward cannot be made
  // at `size`.
  Evaluator& ForGame(int size, Rule rule) override;
  // The checkpoint ForGame(size, rule) plays ("" for the baseline or when no
  // net plays `size`).  Does not load anything.
  std::string NetFor(int size, Rule rule) const;
  // One line: what plays (network path/iteration and its forward, or baseline).
  std::string Describe() const override;
  // The forward the networks run (ChooseForward; the same for every net of
  // the source), or null for the baseline or when no net loaded.
  const ForwardChoice* forward() const;

 private:
  struct Net {
    std::string path;
    CheckpointInfo info;
    std::unique_ptr<NetForwards> forwards;  // null when loading failed
    std::map<int, std::unique_ptr<Evaluator>> by_size;  // the evaluators made so far, by board size
    std::string load_error;
  };
  uint64_t seed_;
  InferenceSettings settings_;
  SymmetryMode symmetry_;
  // Network mode: the candidates, `weights` first.
  std::vector<Net> nets_;
  int current_ = -1;  // index of the net the last ForGame returned (-1: none yet; Describe: the first)
  std::string warned_rule_for_;  // "rule/path" the rule-mismatch warning was given for
  // Index of the best-fitting net of nets_ for (size, rule); -1 when none plays size.
  int Pick(int size, Rule rule) const;
  // Baseline mode.
  std::unique_ptr<Evaluator> baseline_;
  Rule baseline_rule_ = Rule::kFreestyle;
};

}  // namespace gz
