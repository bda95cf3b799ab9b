#include "dashboard/analysis_service.h"

#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>


#include "common/config/config.h"
#include "dashboard/http_types.h"
#include "dashboard/run_net.h"
#include "common/match/analysis_engine.h"
#include "common/match/analysis_query.h"
#include "common/match/evaluator_source.h"

namespace gz {

using Clock = std::chrono::steady_clock;

// An analysis engine over one net, its search loop on `runner`.
struct AnalysisService::Engine {
  Config config;
  int64_t checkpoint = -1;  // -1: a shipped net
  std::string net;          // "checkpoint N" | "shipped net NAME"
  std::unique_ptr<EvaluatorSource> source;
  std::unique_ptr<AnalysisEngine> engine;
  std::thread runner;

  ~Engine() {
    if (engine) engine->CloseInput();
    if (runner.joinable()) runner.join();
  }
};

AnalysisService::AnalysisService(std::string run_dir, AnalysisSettings settings)
    : run_dir_(std::move(run_dir)), settings_(settings) {
  reaper_.Start("AnalysisService reaper", 0.5, PeriodicThread::FirstTick::kAfterPeriod, [this] { Reap(); });
}

AnalysisService::~AnalysisService() {
  reaper_.Stop();
  std::shared_ptr<Engine> engine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    engine = std::move(engine_);
  }
  // Outside mu_: the engine's output (acknowledgements, final responses) takes it.
  if (engine) engine->engine->Submit(R"({"id":"shutdown","action":"terminate_all"})");
  engine.reset();
  std::map<std::string, Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries.swap(entries_);
  }
  entries.clear();  // the last references: their engines' search loops end, outside mu_
}

int AnalysisService::Running() const {
  int n = 0;
  for (const auto& [id, e] : entries_) n += e.done ? 0 : 1;
  return n;
}

void AnalysisService::Output(const std::string& line) {
  nlohmann::json o = nlohmann::json::parse(line, nullptr, false);
  if (!o.is_object() || !o.contains("id") || !o["id"].is_string()) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(o["id"].get<std::string>());
  if (it == entries_.end()) return;  // an acknowledgement, or a forgotten analysis
  Entry& e = it->second;
  if (o.contains("error")) {
    e.error = o["error"].get<std::string>();
    e.done = true;
  } else if (o.contains("moveInfos")) {
    e.latest = o;
    e.done = !o.value("isDuringSearch", false);
  } else if (o.contains("noResults")) {
    e.done = true;
  }
  if (e.done) e.finished = Clock::now();
}

std::shared_ptr<AnalysisService::Engine> AnalysisService::EngineForNewAnalysis() {
  RunNet net = NewestRunNet(run_dir_, "nothing to analyse with");
  if (engine_ && (engine_->checkpoint == net.checkpoint || Running() > 0)) return engine_;
  auto e = std::make_shared<Engine>();
  e->config = std::move(net.config);
  e->checkpoint = net.checkpoint;
  e->net = net.name;
  e->source = std::make_unique<EvaluatorSource>(net.weights, e->config);
  if (const std::string why = e->source->CheckSize(e->config.board.size); !why.empty())
    throw HttpError(503, "the net cannot analyse: " + why);
  e->engine = std::make_unique<AnalysisEngine>(*e->source, e->config.mcts, e->config.run.seed,
                                               [this](const std::string& l) { Output(l); });
  e->runner = std::thread([raw = e->engine.get()] { raw->Run(); });
  spdlog::info("analysis board: {} ({}); search settings {}", e->net, e->source->Describe(),
               e->config.DescribePlaySettings());
  // The previous engine runs nothing: it ends when its last analysis entry goes.
  engine_ = e;
  return e;
}

