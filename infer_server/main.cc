// build/bin/infer_server: the batching inference server (docs/protocol.md).
//
//   infer_server [--config FILE] [--set key=value]... [--weights PATH | --run-dir DIR] [--log FILE]
//
// Socket: GOMOKU_INFER_SOCK, else server.socket, else <run.dir>/sock/infer.sock.
// Batching: server.max_batch / server.max_wait, overridden by GOMOKU_MAX_BATCH
// and GOMOKU_MAX_WAIT_MS.  server.cache_entries sizes the result cache;
// server.precision / server.cuda_graphs go to the forward (net_api.h
// ForwardOptions, validated at start: CUDA-only settings on a CPU are errors).
// Exit status: 0 after SIGTERM/SIGINT, 1 when it cannot start (e.g. another
// server owns the socket), 2 for usage/config errors.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>
#include <spdlog/spdlog.h>

#include "common/config/config.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/logging.h"
#include "common/net/net_api.h"
#include "common/data/run_layout.h"
#include "common/wire/wire_client.h"
#include "infer_server/batcher.h"
#include "infer_server/reloader.h"
#include "infer_server/result_cache.h"
#include "infer_server/server.h"
#include "infer_server/socket_setup.h"

namespace gz {
namespace {

constexpr int64_t kMaxForwardRows = 8192;  // ForwardOptions::max_batch upper bound (net_api.h)

struct Args {
  std::string config;
  std::vector<std::string> sets;
  std::string weights;
  std::string run_dir;
  std::string log;
};

const char* kUsage =
    "usage: infer_server [--config FILE] [--set key=value]... [--weights PATH | --run-dir DIR] [--log FILE]\n"
    "  --weights PATH  serve this checkpoint (waits until it exists)\n"
    "  --run-dir DIR   serve the weights named by DIR/metadata.json (waits until it exists); sets run.dir\n"
    "  without either, the server waits for a RELOAD (infer_ctl reload PATH)\n"
    "env: GOMOKU_INFER_SOCK (socket path), GOMOKU_MAX_BATCH, GOMOKU_MAX_WAIT_MS (number or auto)\n";

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) GOMOKU_THROW(ConfigError, k << " needs a value");
      return argv[++i];
    };
    if (k == "--config") a.config = value();
    else if (k == "--set") a.sets.push_back(value());
    else if (k == "--weights") a.weights = value();
    else if (k == "--run-dir") a.run_dir = value();
    else if (k == "--log") a.log = value();
    else if (k == "--help" || k == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else GOMOKU_THROW(ConfigError, "unknown argument '" << k << "'\n" << kUsage);
  }
  return a;
}

BatchSettings MakeBatchSettings(const Config& c) {
  BatchSettings b;
  b.board_size = c.board.size;
  b.symmetry = ParseSymmetryMode(c.inference.symmetry);
  b.max_batch = c.server.max_batch;
  b.auto_wait_ceiling_ms = c.server.auto_wait_ceiling_ms;
  b.auto_pipeline = c.server.auto_pipeline;
  std::string wait = c.server.max_wait;
  if (const char* env = std::getenv("GOMOKU_MAX_BATCH"); env && *env) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 1 || v > 65536)
      GOMOKU_THROW(ConfigError, "GOMOKU_MAX_BATCH='" << env << "' is not an integer in [1, 65536]");
    b.max_batch = static_cast<int>(v);
  }
  if (const char* env = std::getenv("GOMOKU_MAX_WAIT_MS"); env && *env) wait = env;
  if (wait == "auto") {
    b.auto_wait = true;
  } else {
    char* end = nullptr;
    double v = std::strtod(wait.c_str(), &end);
    if (wait.empty() || *end != '\0' || !(v >= 0 && v <= 1000))
      GOMOKU_THROW(ConfigError, "max wait '" << wait << "' (server.max_wait / GOMOKU_MAX_WAIT_MS) is not "
                                             << "milliseconds in [0, 1000] or auto");
    b.max_wait_ms = v;
  }
  return b;
}

