// The JSON analysis engine (common/match/analysis_engine.h, analysis_query.h) over
// the rollout baseline: query parsing and refusals that name the field and
// id, responses and their fields, proofs, avoided moves, terminate,
// reports during the search, many queries sharing one evaluation per round,
// the memory budgets (a maxVisits 10,000,000 query answers, in process under a
// small budget and the real binary under `ulimit -v`), seeds drawn by
// concurrent submitters, and the `analyze` binary over pipes.
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/match/analysis_engine.h"
#include "common/match/analysis_query.h"
#include "engine/engine_settings.h"
#include "common/match/evaluator_source.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/session_test_util.h"
#include "common/harness/test_process.h"

using namespace gz;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace analysis_test {

// An engine over the baseline with the solver on; collects every output line.
struct EngineHarness {
  EngineSettings settings = gz::testing::SolverOnEngineSettings();
  EvaluatorSource source{settings.weights, settings.config};
  std::mutex mu;
  std::condition_variable cv;
  std::vector<json> lines;  // guarded by mu
  AnalysisEngine engine;

  explicit EngineHarness(AnalysisEngineOptions options = {})
      : engine(source, settings.config.mcts, 7, [this](const std::string& l) { Add(l); }, options) {}
  void Add(const std::string& l) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(json::parse(l));  // every line is one JSON object
    cv.notify_all();
  }
  // Submits `queries`, closes the input and runs the engine to the end.
  std::vector<json> RunAll(const std::vector<std::string>& queries) {
    for (const auto& q : queries) engine.Submit(q);
    engine.CloseInput();
    engine.Run();
    return lines;
  }
  // Blocks until a line satisfying `pred` has arrived; returns it.
  template <typename Pred>
  json WaitFor(Pred pred) {
    std::unique_lock<std::mutex> lock(mu);
    json found;
    const bool ok = cv.wait_for(lock, 60s, [&] {
      for (const json& l : lines)
        if (pred(l)) {
          found = l;
          return true;
        }
      return false;
    });
    REQUIRE(ok);
    return found;
  }
};

std::vector<json> With(const std::vector<json>& lines, const std::string& id) {
  std::vector<json> out;
  for (const json& l : lines)
    if (l.value("id", "") == id) out.push_back(l);
  return out;
}

// `n` queries "<prefix>0".. of one black stone each (at column i of row 7).
std::vector<std::string> RowQueries(const std::string& prefix, int n, int max_visits) {
  std::vector<std::string> queries;
  for (int i = 0; i < n; ++i)
    queries.push_back(R"({"id":")" + prefix + std::to_string(i) + R"(","moves":[["B",")" + std::to_string(i) +
                      R"(,7"]],"maxVisits":)" + std::to_string(max_visits) + "}");
  return queries;
}

// Black's four-three (as in test_yixin_protocol): black to move wins in 5 plies.
const char* kFourThree =
    R"({"id":"proof","initialStones":[["B","3,5"],["B","4,5"],["B","5,5"],["B","6,6"],["B","6,7"],)"
    R"(["W","2,5"],["W","0,0"],["W","14,0"],["W","0,14"],["W","14,14"]],"maxVisits":50})";

}  // namespace analysis_test

using namespace analysis_test;

TEST_CASE("analysis query: a full query parses into the position and limits it names") {
  const ParsedQuery p = ParseAnalysisQuery(
      R"({"id":"q1","boardSize":13,"rule":"renju","initialStones":[["B","6,6"]],"moves":[["W","7,7"],["B",[5,5]]],)"
      R"("analyzeTurns":[2,0,2],"maxVisits":123,"maxTimeMs":4000,"reportDuringSearchEvery":0.25,"includePolicy":true,)"
      R"("avoidMoves":["1,2",{"player":"W","moves":["3,4"],"untilDepth":1}],"someUnknownField":5})");
  REQUIRE(p.ok());
  CHECK(p.id == "q1");
  const AnalysisQuery& q = p.query;
  CHECK(q.board_size == 13);
  CHECK(q.rule == Rule::kRenju);
  CHECK((q.analyze_turns == std::vector<int>{0, 2}));
  CHECK(q.max_visits == 123);
  CHECK(q.max_time_ms == 4000);
  CHECK(q.report_every_s == Approx(0.25));
  CHECK(q.include_policy);
  REQUIRE(q.avoid.size() == 2);
  CHECK(q.avoid[0] == std::make_pair(kEmpty, 2 * 13 + 1));
  CHECK(q.avoid[1] == std::make_pair(kWhite, 4 * 13 + 3));
  const Board b = PositionAtTurn(q, 2);
  CHECK(b.at(6 * 13 + 6) == kBlack);
  CHECK(b.at(7 * 13 + 7) == kWhite);
  CHECK(b.at(5 * 13 + 5) == kBlack);
  CHECK(b.to_move() == kWhite);
  CHECK(PositionAtTurn(q, 0).to_move() == kWhite);
}

