#include "dashboard/dashboard_service.h"

#include <functional>
#include <optional>

#include <spdlog/spdlog.h>

#include "common/base/fileio.h"
#include "dashboard/game_view.h"
#include "dashboard/query.h"
#include "dashboard/run_data.h"
#include "dashboard/web_assets.h"

namespace gz {

namespace {

HttpResponse Json(const nlohmann::json& j) {
  HttpResponse r;
  r.body = j.dump() + "\n";
  return r;
}

// The page's own files (compiled in, WebAsset): URL path, asset, type.
struct PageFile {
  const char* path;
  const char* asset;
  const char* content_type;
};
constexpr PageFile kPageFiles[] = {
    {"/", "index.html", "text/html; charset=utf-8"},
    {"/index.html", "index.html", "text/html; charset=utf-8"},
    {"/app.js", "app.js", "text/javascript; charset=utf-8"},
    {"/analysis.js", "analysis.js", "text/javascript; charset=utf-8"},
    {"/style.css", "style.css", "text/css; charset=utf-8"},
};

HttpResponse Asset(const char* name, const char* type) {
  auto bytes = WebAsset(name);
  if (!bytes) throw HttpError(500, std::string("asset missing from the build: ") + name);
  HttpResponse r;
  r.content_type = type;
  r.body = std::string(*bytes);
  return r;
}

void RequireMethod(const HttpRequest& req, const char* method) {
  if (req.method != method)
    throw HttpError(405, "use " + std::string(method) + " for this path (got " + req.method + ")");
}

nlohmann::json JsonBody(const HttpRequest& req) {
  nlohmann::json j = nlohmann::json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw HttpError(400, "the request body must be a JSON object");
  return j;
}

std::string StringField(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) throw HttpError(400, std::string("field '") + key + "' must be a string");
  return j[key].get<std::string>();
}

int64_t IntField(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer())
    throw HttpError(400, std::string("field '") + key + "' must be an integer");
  return j[key].get<int64_t>();
}

// Host without the port ("127.0.0.1:8765" -> "127.0.0.1", "[::1]:80" -> "[::1]").
std::string HostName(const std::string& host) {
  if (!host.empty() && host[0] == '[') return host.substr(0, host.find(']') + 1);
  return host.substr(0, host.find(':'));
}

constexpr int64_t kMaxIteration = int64_t{1} << 40;

// DNS rebinding: a page from elsewhere that resolves its own name to
// 127.0.0.1 must not read the run.  On loopback only loopback names pass.
void RequireLoopbackHost(const HttpRequest& req) {
  const std::string h = HostName(req.host);
  if (h != "127.0.0.1" && h != "localhost" && h != "[::1]")
    throw HttpError(403, "Host '" + req.host + "' refused: this dashboard serves only 127.0.0.1 / localhost");
}

}  // namespace

std::string FindChartJs() {
  for (const char* p : {"/usr/share/javascript/chart.js/chart.min.js", "/usr/share/javascript/chart.js/chart.js",
                        "/usr/share/nodejs/chart.js/dist/chart.min.js", "/usr/share/nodejs/chart.js/dist/chart.js"})
    if (FileExists(p)) return p;
  return "";
}

DashboardService::DashboardService(DashboardOptions options)
    : opt_(std::move(options)),
      play_(opt_.run_dir, opt_.play),
      analysis_(opt_.run_dir, opt_.analysis),
      site_(opt_.site_dir) {
  if (!opt_.chart_js.empty()) chart_js_bytes_ = ReadFileOrThrow(opt_.chart_js);
}

HttpResponse DashboardService::Handle(const HttpRequest& req) {
  try {
    return Route(req);
  } catch (const HttpError& e) {
    if (e.status() >= 500) spdlog::warn("dashboard: {} {}: {} {}", req.method, req.target, e.status(), e.what());
    HttpResponse r = Json({{"error", e.what()}});
    r.status = e.status();
    return r;
  } catch (const std::exception& e) {
    spdlog::error("dashboard: {} {} failed: {}", req.method, req.target, e.what());
    HttpResponse r = Json({{"error", std::string("internal error: ") + e.what()}});
    r.status = 500;
    return r;
  }
}

