#include "common/match/analysis_engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <new>
#include <nlohmann/json.hpp>
#include <utility>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "common/base/errors.h"
#include "common/match/analysis_report.h"
#include "common/match/analysis_response.h"

namespace gz {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxLineBytes = size_t{1} << 20;

}  // namespace

int64_t TreeBytesForMemory(int64_t memory_bytes) { return std::max<int64_t>(0, memory_bytes) / 3; }

int64_t AnalysisMemoryBudget(int64_t requested) {
  constexpr int64_t kMin = int64_t{1} << 20;
  int64_t budget = requested;
#if defined(__linux__)
  struct rlimit limit {};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    int64_t mapped = 0;  // /proc/self/statm: the first field is the address space in pages
    std::ifstream statm("/proc/self/statm");
    int64_t pages = 0;
    if (statm >> pages) mapped = pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
    const int64_t left = static_cast<int64_t>(limit.rlim_cur) - mapped;
    budget = std::min(budget, left / 4 * 3);
  }
#endif
  return std::max(budget, kMin);
}

struct AnalysisEngine::Search {
  std::shared_ptr<const AnalysisQuery> query;
  int turn = 0;
  Board board;
  std::vector<int> avoid;  // root moves kept off
  Mcts mcts;
  Mcts::LeafBatch batch;
  std::vector<EvalResult> results;
  bool started = false;
  bool excluded_done = false;
  bool terminated = false;
  bool memory_limited = false;  // its tree reached the memory budget: it ends with what it has
  Clock::time_point start, last_report;

  Search(std::shared_ptr<const AnalysisQuery> q, int t, const MctsParams& params, uint64_t seed)
      : query(std::move(q)), turn(t), board(PositionAtTurn(*query, t)), mcts(params, seed) {
    for (auto [who, p] : query->avoid)
      if (who == kEmpty || who == board.to_move()) avoid.push_back(p);
  }
  const std::string& id() const { return query->id; }
};

AnalysisEngine::AnalysisEngine(EvaluatorSource& source, const MctsParams& params, uint64_t seed, Output out,
                               AnalysisEngineOptions options)
    : source_(source), params_(params), seed_(seed), out_(std::move(out)), options_(options) {
  params_.dirichlet_alpha = 0.0f;  // analysis never adds noise
  params_.dirichlet_epsilon = 0.0f;
  params_.dirichlet_alpha_scaled = 0.0f;
  params_.forced_playouts_k = 0.0f;
  GOMOKU_CHECK(options_.leaves_per_search >= 1 && options_.max_searches >= 1,
               "analysis: leaves_per_search and max_searches must be >= 1");
  search_tree_bytes_ = options_.search_tree_bytes > 0 ? std::min(options_.search_tree_bytes, options_.total_tree_bytes)
                                                      : options_.total_tree_bytes;
  GOMOKU_CHECK(options_.total_tree_bytes >= AnalysisEngineOptions::kMinTreeBytes &&
                   search_tree_bytes_ >= AnalysisEngineOptions::kMinTreeBytes,
               "analysis: the tree memory budgets must be >= " << AnalysisEngineOptions::kMinTreeBytes << " bytes");
}

AnalysisEngine::~AnalysisEngine() = default;

void AnalysisEngine::Emit(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu_);
  out_(line);
}

AnalysisEngine::Stats AnalysisEngine::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.seeds = next_seed_.load();
  return s;
}

void AnalysisEngine::Submit(const std::string& line) {
  if (line.find_first_not_of(" \t\r\n") == std::string::npos) return;
  if (line.size() > kMaxLineBytes) {
    Emit(QueryErrorLine("", "", "query line longer than " + std::to_string(kMaxLineBytes) + " bytes"));
    return;
  }
  ParsedQuery p = ParseAnalysisQuery(line, options_.limits);
  if (!p.ok()) {
    spdlog::warn("analyze: refused query '{}': {} ({})", p.id, p.error, p.field);
    Emit(QueryErrorLine(p.id, p.field, p.error));
    return;
  }
  json ack;
  ack["id"] = p.id;
  switch (p.action) {
    case QueryAction::kQueryVersion:
      ack["action"] = "query_version";
      ack["version"] = options_.version;
      ack["protocol"] = "gomoku-zero analysis 1 (KataGo-style JSON lines)";
      Emit(ack.dump());
      return;
    case QueryAction::kClearCache:
      ack["action"] = "clear_cache";
      Emit(ack.dump());
      return;
    case QueryAction::kTerminate:
    case QueryAction::kTerminateAll: {
      const bool all = p.action == QueryAction::kTerminateAll;
      {
        std::lock_guard<std::mutex> lock(mu_);
        terminations_.push_back({all ? std::string() : p.terminate_id, p.terminate_turns});
      }
      cv_.notify_all();
      ack["action"] = all ? "terminate_all" : "terminate";
      if (!all) ack["terminateId"] = p.terminate_id;
      if (!p.terminate_turns.empty()) ack["turnNumbers"] = p.terminate_turns;
      Emit(ack.dump());
      return;
    }
    case QueryAction::kAnalyze:
      break;
  }
  auto query = std::make_shared<const AnalysisQuery>(std::move(p.query));
  std::vector<std::unique_ptr<Search>> made;
  for (int t : query->analyze_turns)
    made.push_back(std::make_unique<Search>(query, t, params_, seed_ + next_seed_.fetch_add(1)));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : made) queued_.push_back(std::move(s));
  }
  cv_.notify_all();
}