TEST_CASE("analysis query: every rule the engine plays is accepted by its name") {
  for (Rule rule : {Rule::kFreestyle, Rule::kStandard, Rule::kRenju, Rule::kCaro, Rule::kCaroOverline}) {
    const ParsedQuery p = ParseAnalysisQuery(std::string(R"({"id":"r","rule":")") + RuleName(rule) + R"("})");
    REQUIRE(p.ok());
    CHECK(p.query.rule == rule);
  }
  CHECK(ParseAnalysisQuery(R"({"id":"r","rule":"Caro-Overline"})").query.rule == Rule::kCaroOverline);
}

TEST_CASE("analysis query: every malformed query is refused naming the field and the id") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"moves":[]})", "id"},
      {R"({"id":""})", "id"},
      {R"({"id":7})", "id"},
      {R"({"id":"a","boardSize":4})", "boardSize"},
      {R"({"id":"a","boardSize":"15"})", "boardSize"},
      {R"({"id":"a","rule":"gomoku"})", "rule"},
      {R"({"id":"a","rule":8})", "rule"},
      {R"({"id":"a","moves":"7,7"})", "moves"},
      {R"({"id":"a","moves":[["B","7,7"],["B","8,8"]]})", "moves[1]"},
      {R"({"id":"a","moves":[["B","7,7"],["W","7,7"]]})", "moves[1]"},
      {R"({"id":"a","moves":[["B","15,0"]]})", "moves[0]"},
      {R"({"id":"a","moves":[["X","1,1"]]})", "moves[0]"},
      {R"({"id":"a","moves":[["B","1;1"]]})", "moves[0]"},
      {R"({"id":"a","initialStones":[["B","1,1"],["W","1,1"]]})", "initialStones[1]"},
      {R"({"id":"a","maxVisits":0})", "maxVisits"},
      {R"({"id":"a","maxVisits":1.5})", "maxVisits"},
      {R"({"id":"a","maxTimeMs":-1})", "maxTimeMs"},
      {R"({"id":"a","analyzeTurns":[1]})", "analyzeTurns[0]"},
      {R"({"id":"a","analyzeTurns":[]})", "analyzeTurns"},
      {R"({"id":"a","reportDuringSearchEvery":"often"})", "reportDuringSearchEvery"},
      {R"({"id":"a","includePolicy":1})", "includePolicy"},
      {R"({"id":"a","avoidMoves":[{"moves":["1,1"],"untilDepth":3}]})", "avoidMoves[0].untilDepth"},
      {R"({"id":"a","avoidMoves":[{"player":"B"}]})", "avoidMoves[0].moves"},
      {R"({"id":"a","action":"explode"})", "action"},
      {R"({"id":"a","action":"terminate"})", "terminateId"},
      {R"({"id":"a","rule":"renju","moves":[["B","6,8"],["W","0,0"],["B","7,8"],["W","0,2"],["B","8,6"],)"
       R"(["W","0,4"],["B","8,7"],["W","0,6"],["B","8,8"]]})",
       "moves[8]"},  // black's double three at 8,8 is forbidden under renju
      {R"({"id":"a","moves":[["B","0,0"],["W","1,0"],["B","0,1"],["W","1,1"],["B","0,2"],["W","1,2"],)"
       R"(["B","0,3"],["W","1,3"],["B","0,4"],["W","5,5"]]})",
       "moves[9]"},  // after five in a row
  };
  for (const auto& [line, field] : cases) {
    INFO("query: " << line);
    const ParsedQuery p = ParseAnalysisQuery(line);
    CHECK(!p.ok());
    CHECK(p.field == field);
    const json err = json::parse(QueryErrorLine(p.id, p.field, p.error));
    CHECK(err["field"] == field);
    CHECK(!err["error"].get<std::string>().empty());
    if (line.find(R"("id":"a")") != std::string::npos) CHECK(err["id"] == "a");
  }
  CHECK(!ParseAnalysisQuery("not json").ok());
  CHECK(!ParseAnalysisQuery("[1,2]").ok());
}

