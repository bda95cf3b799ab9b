// The WebAssembly engine's entry points (docs/browser.md), called by
// browser/wasm/engine-worker.js through ccall:
//   gz_init(nets_dir)    the engine over the nets the worker wrote into
//                        MEMFS (the newest of each rule and size, as the
//                        native engine picks its shipped nets); 0 on success,
//                        else 1 after a log line saying why.  Called again
//                        (more nets written), it restarts the engine over them
//   gz_protocol(line)    one Gomocup / Yixin-Board line into the same
//                        GomocupSession pbrain-gomoku-zero runs; each reply
//                        line goes out through gz_js_emit(0, line); 0 after END
//   gz_analyze(query)    one JSON analysis query into an AnalysisEngine of its
//                        own; each response through gz_js_emit(1, line)
//   gz_version()         the engine's version (ABOUT's)
// A search pauses about every kSlice (SlicedPlayer; for an analysis, a report
// during the search that the page did not ask for) in gz_js_yield, which
// returns to the worker's event loop through Asyncify; the worker answers 1
// when the page sent stop.  gz_protocol and gz_analyze may therefore pause:
// the worker calls them with ccall's {async: true} and awaits them, one at a
// time.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "browser/wasm/sliced_player.h"
#include "common/base/errors.h"
#include "common/base/logging.h"
#include "common/match/analysis_engine.h"
#include "common/match/classical_player.h"
#include "common/match/shipped_nets.h"
#include "engine/about.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"

extern "C" {
// gz_library.js: a line out to the page (0 protocol, 1 analysis).
void gz_js_emit(int kind, const char* line);
// gz_library.js: back to the event loop and here again (Asyncify); 1 when
// the page asked to stop the running search.
int gz_js_yield(void);
}

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// The longest stretch of search between two visits to the event loop: how
// late a stop can be, and (with the pause's own cost, well under 1 ms) what
// slicing costs.
constexpr std::chrono::milliseconds kSlice{50};
// Tree budget of a move's search: the player reserves it up front, and wasm
// memory is committed when it is reserved.  64 MB holds ~18,000 expansions
// of an empty 15x15 board, about a minute of this engine's search.
constexpr int64_t kMoveTreeBytes = int64_t{64} << 20;
// All analysis trees together (TreeBytesForMemory's third of 384 MB).
constexpr int64_t kAnalysisMemory = int64_t{384} << 20;
// The classical player's nodes a move when it stands in for a net that
// cannot play a size (pbrain-gomoku-zero's backup).
constexpr int64_t kBackupClassicalNodes = 10000;
// The id of the terminate_all the bridge submits when the page stops an
// analysis; its acknowledgement is not passed on.
constexpr const char* kStopId = "__gz_stop";

void Emit(int kind, const std::string& line) { gz_js_emit(kind, line.c_str()); }

struct Engine {
  gz::EngineSettings settings;
  gz::EnginePlayer player;
  std::unique_ptr<gz::ClassicalPlayer> backup;
  std::unique_ptr<gz::SlicedPlayer> sliced;
  std::unique_ptr<gz::GomocupSession> session;
  std::atomic<bool> interrupt{false};
  std::atomic<bool> stop{false};  // END; never raised by the page
  bool ended = false;
};
Engine* g_engine = nullptr;

bool Pause() { return gz_js_yield() != 0; }

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* gz_version() { return gz::kEngineVersion; }

EMSCRIPTEN_KEEPALIVE int gz_init(const char* nets_dir) {
  try {
    static bool logging = false;
    if (!logging) gz::InitLogging("gz-wasm", "", gz::LogConsole::kAlways);  // stderr: the worker's log messages
    logging = true;
    // A second call restarts the engine over the nets now in `nets_dir` (the
    // worker adds the other rules' and sizes' nets when a game needs them):
    // the old one goes first, so its tree's memory is free for the new one.
    delete g_engine;
    g_engine = nullptr;
    auto e = std::make_unique<Engine>();
    e->settings.league_nets = gz::ShippedLeagueNets({nets_dir});
    if (e->settings.league_nets.empty()) {
      spdlog::error("wasm: no readable net in {}", nets_dir);
      return 1;
    }
    gz::AdoptEnginePlaySettings(e->settings);
    // One thread: the build has no pthreads (a search thread could not start).
    e->settings.config.engine.threads = 1;
    e->settings.config.inference.threads = 1;
    e->settings.config.Validate();
    e->player = gz::MakeEnginePlayer(e->settings);
    e->backup = std::make_unique<gz::ClassicalPlayer>(kBackupClassicalNodes);
    e->sliced = std::make_unique<gz::SlicedPlayer>(*e->player.player, Pause, e->interrupt, kSlice, kMoveTreeBytes);
    e->session = std::make_unique<gz::GomocupSession>(*e->sliced, e->settings.max_simulations, e->backup.get());
    e->session->set_stop_flag(&e->stop);
    e->session->set_interrupt_flag(&e->interrupt);
    e->session->set_live_output([](const std::string& line) { Emit(0, line); });
    spdlog::info("wasm: ready ({}); search settings {}", e->player.player->Describe(),
                 e->settings.config.DescribePlaySettings());
    g_engine = e.release();
    return 0;
  } catch (const std::exception& ex) {
    spdlog::error("wasm: the engine did not start: {}", ex.what());
    return 1;
  }
}

