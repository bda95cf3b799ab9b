// build/bin/gz_dashboard: the run's web dashboard (docs/dashboard.md).
//
//   gz_dashboard --run-dir DIR [--port P] [--bind ADDR] [--site-dir DIR] [--config FILE] [--set key=value]...
//                [--log-file FILE]
//
// --site-dir: the browser board's static site served under /board/ (default
// ../browser/site beside the binary: build/browser/site, what browser/build.sh
// makes); a flag, not a dashboard.* key, because it names a build output, not
// a setting of the run.
//
// dashboard.* keys (port, bind, max_games, idle_timeout_s, simulations) come
// from --config/--set; --port and --bind win over them.  --port 0 takes any
// free port.  Once listening it prints one line "dashboard: http://ADDR:PORT/"
// on stdout (scripts read the URL there).  SIGINT/SIGTERM stop it (exit 0).
// Exit codes: 0 stopped, 1 fatal error, 2 bad command line or config.
#include <signal.h>

#include <iostream>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/logging.h"
#include "common/config/config.h"
#include "common/match/shipped_nets.h"
#include "dashboard/dashboard_service.h"
#include "dashboard/http_server.h"

namespace {

using namespace gz;

const char* kUsage =
    "usage: gz_dashboard --run-dir DIR [--port P] [--bind ADDR] [--site-dir DIR] [--config FILE] "
    "[--set key=value]... [--log-file FILE]\n"
    "Serves the run's dashboard over HTTP (read-only; 127.0.0.1 unless --bind says otherwise), and the\n"
    "browser board under /board/ from --site-dir (default: ../browser/site beside this binary).\n";

// The command line and the dashboard.* keys, --port and --bind over them.
// Throws ConfigError.
Config LoadSettings(const CliArgs& args) {
  if (!args.has("--run-dir")) GOMOKU_THROW(ConfigError, "--run-dir is required (see --help)");
  Config cfg = Config::Load(args.config, args.sets);
  if (args.has("--port")) cfg.dashboard.port = static_cast<int>(args.get_int("--port", cfg.dashboard.port));
  if (args.has("--bind")) cfg.dashboard.bind = args.get("--bind");
  if (cfg.dashboard.port < 0 || cfg.dashboard.port > 65535)
    GOMOKU_THROW(ConfigError, "dashboard.port: " << cfg.dashboard.port << " is not a TCP port (0..65535)");
  if (cfg.dashboard.max_games < 0) GOMOKU_THROW(ConfigError, "dashboard.max_games must be >= 0");
  if (cfg.dashboard.simulations < 1) GOMOKU_THROW(ConfigError, "dashboard.simulations must be >= 1");
  if (!(cfg.dashboard.idle_timeout_s > 0)) GOMOKU_THROW(ConfigError, "dashboard.idle_timeout_s must be > 0");
  return cfg;
}

// dashboard.bind as an address; a warning when it is not loopback.
boost::asio::ip::address BindAddress(const Config& cfg) {
  boost::system::error_code ec;
  const auto addr = boost::asio::ip::make_address(cfg.dashboard.bind, ec);
  if (ec) GOMOKU_THROW(ConfigError, "dashboard.bind: '" << cfg.dashboard.bind << "' is not an IP address");
  if (!addr.is_loopback())
    spdlog::warn("WARNING: binding {} (not loopback): anyone who can reach this address can read the run and "
                 "use the CPU through browser games; the dashboard has no authentication",
                 cfg.dashboard.bind);
  return addr;
}

// What the service serves, with a warning for each part that is missing.
DashboardOptions ServiceOptions(const CliArgs& args, const Config& cfg, bool loopback) {
  DashboardOptions dopt;
  dopt.run_dir = args.get("--run-dir");
  dopt.chart_js = FindChartJs();
  if (dopt.chart_js.empty())
    spdlog::warn("Chart.js not found (Debian package libjs-chart.js): the page shows no charts");
  dopt.loopback = loopback;
  dopt.play = cfg.dashboard;
  dopt.site_dir = args.has("--site-dir") ? args.get("--site-dir") : ExecutableDir() + "/../browser/site";
  if (!FileExists(dopt.site_dir + "/index.html"))
    spdlog::warn("the browser board is not built ({} has no index.html): /board/ answers 404 until "
                 "browser/build.sh makes it", dopt.site_dir);
  return dopt;
}

// Serves until SIGINT or SIGTERM.
void ServeUntilSignal(HttpServer& server) {
  // A handler, not sigwait: threads that libraries start before main()
  // would not have the signals blocked and would take the default action.
  boost::asio::io_context signals_ctx;
  boost::asio::signal_set signals(signals_ctx, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& e, int sig) {
    if (e) return;
    spdlog::info("signal {}: stopping", sig);
    server.Stop();
  });
  std::thread waiter([&] { signals_ctx.run(); });
  server.Run();
  // Run() returns only after Stop(), which only the signal handler calls.
  waiter.join();
}

}  // namespace

int main(int argc, char** argv) {
  CliArgs args;
  Config cfg;
  try {
    args = ParseCli(argc, argv, CliSpec{kUsage, {"--run-dir", "--port", "--bind", "--log-file", "--site-dir"}, {}});
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    cfg = LoadSettings(args);
  } catch (const ConfigError& e) {
    std::cerr << "gz_dashboard: " << e.what() << "\n" << kUsage;
    return 2;
  }

  ::signal(SIGPIPE, SIG_IGN);

  try {
    InitLogging("dashboard", args.get("--log-file"));
    const std::string run_dir = args.get("--run-dir");
    if (!FileExists(run_dir)) spdlog::warn("run directory {} does not exist (yet): the page stays empty until it does", run_dir);
    const auto addr = BindAddress(cfg);
    const DashboardOptions dopt = ServiceOptions(args, cfg, addr.is_loopback());
    DashboardService service(dopt);

    HttpServerOptions hopt;
    hopt.bind = cfg.dashboard.bind;
    hopt.port = cfg.dashboard.port;
    HttpServer server(hopt, [&service](const HttpRequest& r) { return service.Handle(r); });
    const std::string host = addr.is_v6() ? "[" + cfg.dashboard.bind + "]" : cfg.dashboard.bind;
    const std::string url = "http://" + host + ":" + std::to_string(server.port()) + "/";
    spdlog::info("dashboard of {} listening on {} (Chart.js: {}; the browser board: {}board/ from {})", run_dir, url,
                 dopt.chart_js.empty() ? "missing" : dopt.chart_js, url, dopt.site_dir);
    std::cout << "dashboard: " << url << std::endl;
    ServeUntilSignal(server);
    spdlog::info("dashboard stopped");
    return 0;
  } catch (const ConfigError& e) {
    spdlog::error("{}", e.what());
    return 2;
  } catch (const std::exception& e) {
    spdlog::error("fatal: {}", e.what());
    return 1;
  }
}