TEST_CASE("analysis engine: a query's turns each get a final response with the KataGo fields") {
  EngineHarness h;
  const auto lines = h.RunAll(
      {R"({"id":"a","moves":[["B","7,7"],["W","8,8"]],"analyzeTurns":[0,2],"maxVisits":120,"includePolicy":true})"});
  const auto a = With(lines, "a");
  REQUIRE(a.size() == 2);
  std::set<int> turns;
  for (const json& r : a) {
    turns.insert(r["turnNumber"].get<int>());
    CHECK(r["isDuringSearch"] == false);
    const json& infos = r["moveInfos"];
    REQUIRE(!infos.empty());
    int visits = 0;
    for (size_t i = 0; i < infos.size(); ++i) {
      const json& m = infos[i];
      CHECK(m["order"] == i);
      CHECK(m["pv"][0] == m["move"]);
      CHECK(m["winrate"].get<double>() >= 0.0);
      CHECK(m["winrate"].get<double>() <= 1.0);
      CHECK(m["lcb"].get<double>() <= m["winrate"].get<double>());
      CHECK(m["prior"].get<double>() > 0.0);
      if (i > 0) CHECK(m["visits"].get<int>() <= infos[i - 1]["visits"].get<int>());
      visits += m["visits"].get<int>();
    }
    // maxVisits simulations: the root's own expansion plus its children's visits.
    CHECK(r["rootInfo"]["visits"] == 120);
    CHECK(visits == 119);
    CHECK(r["rootInfo"]["currentPlayer"] == "B");
    REQUIRE(r["policy"].size() == 225);
    CHECK(r["policy"][r["turnNumber"] == 0 ? 0 : 7 * 15 + 7].get<double>() >= (r["turnNumber"] == 0 ? 0.0 : -1.0));
    if (r["turnNumber"] == 2) CHECK(r["policy"][8 * 15 + 8] == -1.0);
    CHECK(!r.contains("proof"));
  }
  CHECK((turns == std::set<int>{0, 2}));
}

TEST_CASE("analysis engine: a solver-proven win is a proof with its distance, winrate exactly 1") {
  EngineHarness h;
  const auto r = With(h.RunAll({kFourThree}), "proof");
  REQUIRE(r.size() == 1);
  REQUIRE(r[0].contains("proof"));
  CHECK(r[0]["proof"]["result"] == "win");
  CHECK(r[0]["proof"]["plies"] == 5);
  CHECK(r[0]["proof"]["line"][0] == "6,5");
  CHECK(r[0]["rootInfo"]["winrate"] == 1.0);
  CHECK(r[0]["moveInfos"][0]["move"] == "6,5");
  CHECK(r[0]["moveInfos"][0]["proof"]["plies"] == 5);
  CHECK(r[0]["moveInfos"][0]["winrate"] == 1.0);
}

TEST_CASE("analysis engine: avoidMoves keeps the search off those moves") {
  EngineHarness h;
  // The same four-three, with the winning 6,5 avoided: the search goes on
  // without it (no proof at the root) and never reports it.
  std::string q = kFourThree;
  q.replace(q.find(R"("id":"proof")"), 12, R"("id":"avoid")");
  q.insert(q.size() - 1, R"(,"avoidMoves":["6,5"])");
  const auto r = With(h.RunAll({q}), "avoid");
  REQUIRE(r.size() == 1);
  INFO(r[0].dump());
  REQUIRE(r[0].contains("moveInfos"));
  REQUIRE(!r[0]["moveInfos"].empty());
  for (const json& m : r[0]["moveInfos"]) CHECK(m["move"] != "6,5");
  CHECK(r[0]["rootInfo"]["visits"] == 50);
}

TEST_CASE("analysis engine: malformed lines get error objects and the engine goes on") {
  EngineHarness h;
  const auto lines = h.RunAll({"{", R"({"id":"bad","maxVisits":-3})", R"({"id":"v","action":"query_version"})",
                               R"({"id":"c","action":"clear_cache"})", R"({"id":"ok","maxVisits":20})"});
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].contains("error"));
  CHECK(lines[1]["id"] == "bad");
  CHECK(lines[1]["field"] == "maxVisits");
  CHECK(lines[2]["action"] == "query_version");
  CHECK(lines[2]["version"].is_string());
  CHECK(lines[3]["action"] == "clear_cache");
  CHECK(lines[4]["id"] == "ok");
  CHECK(lines[4]["rootInfo"]["visits"] == 20);
}