nlohmann::json AnalysisService::Start(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("moves") || !body["moves"].is_array())
    throw HttpError(400, "expected {\"moves\": [point, ...]}");
  std::unique_lock<std::mutex> lock(mu_);
  if (Running() >= settings_.max_analyses)
    throw HttpError(429, "at most " + std::to_string(settings_.max_analyses) +
                             " analyses at once; stop one (or let it finish) first");
  std::shared_ptr<Engine> e = EngineForNewAnalysis();
  const int n = e->config.board.size;
  nlohmann::json moves = nlohmann::json::array();
  for (size_t i = 0; i < body["moves"].size(); ++i) {
    const nlohmann::json& p = body["moves"][i];
    if (!p.is_number_integer() || p.get<int64_t>() < 0 || p.get<int64_t>() >= int64_t{n} * n)
      throw HttpError(400, "moves[" + std::to_string(i) + "]: expected a point 0.." + std::to_string(n * n - 1));
    const int point = p.get<int>();
    moves.push_back({i % 2 == 0 ? "B" : "W", {point % n, point / n}});
  }
  const std::string id = "a" + std::to_string(next_id_++);
  nlohmann::json q = {{"id", id},
                      {"boardSize", n},
                      {"rule", e->config.board.rule},
                      {"moves", moves},
                      {"maxVisits", settings_.max_visits},
                      {"maxTimeMs", static_cast<int64_t>(settings_.max_seconds * 1000)},
                      {"reportDuringSearchEvery", settings_.report_every_s},
                      {"includePolicy", true}};
  const ParsedQuery parsed = ParseAnalysisQuery(q.dump());
  if (!parsed.ok()) throw HttpError(400, parsed.field + ": " + parsed.error);
  Entry& entry = entries_[id];
  entry.moves = body["moves"];
  entry.engine = e;
  entry.polled = Clock::now();
  lock.unlock();
  e->engine->Submit(q.dump());
  return {{"id", id}, {"net", e->net}, {"board_size", n}, {"rule", e->config.board.rule}};
}

nlohmann::json AnalysisService::State(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) throw HttpError(404, "no analysis '" + id + "' (unknown, or forgotten after it ended)");
  Entry& e = it->second;
  e.polled = Clock::now();
  return {{"id", id},
          {"done", e.done},
          {"net", e.engine ? e.engine->net : ""},
          {"moves", e.moves},
          {"analysis", e.latest},
          {"error", e.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.error)}};
}

void AnalysisService::Stop(const std::string& id) {
  std::shared_ptr<Engine> engine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(id);
    if (it == entries_.end()) throw HttpError(404, "no analysis '" + id + "'");
    if (it->second.done) return;
    engine = it->second.engine;
  }
  engine->engine->Submit(nlohmann::json{{"id", "stop-" + id}, {"action", "terminate"}, {"terminateId", id}}.dump());
}

nlohmann::json AnalysisService::Summary() {
  std::lock_guard<std::mutex> lock(mu_);
  return {{"running", Running()}, {"max", settings_.max_analyses}};
}

void AnalysisService::Reap() {
  const auto now = Clock::now();
  const auto idle = std::chrono::duration<double>(settings_.idle_timeout_s);
  // Declared before the lock, so released after it (see below).
  std::vector<std::pair<std::string, std::shared_ptr<Engine>>> stop;
  std::vector<std::shared_ptr<Engine>> forgotten;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      Entry& e = it->second;
      if (!e.done && now - e.polled > idle && e.engine) {
        // Nobody is looking (the page left): stop the search.
        spdlog::info("analysis {} stopped: not polled for {} s", it->first, settings_.idle_timeout_s);
        stop.emplace_back(it->first, e.engine);
        e.polled = now;  // once
      }
      if (e.done && now - e.finished > std::chrono::seconds(60)) {
        forgotten.push_back(std::move(e.engine));
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Outside mu_: Submit answers through Output, and an engine's last
  // reference ends its search loop.
  for (auto& [id, engine] : stop)
    engine->engine->Submit(nlohmann::json{{"id", "reap-" + id}, {"action", "terminate"}, {"terminateId", id}}.dump());
}

}  // namespace gz