HttpResponse DashboardService::Route(const HttpRequest& req) {
  if (opt_.loopback) RequireLoopbackHost(req);
  const Target t = ParseTarget(req.target);
  if (std::optional<HttpResponse> r = FileRoute(req, t.path)) return *r;
  if (std::optional<HttpResponse> r = ApiRoute(req, t)) return *r;
  throw HttpError(404, "no such page: " + t.path);
}

std::optional<HttpResponse> DashboardService::FileRoute(const HttpRequest& req, const std::string& p) {
  for (const PageFile& f : kPageFiles)
    if (p == f.path) {
      RequireMethod(req, "GET");
      return Asset(f.asset, f.content_type);
    }
  // The browser board: relative URLs (engine/, nets/) need the trailing slash.
  if (p == "/board") {
    RequireMethod(req, "GET");
    HttpResponse r;
    r.status = 301;
    r.location = "/board/";
    r.body = nlohmann::json({{"moved", "/board/"}}).dump() + "\n";
    return r;
  }
  if (p.rfind("/board/", 0) == 0) {
    RequireMethod(req, "GET");
    return site_.Get(p.substr(std::string("/board/").size()));
  }
  if (p == "/vendor/chart.js") {
    RequireMethod(req, "GET");
    if (chart_js_bytes_.empty())
      throw HttpError(404, "Chart.js not installed: sudo apt-get install libjs-chart.js (launch/setup.sh does)");
    HttpResponse r;
    r.content_type = "text/javascript; charset=utf-8";
    r.body = chart_js_bytes_;
    r.cache_control = "max-age=3600";
    return r;
  }
  return std::nullopt;
}

std::optional<HttpResponse> DashboardService::ApiRoute(const HttpRequest& req, const Target& t) {
  // The JSON API: path, method, answer (evaluated after the method check).
  const struct {
    const char* path;
    const char* method;
    std::function<nlohmann::json()> answer;
  } api[] = {
      {"/api/series", "GET", [&] { return SeriesJson(opt_.run_dir); }},
      {"/api/ratings", "GET", [&] { return RatingsJson(opt_.run_dir); }},
      {"/api/status", "GET",
       [&] {
         nlohmann::json s = LiveStatusJson(opt_.run_dir);
         s["play"] = play_.Summary();
         s["analysis"] = analysis_.Summary();
         return s;
       }},
      {"/api/iterations", "GET", [&] { return IterationsJson(opt_.run_dir); }},
      {"/api/games", "GET", [&] { return GameFilesJson(opt_.run_dir, IntParam(t, "iteration", 0, kMaxIteration)); }},
      {"/api/game", "GET",
       [&] {
         const int64_t it = IntParam(t, "iteration", 0, kMaxIteration);
         return GameJson(opt_.run_dir, it, StringParam(t, "file"));
       }},
      {"/api/play/new", "POST", [&] { return play_.NewGame(StringField(JsonBody(req), "colour")); }},
      {"/api/play/move", "POST",
       [&] {
         const nlohmann::json b = JsonBody(req);
         return play_.Move(StringField(b, "id"), IntField(b, "row"), IntField(b, "col"));
       }},
      {"/api/play/state", "GET", [&] { return play_.State(StringParam(t, "id")); }},
      {"/api/play/end", "POST",
       [&] {
         play_.End(StringField(JsonBody(req), "id"));
         return nlohmann::json{{"ended", true}};
       }},
      {"/api/analysis/start", "POST", [&] { return analysis_.Start(JsonBody(req)); }},
      {"/api/analysis/state", "GET", [&] { return analysis_.State(StringParam(t, "id")); }},
      {"/api/analysis/stop", "POST",
       [&] {
         analysis_.Stop(StringField(JsonBody(req), "id"));
         return nlohmann::json{{"stopped", true}};
       }},
  };
  for (const auto& route : api)
    if (t.path == route.path) {
      RequireMethod(req, route.method);
      return Json(route.answer());
    }
  return std::nullopt;
}

}  // namespace gz