TEST_CASE("analysis engine: reports during the search, and terminate ends a search with its results") {
  EngineHarness h;
  std::thread runner([&] { h.engine.Run(); });
  h.engine.Submit(R"({"id":"long","maxVisits":10000000,"reportDuringSearchEvery":0.01})");
  h.engine.Submit(R"({"id":"queued","maxVisits":10,"analyzeTurns":[0]})");
  const json during = h.WaitFor([](const json& l) { return l.value("id", "") == "long" && l["isDuringSearch"] == true; });
  CHECK(!during["moveInfos"].empty());
  h.engine.Submit(R"({"id":"t","action":"terminate","terminateId":"long"})");
  const json last = h.WaitFor([](const json& l) { return l.value("id", "") == "long" && l["isDuringSearch"] == false; });
  CHECK(last["rootInfo"]["visits"].get<int>() >= during["rootInfo"]["visits"].get<int>());
  CHECK(last["rootInfo"]["visits"].get<int>() < 10000000);
  h.engine.CloseInput();
  runner.join();
  const auto ack = With(h.lines, "t");
  REQUIRE(ack.size() == 1);
  CHECK(ack[0]["action"] == "terminate");
  CHECK(ack[0]["terminateId"] == "long");
  CHECK(With(h.lines, "queued").size() == 1);  // the other query was not stopped
}

TEST_CASE("analysis engine: concurrent queries share one evaluation per round") {
  AnalysisEngineOptions options;
  options.leaves_per_search = 8;
  EngineHarness h(options);
  const auto lines = h.RunAll(RowQueries("q", 8, 200));
  CHECK(lines.size() == 8);
  const auto st = h.engine.stats();
  CHECK(st.searches == 8);
  // One Evaluator call a round for all eight trees: far more positions per
  // call than one tree gathers (8), and as many calls as rounds.
  CHECK(st.forwards <= st.rounds);
  CHECK(static_cast<double>(st.positions) / static_cast<double>(st.forwards) > 8.0 * 4);
}

TEST_CASE("analysis engine: the analyze binary answers queries over pipes and exits at end of input") {
  ChildProcess analyze({gz::testing::BinPath("analyze"), "--settings", gz::testing::DefaultsOnlySettings(), "--set",
                        "mcts.solver=true"},
                       gz::testing::PipedTestChild(gz::testing::TestTmpPath("analyze_binary.stderr")));
  analyze.WriteLine(R"({"id":"v","action":"query_version"})");
  analyze.WriteLine("oops");
  analyze.WriteLine(kFourThree);
  analyze.WriteLine(R"({"id":"b","moves":[["B","7,7"]],"maxVisits":30})");
  analyze.CloseStdin();
  std::vector<json> out;
  while (auto l = analyze.ReadLine(60000ms)) out.push_back(json::parse(*l));
  CHECK((analyze.WaitExit(30000ms) == std::optional<int>(0)));
  REQUIRE(out.size() == 4);
  CHECK(out[0]["action"] == "query_version");
  CHECK(out[0]["version"] == GZ_EXPECTED_VERSION);  // the configured version (engine/about.h)
  CHECK(out[1].contains("error"));
  CHECK(With(out, "proof").at(0)["proof"]["plies"] == 5);
  CHECK(With(out, "b").at(0)["rootInfo"]["visits"] == 30);
}

TEST_CASE("analysis engine: a maxVisits 10,000,000 query stops at the search's tree budget and answers") {
  AnalysisEngineOptions options;
  options.total_tree_bytes = int64_t{8} << 20;
  options.search_tree_bytes = int64_t{1} << 20;
  EngineHarness h(options);
  const auto lines = h.RunAll({R"({"id":"huge","moves":[["B","7,7"]],"maxVisits":10000000})",
                               R"({"id":"small","maxVisits":50})"});
  const auto huge = With(lines, "huge");
  REQUIRE(huge.size() == 1);
  INFO(huge[0]["rootInfo"].dump());
  CHECK(huge[0]["isDuringSearch"] == false);
  CHECK(huge[0]["memoryLimited"] == true);
  CHECK(!huge[0]["moveInfos"].empty());
  // Every visit below the root expanded a leaf of >= 150 legal moves at
  // these depths (> 2.4 KB), so 1 MiB of tree holds a few hundred visits.
  const int visits = huge[0]["rootInfo"]["visits"].get<int>();
  CHECK(visits > 50);
  CHECK(static_cast<size_t>(visits) <= (size_t{1} << 20) / Mcts::ExpansionBytes(150));
  // A query inside its budget is not marked.
  const auto small = With(lines, "small");
  REQUIRE(small.size() == 1);
  CHECK(small[0]["rootInfo"]["visits"] == 50);
  CHECK(!small[0].contains("memoryLimited"));
  const auto st = h.engine.stats();
  CHECK(st.searches == 2);
  CHECK(st.memory_limited == 1);
}

