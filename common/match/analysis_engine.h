// The JSON analysis engine (the `analyze` binary; docs/engine.md "Analysis"):
// queries in, JSON responses out, one line each, modelled on KataGo's
// analysis engine.  Queries (common/match/analysis_query.h) are accepted at any
// time; each analysed turn of a query is one search with its own tree, and
// many searches run at once: every round gathers up to `leaves_per_search`
// leaves from each tree (virtual loss) and evaluates the leaves of all trees
// of one board size and rule in ONE Evaluator call -- one batched forward --
// so concurrent queries share the network the way KataGo's do.
//
// Responses:
//   {"id", "turnNumber", "isDuringSearch", "moveInfos": [{"move": "X,Y",
//    "visits", "winrate", "prior", "lcb", "order", "pv": ["X,Y", ...],
//    "proof"?}], "rootInfo": {"visits", "winrate", "currentPlayer"},
//    "proof"?, "policy"?}
//   winrate: for the side to move (like KataGo's SIDETOMOVE); prior: the
//   network's; lcb: the win rate less 1.96 standard errors; proof (the
//   threat solver, mcts.solver): {"result": "win"|"loss", "plies", "complete",
//   "line"} -- a proven result is a distance, and its winrate is exactly 1 / 0.
//   policy (includePolicy): the network's prior over every point, row-major,
//   -1 where illegal.
//   During the search (reportDuringSearchEvery) responses carry
//   isDuringSearch true; the last one of each turn false.  A search ends at
//   maxVisits simulations, maxTimeMs, a proven win at the root, terminate, or
//   when its tree reaches the memory budget (below): that final response
//   carries "memoryLimited": true and the visits the tree holds.
//
// Memory: the engine never grows past its budget, whatever maxVisits asks
// (KataGo's maxVisits 10,000,000 on a 15x15 board would be ~36 GB of tree).
// A search's nodes and edges (Mcts::TreeBytes) may hold at most
// options.search_tree_bytes, and all running searches' together
// options.total_tree_bytes; every round a search gathers only as many leaves
// as fit (Mcts::ExpansionBytes each), and a search that fits none ends with
// what it has.  A turn whose root does not fit waits until a search ends.
// TreeBytesForMemory turns a process memory budget into these numbers.
// Should an allocation still fail, the search it belongs to answers
// {"id", "turnNumber", "error": "out of memory ..."} and the others go on.
//   {"id", "action": "query_version", "version", "protocol"}
//   {"id", "action": "clear_cache"} (no cache is kept between queries)
//   {"id", "action": "terminate", "terminateId", "turnNumbers"?}: the
//   matching searches end now and send their final response; turns not
//   started send {"id", "turnNumber", "isDuringSearch": false, "noResults": true}
//   {"id", "error", "field"}: a refused query (the engine goes on); a search
//   that fails (the evaluator throws, every move avoided) sends
//   {"id", "turnNumber", "error", "field"}.
// Thread-safety: Submit and CloseInput from any thread (the input reader);
// Run on one thread (it owns the trees and the evaluator); `out` is called
// from both, one call at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/search/mcts.h"
#include "common/match/analysis_query.h"
#include "common/match/evaluator_source.h"

namespace gz {

// The bytes of tree (Mcts::TreeBytes) that fit a memory budget of
// `memory_bytes`: a third of it, since a growing vector briefly holds its old
// and its new (twice as large) storage, so a tree of T bytes may map 3T.
int64_t TreeBytesForMemory(int64_t memory_bytes);

// The analysis engine's memory budget in bytes: `requested`, lowered where the
// address space is limited (RLIMIT_AS, e.g. `ulimit -v`; Linux) to three
// quarters of what the limit leaves beyond what the process has mapped now
// (the rest is for batches, responses and the allocator's slack).  Elsewhere,
// or without a limit, `requested`.  Never below 1 MiB.
int64_t AnalysisMemoryBudget(int64_t requested);

struct AnalysisEngineOptions {
  int leaves_per_search = 8;  // leaves gathered from each tree per round (virtual loss)
  int max_searches = 64;      // trees searched at once; later turns wait in arrival order
  int pv_length = 20;         // moves of each moveInfo's pv
  std::string version;  // query_version's answer: the binary passes kEngineVersion (engine/about.h)
  QueryLimits limits;
  // Tree bytes (Mcts::TreeBytes) of all running searches together and of one
  // search (0: the total); both >= kMinTreeBytes.  The defaults are
  // TreeBytesForMemory of 1.5 GiB (analyze's --max-memory-mb 1536).
  int64_t total_tree_bytes = int64_t{512} << 20;
  int64_t search_tree_bytes = 0;
  static constexpr int64_t kMinTreeBytes = int64_t{1} << 16;  // room for a root on the largest board
};

class AnalysisEngine {
 public:
  using Output = std::function<void(const std::string&)>;
  // `params`: the search settings (noise is switched off); `seed`: Mcts seeds.
  AnalysisEngine(EvaluatorSource& source, const MctsParams& params, uint64_t seed, Output out,
                 AnalysisEngineOptions options = {});
  ~AnalysisEngine();