void AnalysisEngine::CloseInput() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

bool AnalysisEngine::Admit(std::vector<std::unique_ptr<Search>>& active) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    auto matches = [](const Termination& t, const Search& s) {
      return (t.id.empty() || t.id == s.id()) &&
             (t.turns.empty() || std::find(t.turns.begin(), t.turns.end(), s.turn) != t.turns.end());
    };
    for (const Termination& t : terminations_) {
      for (auto& s : active)
        if (matches(t, *s)) s->terminated = true;
      for (auto it = queued_.begin(); it != queued_.end();) {
        if (!matches(t, **it)) {
          ++it;
          continue;
        }
        Emit(NoResultsLine((*it)->id(), (*it)->turn));
        it = queued_.erase(it);
      }
    }
    terminations_.clear();
    while (!queued_.empty() && static_cast<int>(active.size()) < options_.max_searches) {
      active.push_back(std::move(queued_.front()));
      queued_.pop_front();
    }
    if (!active.empty()) return true;
    if (closed_) return false;
    cv_.wait(lock);
  }
}

std::string AnalysisEngine::Response(Search& s, bool during) {
  const TreeReport r = ReportTree(s.mcts, options_.pv_length);
  std::vector<float> priors;
  if (s.query->include_policy) priors = s.mcts.RootPriors(/*raw=*/true);
  return SearchResponseLine({s.id(), s.turn, during, s.memory_limited}, s.board, r,
                            s.query->include_policy ? &priors : nullptr);
}

void AnalysisEngine::OutOfMemory(Search& s) {
  // The tree may be half-updated: the search is dropped (its memory with it)
  // after this answer; the budget should have kept this from happening.
  spdlog::error("analyze: out of memory in search '{}' turn {}", s.id(), s.turn);
  s.mcts = Mcts(params_, 0);
  Emit(TurnErrorLine(s.id(), s.turn, "", "out of memory: the search was dropped (lower --max-memory-mb)"));
  s.query.reset();  // answered; dropped in the back-up loop
}

void AnalysisEngine::Round(std::vector<std::unique_ptr<Search>>& active) {
  LeafGroups groups = GatherLeaves(active, Clock::now());
  std::vector<Position> positions;  // shared by the groups: one buffer a round
  std::vector<EvalResult> results;
  for (auto& [key, searches] : groups)
    EvaluateGroup(key.first, static_cast<Rule>(key.second), searches, positions, results);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.rounds;
  }
  // Back up done: avoided moves, reports, finished searches.
  const auto after = Clock::now();
  for (auto it = active.begin(); it != active.end();) it = AfterRound(**it, after) ? active.erase(it) : it + 1;
}

// Gather: every tree's leaves, grouped by what evaluates them.  Each leaf may
// add one expansion (a node and an edge per legal move) to its tree, so a tree
// gathers only as many as fit its budget and the total's, counting the leaves
// the trees before it took this round.
AnalysisEngine::LeafGroups AnalysisEngine::GatherLeaves(std::vector<std::unique_ptr<Search>>& active,
                                                        TimePoint now) {
  LeafGroups groups;
  int64_t committed = 0;
  for (auto& sp : active)
    if (sp->started) committed += static_cast<int64_t>(sp->mcts.TreeBytes());
  for (auto& sp : active) {
    Search& s = *sp;
    if (!s.query) continue;
    const int64_t expansion =
        static_cast<int64_t>(Mcts::ExpansionBytes(std::max(1, s.board.num_points() - s.board.move_count())));
    if (!s.started && !StartSearch(s, now, expansion, committed)) continue;
    if (s.terminated || s.memory_limited || s.mcts.MoveDone()) continue;
    const int64_t tree = static_cast<int64_t>(s.mcts.TreeBytes());
    const int64_t room =
        std::max<int64_t>(0, std::min(search_tree_bytes_ - tree, options_.total_tree_bytes - committed)) / expansion;
    // One leaf until the root is expanded and its avoided moves are gone.
    const int leaves = static_cast<int>(std::min<int64_t>(s.excluded_done ? options_.leaves_per_search : 1, room));
    if (leaves <= 0) {
      // A tree with root visits ends with them; a root that does not fit
      // yet (a restart without the solver) waits for room.
      if (s.excluded_done) s.memory_limited = true;
      continue;
    }
    try {
      s.mcts.SelectLeaves(s.batch, leaves);
    } catch (const std::bad_alloc&) {
      OutOfMemory(s);
      continue;
    }
    committed += static_cast<int64_t>(s.batch.size()) * expansion;
    if (!s.batch.empty()) groups[{s.board.size(), static_cast<int>(s.board.rule())}].push_back(&s);
  }
  return groups;
}