TEST_CASE("analysis engine: concurrent searches share the total tree budget") {
  AnalysisEngineOptions options;
  options.total_tree_bytes = int64_t{1} << 20;  // the four trees together: one search's budget
  options.search_tree_bytes = int64_t{1} << 20;
  EngineHarness h(options);
  const auto lines = h.RunAll(RowQueries("m", 4, 10000000));
  REQUIRE(lines.size() == 4);
  int total_visits = 0;
  for (const json& l : lines) {
    INFO(l.dump().substr(0, 300));
    REQUIRE(l.contains("rootInfo"));
    CHECK(l["memoryLimited"] == true);
    CHECK(l["rootInfo"]["visits"].get<int>() >= 1);
    total_visits += l["rootInfo"]["visits"].get<int>();
  }
  // The four trees never held more than 1 MiB at once, but each ended before
  // the next ones grew: together no more than four budgets' worth.
  CHECK(static_cast<size_t>(total_visits) <= 4 * (size_t{1} << 20) / Mcts::ExpansionBytes(150));
  CHECK(h.engine.stats().memory_limited == 4);
}

TEST_CASE("analysis engine: searches submitted from several threads each draw their own seed") {
  EngineHarness h;
  std::thread runner([&] { h.engine.Run(); });
  constexpr int kThreads = 4, kQueries = 50, kTurns = 3;
  std::vector<std::thread> submitters;
  std::atomic<int> go{0};
  for (int t = 0; t < kThreads; ++t)
    submitters.emplace_back([&, t] {
      while (go.load() == 0) std::this_thread::yield();  // start together
      for (int q = 0; q < kQueries; ++q)
        h.engine.Submit(R"({"id":"s)" + std::to_string(t) + "_" + std::to_string(q) +
                        R"(","moves":[["B","7,7"],["W","8,8"]],"analyzeTurns":[0,1,2],"maxVisits":2})");
    });
  go.store(1);
  for (auto& s : submitters) s.join();
  h.engine.CloseInput();
  runner.join();
  const auto st = h.engine.stats();
  CHECK(st.searches == kThreads * kQueries * kTurns);
  // One seed per search and nothing lost between the submitting threads
  // (a plain counter incremented by several threads can lose increments).
  CHECK(st.seeds == static_cast<uint64_t>(kThreads * kQueries * kTurns));
  CHECK(h.lines.size() == static_cast<size_t>(kThreads * kQueries * kTurns));
}

TEST_CASE("analysis engine: the analyze binary answers a maxVisits 10,000,000 query under ulimit -v 2000000") {
  // 2 GB of address space, the binary's default memory budget: without the
  // budget the tree grows until an allocation fails (bad_alloc, the process
  // dies); with it the search ends at the budget and answers.
  const std::string analyze = gz::testing::BinPath("analyze");
  ChildProcess child({"/bin/sh", "-c", "ulimit -v 2000000 && exec \"$0\" \"$@\"", analyze, "--settings",
                      gz::testing::DefaultsOnlySettings()},
                     gz::testing::PipedTestChild(gz::testing::TestTmpPath("analyze_ulimit.stderr")));
  child.WriteLine(R"({"id":"huge","moves":[["B","7,7"]],"maxVisits":10000000})");
  child.WriteLine(R"({"id":"after","maxVisits":20})");
  child.CloseStdin();
  std::vector<json> out;
  while (auto l = child.ReadLine(300000ms)) out.push_back(json::parse(*l));
  CHECK((child.WaitExit(60000ms) == std::optional<int>(0)));
  const auto huge = With(out, "huge");
  REQUIRE(huge.size() == 1);
  INFO(huge[0].dump().substr(0, 300));
  REQUIRE(huge[0].contains("rootInfo"));
  CHECK(huge[0]["memoryLimited"] == true);
  CHECK(huge[0]["rootInfo"]["visits"].get<int>() > 1000);
  CHECK(huge[0]["rootInfo"]["visits"].get<int>() < 10000000);
  REQUIRE(With(out, "after").size() == 1);
  CHECK(With(out, "after")[0]["rootInfo"]["visits"] == 20);
}