  // One input line (a query or an action).  Refusals and acknowledgements
  // are written at once; analyses are queued for Run.
  void Submit(const std::string& line);
  // No more input: Run returns once every queued search has finished.
  void CloseInput();
  // The search loop.
  void Run();

  struct Stats {
    int64_t rounds = 0;       // gather / evaluate / back-up rounds
    int64_t forwards = 0;     // Evaluator calls
    int64_t positions = 0;    // positions evaluated
    int64_t searches = 0;     // searches finished
    int64_t memory_limited = 0;  // searches ended by the memory budget
    uint64_t seeds = 0;       // Mcts seeds handed out (one per search, one per solver-less restart)
  };
  Stats stats() const;

 private:
  struct Search;
  void Emit(const std::string& line);
  // Moves queued searches into the active set, applies terminations; false
  // when Run should return.
  bool Admit(std::vector<std::unique_ptr<Search>>& active);
  // One round: gather leaves from every tree, evaluate them, back up, then
  // answer and drop the searches that ended.
  void Round(std::vector<std::unique_ptr<Search>>& active);
  using TimePoint = std::chrono::steady_clock::time_point;
  // The searches with leaves, by (board size, rule): one Evaluator call each.
  using LeafGroups = std::map<std::pair<int, int>, std::vector<Search*>>;
  LeafGroups GatherLeaves(std::vector<std::unique_ptr<Search>>& active, TimePoint now);
  // Builds the tree of a queued turn when its root fits the memory left
  // (`committed` grows by it); false when it waits or was refused.
  bool StartSearch(Search& s, TimePoint now, int64_t expansion, int64_t& committed);
  // Evaluates one group's leaves (in the round's buffers) and backs them up;
  // an evaluator failure ends the group's searches with an error line.
  void EvaluateGroup(int size, Rule rule, const std::vector<Search*>& searches, std::vector<Position>& positions,
                     std::vector<EvalResult>& results);
  // After a round: removes avoided root moves, reports, finishes; true when
  // the search has been answered and is dropped.
  bool AfterRound(Search& s, TimePoint after);
  enum class AvoidStep { kExcluded, kRestarted, kAllAvoided };
  // Keeps the root off the avoided moves once it is expanded: restarts the
  // turn without the solver when the solver left only avoided moves.
  AvoidStep ExcludeAvoided(Search& s);
  // The final response and the search's statistics.
  void Finish(Search& s);
  std::string Response(Search& s, bool during);
  // Answers a search whose allocation failed with an error line and marks it dropped.
  void OutOfMemory(Search& s);

  EvaluatorSource& source_;
  MctsParams params_;
  uint64_t seed_;
  Output out_;
  AnalysisEngineOptions options_;

  std::mutex out_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Search>> queued_;  // guarded by mu_
  struct Termination {
    std::string id;
    std::vector<int> turns;  // empty: all
  };
  std::vector<Termination> terminations_;       // guarded by mu_
  bool closed_ = false;                         // guarded by mu_
  Stats stats_;                                 // guarded by mu_
  // Seeds are drawn by Submit (the input thread, or several) and by Round
  // (a restart without the solver): atomic, so no two searches share one.
  std::atomic<uint64_t> next_seed_{0};
  int64_t search_tree_bytes_ = 0;  // options_.search_tree_bytes resolved
};

}  // namespace gz
