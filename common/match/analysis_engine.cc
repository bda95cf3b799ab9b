#include "common/match/analysis_engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/base/errors.h"
#include "common/match/analysis_report.h"

namespace gz {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxLineBytes = size_t{1} << 20;

// "X,Y": column, row (as the Gomocup engine writes points).
std::string Point(int move, int size) { return std::to_string(move % size) + "," + std::to_string(move / size); }

json ProofJson(const ProofInfo& p, int size) {
  json o;
  o["result"] = p.win ? "win" : "loss";
  o["plies"] = p.plies;
  o["complete"] = p.complete;
  json line = json::array();
  for (int m : p.line) line.push_back(Point(m, size));
  o["line"] = line;
  return o;
}

double Round4(double x) { return std::round(x * 10000.0) / 10000.0; }

}  // namespace

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
}

AnalysisEngine::~AnalysisEngine() = default;

void AnalysisEngine::Emit(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu_);
  out_(line);
}

AnalysisEngine::Stats AnalysisEngine::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
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
  for (int t : query->analyze_turns) made.push_back(std::make_unique<Search>(query, t, params_, seed_ + next_seed_++));
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
        json o;
        o["id"] = (*it)->id();
        o["turnNumber"] = (*it)->turn;
        o["isDuringSearch"] = false;
        o["noResults"] = true;
        Emit(o.dump());
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
  const int size = s.board.size();
  const TreeReport r = ReportTree(s.mcts, options_.pv_length);
  json o;
  o["id"] = s.id();
  o["turnNumber"] = s.turn;
  o["isDuringSearch"] = during;
  json infos = json::array();
  for (size_t i = 0; i < r.moves.size(); ++i) {
    const MoveReport& m = r.moves[i];
    json mi;
    mi["move"] = Point(m.move, size);
    mi["visits"] = m.visits;
    mi["winrate"] = Round4(m.winrate);
    mi["prior"] = Round4(m.prior);
    mi["lcb"] = Round4(m.lcb);
    mi["order"] = i;
    json pv = json::array();
    for (int p : m.pv) pv.push_back(Point(p, size));
    mi["pv"] = pv;
    if (m.proof) mi["proof"] = ProofJson(*m.proof, size);
    infos.push_back(mi);
  }
  o["moveInfos"] = infos;
  json root;
  root["visits"] = r.root_visits;
  root["winrate"] = Round4(r.winrate);
  root["currentPlayer"] = s.board.to_move() == kBlack ? "B" : "W";
  o["rootInfo"] = root;
  if (r.proof) o["proof"] = ProofJson(*r.proof, size);
  if (s.query->include_policy) {
    const std::vector<float> priors = s.mcts.RootPriors(/*raw=*/true);
    json policy = json::array();
    for (int p = 0; p < s.board.num_points(); ++p)
      policy.push_back(s.board.IsLegal(p) ? Round4(priors[static_cast<size_t>(p)]) : -1.0);
    o["policy"] = policy;
  }
  return o.dump();
}

void AnalysisEngine::Round(std::vector<std::unique_ptr<Search>>& active) {
  const auto now = Clock::now();
  // Gather: every tree's leaves, grouped by what evaluates them.
  std::map<std::pair<int, int>, std::vector<Search*>> groups;
  for (auto& sp : active) {
    Search& s = *sp;
    if (!s.started) {
      if (const std::string why = source_.CheckSize(s.board.size()); !why.empty()) {
        json o = json::parse(QueryErrorLine(s.id(), "boardSize", why));
        o["turnNumber"] = s.turn;
        Emit(o.dump());
        s.query.reset();  // answered; dropped below
        continue;
      }
      s.mcts.Reset(s.board);
      s.mcts.StartMove(/*add_noise=*/false, s.query->max_visits);
      s.start = s.last_report = now;
      s.started = true;
    }
    if (!s.query || s.terminated || s.mcts.MoveDone()) continue;
    // One leaf until the root is expanded and its avoided moves are gone.
    s.mcts.SelectLeaves(s.batch, s.excluded_done ? options_.leaves_per_search : 1);
    if (!s.batch.empty()) groups[{s.board.size(), static_cast<int>(s.board.rule())}].push_back(&s);
  }
  // Evaluate: one call per board size and rule for all trees' leaves.
  std::vector<Position> positions;
  std::vector<EvalResult> results;
  for (auto& [key, searches] : groups) {
    positions.clear();
    for (Search* s : searches) {
      auto ps = s->batch.positions();
      positions.insert(positions.end(), ps.begin(), ps.end());
    }
    results.assign(positions.size(), EvalResult{});
    try {
      Evaluator& evaluator = source_.ForGame(key.first, static_cast<Rule>(key.second));
      evaluator.Evaluate(positions, results);
    } catch (const std::exception& e) {
      spdlog::error("analyze: evaluation failed: {}", e.what());
      for (Search* s : searches) {
        s->mcts.CancelBatch(s->batch);
        s->terminated = true;
        json o = json::parse(QueryErrorLine(s->id(), "", std::string("evaluation failed: ") + e.what()));
        o["turnNumber"] = s->turn;
        Emit(o.dump());
        s->query.reset();  // marks the search as answered
      }
      continue;
    }
    size_t at = 0;
    for (Search* s : searches) {
      const size_t n = static_cast<size_t>(s->batch.size());
      s->mcts.ExpandAndBackupBatch(s->batch, std::span<const EvalResult>(results.data() + at, n));
      at += n;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.forwards;
    stats_.positions += static_cast<int64_t>(positions.size());
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.rounds;
  }
  // Back up done: avoided moves, reports, finished searches.
  const auto after = Clock::now();
  for (auto it = active.begin(); it != active.end();) {
    Search& s = **it;
    if (!s.query) {  // failed and answered above
      it = active.erase(it);
      continue;
    }
    if (!s.excluded_done && s.mcts.RootVisits() >= 1) {
      if (!s.avoid.empty() && s.mcts.ExcludeRootMoves(s.avoid) == 0 && params_.solver) {
        // The threat solver restricted the root to avoided moves (a VCF's
        // first move, a forced block): search this turn without the solver.
        MctsParams plain = params_;
        plain.solver = false;
        s.mcts = Mcts(plain, seed_ + next_seed_++);
        s.mcts.Reset(s.board);
        s.mcts.StartMove(/*add_noise=*/false, s.query->max_visits);
        ++it;
        continue;
      }
      if (!s.avoid.empty() && s.mcts.ExcludeRootMoves(s.avoid) == 0) {
        json o = json::parse(QueryErrorLine(s.id(), "avoidMoves", "every legal move of this turn is avoided"));
        o["turnNumber"] = s.turn;
        Emit(o.dump());
        it = active.erase(it);
        continue;
      }
      s.excluded_done = true;
    }
    const bool timed_out = s.query->max_time_ms > 0 &&
                           after - s.start >= std::chrono::milliseconds(s.query->max_time_ms) && s.excluded_done;
    const bool done = s.terminated || timed_out || (s.excluded_done && s.mcts.MoveDone());
    if (done) {
      Emit(Response(s, /*during=*/false));
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.searches;
      }
      it = active.erase(it);
      continue;
    }
    if (s.query->report_every_s > 0 && s.excluded_done &&
        after - s.last_report >= std::chrono::duration<double>(s.query->report_every_s)) {
      Emit(Response(s, /*during=*/true));
      s.last_report = after;
    }
    ++it;
  }
}

void AnalysisEngine::Run() {
  std::vector<std::unique_ptr<Search>> active;
  while (Admit(active)) Round(active);
}

}  // namespace gz
