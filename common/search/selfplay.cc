#include "common/search/selfplay.h"

#include <cmath>

#include "common/base/errors.h"
#include "common/base/splitmix.h"
#include "common/game/even_openings.h"
#include "common/game/symmetry.h"

namespace gz {

namespace {

// The leaves of one round of several games: evaluated in one call, each
// result handed back to the game that asked.
class LeafRound {
 public:
  void Clear() {
    positions_.clear();
    owners_.clear();
  }
  void Add(SelfPlayGame* game, const Position& leaf) {
    positions_.push_back(leaf);
    owners_.push_back(game);
  }
  bool empty() const { return positions_.empty(); }
  void EvaluateAndSupply(Evaluator& evaluator) {
    results_.resize(positions_.size());
    evaluator.Evaluate(positions_, results_);
    for (size_t i = 0; i < owners_.size(); ++i) owners_[i]->Supply(results_[i]);
  }

 private:
  std::vector<Position> positions_;
  std::vector<SelfPlayGame*> owners_;
  std::vector<EvalResult> results_;
};

}  // namespace

int64_t PlayGamesStreaming(int slots, const std::function<std::unique_ptr<SelfPlayGame>()>& next,
                           const std::function<void(std::unique_ptr<SelfPlayGame>)>& done, Evaluator& evaluator,
                           const std::atomic<bool>* stop) {
  GOMOKU_CHECK(slots >= 1, "PlayGamesStreaming needs at least one slot, got " << slots);
  int64_t calls = 0;
  bool source_open = true;
  auto take = [&]() -> std::unique_ptr<SelfPlayGame> {
    if (!source_open) return nullptr;
    std::unique_ptr<SelfPlayGame> g = next();
    if (!g) source_open = false;
    return g;
  };
  std::vector<std::unique_ptr<SelfPlayGame>> live;
  LeafRound round;
  for (;;) {
    if (stop && stop->load()) return calls;
    while (static_cast<int>(live.size()) < slots)
      if (auto g = take()) live.push_back(std::move(g));
      else break;
    round.Clear();
    for (size_t i = 0; i < live.size();) {
      if (const Position* p = live[i]->Step()) {
        round.Add(live[i].get(), *p);
        ++i;
        continue;
      }
      // Step() returns nullptr only when the game is over.
      std::unique_ptr<SelfPlayGame> finished = std::move(live[i]);
      if (auto g = take()) live[i] = std::move(g);  // stepped in this same round
      else live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      done(std::move(finished));
    }
    if (round.empty()) return calls;  // nothing in flight and nothing to start
    round.EvaluateAndSupply(evaluator);
    ++calls;
  }
}

int DrawBoardSize(const std::vector<std::pair<int, double>>& shares, int default_size, uint64_t game_seed) {
  if (shares.empty()) return default_size;
  double total = 0;
  for (const auto& share : shares) total += share.second;
  std::mt19937_64 rng(game_seed ^ kBoardSizeSalt);
  double x = UnitDraw(rng) * total;
  for (const auto& [size, weight] : shares) {
    if (x < weight) return size;
    x -= weight;
  }
  return shares.back().first;  // rounding at the top end
}

uint64_t GameSeed(uint64_t run_seed, int64_t iteration, int worker_id, int64_t game_index) {
  uint64_t z = run_seed;
  for (uint64_t x : {static_cast<uint64_t>(iteration), static_cast<uint64_t>(worker_id),
                     static_cast<uint64_t>(game_index)}) {
    z ^= x + kSplitMixGamma + (z << 6) + (z >> 2);
    z = SplitMix64Mix(z);
  }
  return z & 0x7fffffffffffffffULL;  // stored as int64 in game files
}

float MoveTemperature(const SelfPlayParams& p, int move) {
  if (p.temperature_halflife_moves > 0)
    return static_cast<float>(p.final_temperature + (p.initial_temperature - p.final_temperature) *
                                                        std::pow(0.5, move / static_cast<double>(p.temperature_halflife_moves)));
  return move < p.temperature_moves ? p.initial_temperature : p.final_temperature;
}

SelfPlayGame::SelfPlayGame(const SelfPlayParams& params, int board_size, Rule rule, uint64_t seed,
                           int64_t iteration, int64_t model_generation)
    : params_(params),
      mcts_(params.mcts, seed),
      pick_rng_(seed ^ 0x5deece66dULL),
      cap_rng_(seed ^ kPlayoutCapSalt),
      opening_rng_(seed ^ kOpeningSalt),
      open_rng_(seed ^ kOpenOpeningSalt) {
  Board b(board_size, rule);
  max_moves_ = params.max_moves > 0 ? params.max_moves : board_size * board_size;
  record_.board_size = board_size;
  record_.rule = rule;
  record_.seed = static_cast<int64_t>(seed);
  record_.iteration = iteration;
  record_.model_generation = model_generation;
  if (params.resign_on()) {
    std::mt19937_64 resign_rng(seed ^ kResignSalt);
    record_.resign_on = true;
    record_.resign_disabled = UnitDraw(resign_rng) < params.resign_disabled_share;
  }
  if (params.even_opening_share > 0 && StartFromEvenOpening(b, seed)) return;
  if (params.open_opening_share > 0 && UnitDraw(open_rng_) < params.open_opening_share) {
    open_stones_ = static_cast<int>(open_rng_() % static_cast<uint64_t>(params.open_opening_max_stones + 1));
    if (open_stones_ == 0 || params.balanced_opening_moves <= 0) {
      PlaceOpenOpening(b, open_stones_, params.open_opening_radius, open_rng_, record_.opening);
      mcts_.Reset(b);
      if (b.terminal()) Finish();
      return;
    }
  }
  if (params.balanced_opening_moves > 0) {
    // The opening is chosen in Step(): its candidates need evaluations.
    opening_board_ = b;
    opening_phase_ = true;
    mcts_.Reset(b);
    return;
  }
  for (int i = 0; i < params.random_opening_moves && !b.terminal(); ++i) {
    auto legal = b.LegalMoves();
    std::uniform_int_distribution<size_t> d(0, legal.size() - 1);
    int m = legal[d(pick_rng_)];
    b.Play(m);
    record_.opening.push_back(static_cast<int16_t>(m));
  }
  mcts_.Reset(b);
  if (b.terminal()) Finish();
}

bool SelfPlayGame::StartFromEvenOpening(Board& b, uint64_t seed) {
  const std::vector<std::vector<int>> set = EvenOpenings(b.size(), b.rule());
  if (set.empty()) return false;
  std::mt19937_64 rng(seed ^ kEvenOpeningSalt);
  if (UnitDraw(rng) >= params_.even_opening_share) return false;
  const std::vector<int>& opening = set[rng() % set.size()];
  const int sym = static_cast<int>(rng() % kNumSymmetries);
  for (int p : opening) {
    const int m = TransformPoint(sym, p, b.size());
    GOMOKU_CHECK(b.IsLegal(m), "even opening point " << m << " is not legal");
    b.Play(m);
    record_.opening.push_back(static_cast<int16_t>(m));
  }
  mcts_.Reset(b);
  if (b.terminal()) Finish();
  return true;
}

void SelfPlayGame::StartOpeningCandidate() {
  for (;;) {
    Board b(record_.board_size, record_.rule);
    opening_moves_.clear();
    DrawOpeningStones(b);
    ++opening_tries_;
    if (b.terminal() && opening_tries_ < params_.balanced_opening_tries) continue;  // never kept while others remain
    opening_board_ = b;
    mcts_.Reset(b);
    if (!b.terminal()) mcts_.StartMove(/*add_noise=*/false, params_.balanced_opening_simulations);
    opening_started_ = true;
    return;
  }
}

void SelfPlayGame::DrawOpeningStones(Board& b) {
  if (open_stones_ > 0) {
    PlaceOpenOpening(b, open_stones_, params_.open_opening_radius, open_rng_, opening_moves_);
    return;
  }
  for (int i = 0; i < params_.balanced_opening_moves && !b.terminal(); ++i) {
    auto legal = b.LegalMoves();
    std::uniform_int_distribution<size_t> d(0, legal.size() - 1);
    const int m = legal[d(opening_rng_)];
    b.Play(m);
    opening_moves_.push_back(static_cast<int16_t>(m));
  }
}

void PlaceOpenOpening(Board& board, int stones, int radius, std::mt19937_64& rng, std::vector<int16_t>& moves) {
  const int n = board.size(), c = n / 2;
  std::vector<int> candidates;
  for (int i = 0; i < stones && !board.terminal(); ++i) {
    candidates.clear();
    for (int r = std::max(0, c - radius); r <= std::min(n - 1, c + radius); ++r)
      for (int col = std::max(0, c - radius); col <= std::min(n - 1, c + radius); ++col) {
        const int m = r * n + col;
        if (board.at(m) == kEmpty && board.IsLegal(m)) candidates.push_back(m);
      }
    if (candidates.empty()) return;
    const int m = candidates[rng() % candidates.size()];
    board.Play(m);
    moves.push_back(static_cast<int16_t>(m));
  }
}

const Position* SelfPlayGame::StepOpening() {
  while (opening_phase_) {
    if (!opening_started_) StartOpeningCandidate();
    if (!opening_board_.terminal() && !mcts_.MoveDone()) {
      if (const Position* leaf = mcts_.SelectLeaf()) return leaf;
      continue;
    }
    const bool balanced = !opening_board_.terminal() &&
                          std::fabs(mcts_.RootValue()) < params_.balanced_opening_max_value;
    if (balanced || opening_tries_ >= params_.balanced_opening_tries) {
      opening_phase_ = false;
      record_.opening = opening_moves_;
      mcts_.Reset(opening_board_);  // the games' search starts from a fresh tree
      if (opening_board_.terminal()) Finish();
    } else {
      opening_started_ = false;
    }
  }
  return nullptr;
}

void SelfPlayGame::Finish() {
  finished_ = true;
  Outcome o = mcts_.root_board().outcome();
  record_.winner = o == Outcome::kBlackWins ? kBlack : o == Outcome::kWhiteWins ? kWhite : 0;
}

void SelfPlayGame::Adjudicate() {
  const Board& b = mcts_.root_board();
  const Proven p = mcts_.RootProven();
  if (p == Proven::kWin) {
    GOMOKU_CHECK(mcts_.ProvenMove() != kNoMove, "a proven-won root without its winning move");
    record_.AddMove(b, mcts_.VisitDistribution(), mcts_.RootValue(), mcts_.ProvenMove(), mcts_.last_generation());
    if (params_.playout_cap_on()) record_.full_search.push_back(move_full_ ? 1 : 0);
  }
  record_.winner = p == Proven::kWin ? b.to_move() : Opponent(b.to_move());
  record_.adjudicated = true;
  move_started_ = false;
  finished_ = true;
}

void SelfPlayGame::FinishMove() {
  if (params_.adjudicate_proven && mcts_.RootProven() != Proven::kNone) {
    Adjudicate();
    return;
  }
  const Board& b = mcts_.root_board();
  const bool prune = params_.mcts.policy_target_pruning && mcts_.forced_playouts_active();
  std::vector<int> visits = prune ? mcts_.PrunedVisitCounts() : mcts_.VisitCounts();
  int searched = record_.num_moves();
  float tau = MoveTemperature(params_, searched);
  int move = PickMove(visits, tau, pick_rng_);
  std::vector<float> policy;
  if (prune) {
    double total = 0;
    for (int v : visits) total += v;
    policy.assign(visits.size(), 0.0f);
    for (size_t i = 0; i < visits.size(); ++i) policy[i] = static_cast<float>(visits[i] / total);
  } else {
    policy = mcts_.VisitDistribution();
  }
  record_.AddMove(b, policy, mcts_.RootValue(), move, mcts_.last_generation());
  if (params_.playout_cap_on()) record_.full_search.push_back(move_full_ ? 1 : 0);
  if (params_.resign_on()) {
    // The root value of this search is the side to move's; a run of its own
    // searches below the threshold ends the game (or is only noted when this
    // game never resigns).
    int& run = resign_run_[b.to_move() == kBlack ? 0 : 1];
    run = record_.q.back() < params_.resign_threshold ? run + 1 : 0;
    if (run >= params_.resign_consecutive && record_.would_resign_move < 0) {
      record_.would_resign_move = searched;
      if (!record_.resign_disabled) {
        record_.resigned = true;
        record_.winner = Opponent(b.to_move());
        move_started_ = false;
        finished_ = true;
        return;
      }
    }
  }
  mcts_.Advance(move);
  move_started_ = false;
  const Board& nb = mcts_.root_board();
  if (nb.terminal() || nb.move_count() >= max_moves_) Finish();
}

const Position* SelfPlayGame::Step() {
  if (opening_phase_)
    if (const Position* leaf = StepOpening()) return leaf;
  while (!finished_) {
    if (!move_started_) {
      if (params_.playout_cap_on()) {
        move_full_ = UnitDraw(cap_rng_) < params_.playout_cap_p_full;
        if (move_full_) mcts_.StartMove(/*add_noise=*/true);
        else mcts_.StartMove(/*add_noise=*/false, params_.playout_cap_cheap_simulations);
      } else {
        mcts_.StartMove(/*add_noise=*/true);
      }
      move_started_ = true;
    }
    // A proven-won root ends the search at once (MoveDone); adjudication
    // ends the game at a proven loss too, without searching it.
    if (mcts_.MoveDone() || (params_.adjudicate_proven && mcts_.RootProven() == Proven::kLoss)) {
      FinishMove();
      continue;
    }
    if (const Position* leaf = mcts_.SelectLeaf()) return leaf;
  }
  return nullptr;
}

void SelfPlayGame::Supply(const EvalResult& result) { mcts_.ExpandAndBackup(result); }

}  // namespace gz