EMSCRIPTEN_KEEPALIVE int gz_protocol(const char* line) {
  if (!g_engine) {
    Emit(0, "ERROR the engine is not initialised");
    return 1;
  }
  if (g_engine->ended) {
    Emit(0, "ERROR the engine has ended (END); reload it");
    return 0;
  }
  std::vector<std::string> replies;
  bool going = true;
  try {
    going = g_engine->session->Handle(line, Clock::now(), replies);
  } catch (const std::exception& ex) {  // Handle answers its own errors; this is a bug's last resort
    replies.push_back(std::string("ERROR ") + ex.what());
  }
  g_engine->interrupt.store(false);  // a stop ends the command it arrived in, not the next
  for (const std::string& r : replies) Emit(0, r);
  if (!going) g_engine->ended = true;
  return going ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE int gz_analyze(const char* query_text) {
  if (!g_engine || !g_engine->player.source) {
    Emit(1, json{{"error", "the engine is not initialised"}}.dump());
    return 1;
  }
  // The search must report at least every kSlice (each report is a pause);
  // reports the page asked for pass at its own period, the rest are dropped.
  std::string query = query_text;
  double asked_every = 0.0;
  json q = json::parse(query, nullptr, /*allow_exceptions=*/false);
  if (q.is_object() && !q.contains("action")) {
    if (auto it = q.find("reportDuringSearchEvery"); it != q.end() && it->is_number()) asked_every = it->get<double>();
    const double slice_s = std::chrono::duration<double>(kSlice).count();
    if (asked_every <= 0.0 || asked_every > slice_s) {
      q["reportDuringSearchEvery"] = slice_s;
      query = q.dump();
    }
  }  // anything else goes in as it came, to be refused or answered by the engine

  gz::AnalysisEngineOptions options;
  options.version = gz::kEngineVersion;
  options.total_tree_bytes = std::max(gz::AnalysisEngineOptions::kMinTreeBytes, gz::TreeBytesForMemory(kAnalysisMemory));
  std::map<std::pair<std::string, int>, Clock::time_point> forwarded;  // (id, turn) -> last report passed on
  bool stopping = false;
  std::unique_ptr<gz::AnalysisEngine> engine;
  auto out = [&](const std::string& line) {
    json r = json::parse(line, nullptr, false);
    if (r.is_object() && r.value("id", "") == kStopId) return;  // our own terminate_all's acknowledgement
    if (r.is_object() && r.value("isDuringSearch", false)) {
      const auto key = std::make_pair(r.value("id", ""), r.value("turnNumber", 0));
      const auto now = Clock::now();
      auto [it, fresh] = forwarded.try_emplace(key, Clock::time_point{});
      if (asked_every > 0.0 && now - it->second >= std::chrono::duration<double>(asked_every) * 0.999) {
        it->second = now;
        Emit(1, line);
      }
      if (Pause() && !stopping) {
        stopping = true;
        engine->Submit(json{{"id", kStopId}, {"action", "terminate_all"}}.dump());
      }
      return;
    }
    Emit(1, line);
  };
  try {
    engine = std::make_unique<gz::AnalysisEngine>(*g_engine->player.source, g_engine->settings.config.mcts,
                                                  g_engine->settings.config.run.seed, out, options);
    engine->Submit(query);
    engine->CloseInput();
    engine->Run();
  } catch (const std::exception& ex) {
    Emit(1, json{{"error", std::string("analysis failed: ") + ex.what()}}.dump());
  }
  return 1;
}

}  // extern "C"