int Run(int argc, char** argv) {
  Args args;
  Config cfg;
  try {
    args = ParseArgs(argc, argv);
    std::vector<std::string> sets = args.sets;
    if (!args.run_dir.empty()) sets.push_back("run.dir=" + args.run_dir);
    cfg = Config::Load(args.config, sets);
  } catch (const GomokuError& e) {
    std::cerr << "infer_server: " << e.what() << "\n";
    return 2;
  }
  InitLogging("infer_server", args.log);
  ::signal(SIGPIPE, SIG_IGN);

  BatchSettings batch;
  ModelRequirements req;
  std::string socket_path;
  try {
    batch = MakeBatchSettings(cfg);
    req.device = ResolveDevice(cfg.inference.device);
    req.threads = cfg.server.threads > 0 ? cfg.server.threads : cfg.inference.threads;
    req.board_size = cfg.board.size;
    req.rule = cfg.rule();
    req.forward.precision = cfg.server.precision;
    req.forward.cuda_graphs = cfg.server.cuda_graphs;
    req.forward.device_encode = cfg.server.device_encode;
    // Rows per device forward = positions x symmetry images; bigger batches
    // run in chunks of the forward's limit.
    req.forward.max_batch = static_cast<int>(std::clamp<int64_t>(
        int64_t{batch.max_batch} * SymmetriesPerPosition(batch.symmetry), 1, kMaxForwardRows));
    ValidateForwardOptions(req.forward, req.device);
    socket_path = ResolveSocketPath(cfg);
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }

  ListeningSocket listening;
  try {
    listening = OpenListeningSocket(socket_path);
  } catch (const GomokuError& e) {
    spdlog::error("cannot start: {}", e.what());
    return 1;
  }

  InitialModelSource initial;
  initial.weights = args.weights;
  if (args.weights.empty()) initial.run_dir = args.run_dir;

  RunLayout layout(cfg.run.dir);
  ServerOptions options;
  options.max_clients = cfg.server.max_clients;
  options.stats_interval_s = cfg.server.stats_interval_s;
  if (!args.run_dir.empty() || FileExists(cfg.run.dir)) {
    try {
      MakeDirs(layout.status_dir());
      options.status_file = layout.server_status();
    } catch (const GomokuError& e) {
      spdlog::warn("no status file: {}", e.what());
    }
  }

  std::unique_ptr<ResultCache> cache;
  try {
    if (cfg.server.cache_entries > 0) cache = std::make_unique<ResultCache>(cfg.server.cache_entries, batch.board_size);
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  const std::string cache_desc =
      cache ? fmt::format("{} entries ({:.0f} MiB)", cache->capacity(),
                          cache->capacity() * (4.0 * (batch.board_size * batch.board_size + 1) + 32) / (1 << 20))
            : std::string("off");

  ServerStats stats;
  if (cache) stats.EnableCacheStats();
  const std::string wait_desc = batch.auto_wait ? fmt::format("auto (<= {:g} ms{})", batch.auto_wait_ceiling_ms,
                                                            batch.auto_pipeline ? ", pipelining" : "")
                                                : fmt::format("{:g} ms", batch.max_wait_ms);
  stats.SetInfo({{"device", req.device},
                 {"threads", req.threads},
                 {"board_size", batch.board_size},
                 {"rule", RuleName(req.rule)},
                 {"symmetry", SymmetryModeName(batch.symmetry)},
                 {"max_batch", batch.max_batch},
                 {"max_wait", batch.auto_wait ? nlohmann::json("auto") : nlohmann::json(batch.max_wait_ms)},
                 {"auto_wait_ceiling_ms", batch.auto_wait_ceiling_ms},
                 {"auto_pipeline", batch.auto_pipeline},
                 {"cache_entries", cache ? cache->capacity() : int64_t{0}},
                 {"precision", req.forward.precision},
                 {"cuda_graphs", req.forward.cuda_graphs},
                 {"device_encode", req.forward.device_encode},
                 {"forward_max_rows", req.forward.max_batch},
                 {"socket", socket_path},
                 {"pid", static_cast<int64_t>(::getpid())}});
  Batcher batcher(batch, &stats, cache.get());
  Reloader reloader(&batcher, req, &stats);

  SessionContext ctx;
  ctx.idle_timeout_s = cfg.server.idle_timeout_s;
  ctx.max_pending_replies = cfg.server.max_pending_replies;
  ctx.board_size = batch.board_size;
  ctx.rule = req.rule;
  ctx.symmetry = batch.symmetry;
  ctx.batcher = &batcher;
  ctx.reloader = &reloader;
  ctx.stats = &stats;

  boost::asio::io_context io(1);
  InferServer server(io, listening, options, ctx);
  spdlog::info(
      "infer_server starting: socket {}, device {} ({} threads), model {}, board {} {}, symmetry {}, max_batch {}, "
      "max_wait {}, result cache {}, forward precision {}, CUDA graphs {}, input encoding {}, forward max rows {}, "
      "idle timeout {:g}s, "
      "max pending replies {}, stats every {:g}s",
      socket_path, req.device, req.threads, initial.Describe(), batch.board_size, RuleName(req.rule),
      SymmetryModeName(batch.symmetry), batch.max_batch, wait_desc, cache_desc, req.forward.precision,
      req.forward.cuda_graphs ? "on" : "off",
      req.device.rfind("cuda", 0) == 0 && req.forward.device_encode ? "on the device (compact rows)" : "on the host",
      req.forward.max_batch, ctx.idle_timeout_s, ctx.max_pending_replies,
      options.stats_interval_s);

  batcher.Start();
  reloader.Start(initial);
  server.Start();
  io.run();

  reloader.Stop();
  batcher.Stop();
  RemoveSocketFile(listening);
  spdlog::info("infer_server stopped");
  return 0;
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) {
  try {
    return gz::Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "infer_server: fatal: " << e.what() << "\n";
    return 1;
  }
}
