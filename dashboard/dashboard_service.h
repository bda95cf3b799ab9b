// What a request means: maps a method and target to an answer (the page, its
// scripts, Chart.js, JSON about the run, browser games).  Knows nothing of
// sockets (dashboard/http_server.h is the transport).
//
//   GET  /                        the page          GET /app.js, /style.css, /vendor/chart.js
//   GET  /api/series              per-iteration curves (generations.jsonl)
//   GET  /api/ratings             Elo curves (ratings.jsonl)
//   GET  /api/status              live state: iteration, ETA, server, workers, evaluator
//   GET  /api/iterations          iterations with games, checkpoints
//   GET  /api/games?iteration=N   game files of iteration N
//   GET  /api/game?iteration=N&file=w0_g1.npz    one game, with policies and values
//   POST /api/play/new   {"colour":"black"}      a browser game (the run is not touched)
//   POST /api/play/move  {"id":..,"row":r,"col":c}
//   GET  /api/play/state?id=..    POST /api/play/end {"id":..}
//   GET  /board/...               the browser board's static site (site_files.h); /board redirects
// Errors are JSON {"error": "..."} with a 4xx (bad input) or 5xx status.
// No endpoint writes to the run directory.
// Thread-safety: Handle() may be called concurrently.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "dashboard/analysis_service.h"
#include "dashboard/http_types.h"
#include "dashboard/play_service.h"
#include "dashboard/site_files.h"

namespace gz {

struct Target;  // dashboard/query.h

struct DashboardOptions {
  std::string run_dir;
  std::string chart_js;   // Chart.js file served as /vendor/chart.js ("" = 404 with a hint)
  bool loopback = true;   // bound to a loopback address: only loopback Host headers are served
  DashboardConfig play;  // browser games: max_games, idle_timeout_s, simulations
  AnalysisSettings analysis;
  std::string site_dir;  // the browser board's site (build/browser/site), served under /board/
};

class DashboardService {
 public:
  explicit DashboardService(DashboardOptions options);
  // Never throws.
  HttpResponse Handle(const HttpRequest& req);

 private:
  HttpResponse Route(const HttpRequest& req);
  // Route's two tables: the page's files and the browser board, then the JSON
  // API.  nullopt: the path is not theirs.  HttpError for a wrong method or
  // bad input.
  std::optional<HttpResponse> FileRoute(const HttpRequest& req, const std::string& path);
  std::optional<HttpResponse> ApiRoute(const HttpRequest& req, const Target& target);

  DashboardOptions opt_;
  std::string chart_js_bytes_;  // read once at start: the file never changes under a run
  PlayService play_;
  AnalysisService analysis_;  // the analysis board (docs/dashboard.md "Analysis")
  SiteFiles site_;            // the browser board (docs/dashboard.md "The browser board")
};

// The first Chart.js file found in Debian's libjs-chart.js locations, or "".
std::string FindChartJs();

}  // namespace gz