bool AnalysisEngine::StartSearch(Search& s, TimePoint now, int64_t expansion, int64_t& committed) {
  if (const std::string why = source_.CheckSize(s.board.size()); !why.empty()) {
    Emit(TurnErrorLine(s.id(), s.turn, "boardSize", why));
    s.query.reset();  // answered; dropped after the round
    return false;
  }
  if (committed + expansion > options_.total_tree_bytes) return false;  // waits until a search ends
  s.mcts.Reset(s.board);
  s.mcts.StartMove(/*add_noise=*/false, s.query->max_visits);
  s.start = s.last_report = now;
  s.started = true;
  committed += static_cast<int64_t>(s.mcts.TreeBytes());
  return true;
}

// Evaluate: one call for all the leaves of the trees of one board size and rule.
void AnalysisEngine::EvaluateGroup(int size, Rule rule, const std::vector<Search*>& searches,
                                   std::vector<Position>& positions, std::vector<EvalResult>& results) {
  try {
    positions.clear();
    for (Search* s : searches) {
      auto ps = s->batch.positions();
      positions.insert(positions.end(), ps.begin(), ps.end());
    }
    results.assign(positions.size(), EvalResult{});
    source_.ForGame(size, rule).Evaluate(positions, results);
  } catch (const std::exception& e) {
    spdlog::error("analyze: evaluation failed: {}", e.what());
    for (Search* s : searches) {
      s->mcts.CancelBatch(s->batch);
      s->terminated = true;
      Emit(TurnErrorLine(s->id(), s->turn, "", std::string("evaluation failed: ") + e.what()));
      s->query.reset();  // marks the search as answered
    }
    return;
  }
  size_t at = 0;
  for (Search* s : searches) {
    const size_t n = static_cast<size_t>(s->batch.size());
    try {
      s->mcts.ExpandAndBackupBatch(s->batch, std::span<const EvalResult>(results.data() + at, n));
    } catch (const std::bad_alloc&) {
      OutOfMemory(*s);
    }
    at += n;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.forwards;
  stats_.positions += static_cast<int64_t>(positions.size());
}

bool AnalysisEngine::AfterRound(Search& s, TimePoint after) {
  if (!s.query) return true;  // failed and answered
  if (!s.started) {           // waiting for tree memory
    if (s.terminated) Emit(NoResultsLine(s.id(), s.turn));
    return s.terminated;
  }
  if (!s.excluded_done && s.mcts.RootVisits() >= 1) {
    const AvoidStep step = ExcludeAvoided(s);
    if (step != AvoidStep::kExcluded) return step == AvoidStep::kAllAvoided;
  }
  const bool timed_out = s.query->max_time_ms > 0 &&
                         after - s.start >= std::chrono::milliseconds(s.query->max_time_ms) && s.excluded_done;
  if (s.terminated || timed_out || s.memory_limited || (s.excluded_done && s.mcts.MoveDone())) {
    Finish(s);
    return true;
  }
  if (s.query->report_every_s > 0 && s.excluded_done &&
      after - s.last_report >= std::chrono::duration<double>(s.query->report_every_s)) {
    try {
      Emit(Response(s, /*during=*/true));
    } catch (const std::bad_alloc&) {
    }  // a report is skipped; the final response will say what it can
    s.last_report = after;
  }
  return false;
}

AnalysisEngine::AvoidStep AnalysisEngine::ExcludeAvoided(Search& s) {
  if (!s.avoid.empty() && s.mcts.ExcludeRootMoves(s.avoid) == 0 && params_.solver) {
    // The threat solver restricted the root to avoided moves (a VCF's first
    // move, a forced block): search this turn without the solver.
    MctsParams plain = params_;
    plain.solver = false;
    s.mcts = Mcts(plain, seed_ + next_seed_.fetch_add(1));
    s.mcts.Reset(s.board);
    s.mcts.StartMove(/*add_noise=*/false, s.query->max_visits);
    return AvoidStep::kRestarted;
  }
  if (!s.avoid.empty() && s.mcts.ExcludeRootMoves(s.avoid) == 0) {
    Emit(TurnErrorLine(s.id(), s.turn, "avoidMoves", "every legal move of this turn is avoided"));
    return AvoidStep::kAllAvoided;
  }
  s.excluded_done = true;
  return AvoidStep::kExcluded;
}

void AnalysisEngine::Finish(Search& s) {
  try {
    Emit(Response(s, /*during=*/false));
  } catch (const std::bad_alloc&) {
    Emit(TurnErrorLine(s.id(), s.turn, "", "out of memory while writing the response"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.searches;
  if (s.memory_limited) ++stats_.memory_limited;
}

void AnalysisEngine::Run() {
  std::vector<std::unique_ptr<Search>> active;
  while (Admit(active)) Round(active);
}

}  // namespace gz
