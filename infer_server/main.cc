// build/bin/infer_server: the batching inference server (docs/protocol.md).
//
//   infer_server [--config FILE] [--set key=value]... [--weights PATH | --run-dir DIR] [--log-file FILE]
//
// Socket: server.socket (GOMOKU_INFER_SOCK), else <run.dir>/sock/infer.sock.
// Batching: server.max_batch / server.max_wait (GOMOKU_MAX_BATCH /
// GOMOKU_MAX_WAIT_MS win; Config::Load reads them).  server.cache_entries sizes the result cache (per lane);
// server.precision / server.cuda_graphs go to the forward (net_api.h
// ForwardOptions, validated at start: CUDA-only settings on a CPU are errors).
// Board sizes: one lane (Batcher, result cache, model) per size of
// Config::board_sizes() (board.size plus selfplay.board_sizes); a client's
// HELLO binds it to the lane of its size.
// Exit status: 0 after SIGTERM/SIGINT, 1 when it cannot start (e.g. another
// server owns the socket), 2 for usage/config errors.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp needs std::exchange under C++20
#include <boost/asio.hpp>
#include <spdlog/spdlog.h>

#include "common/base/cli.h"
#include "common/base/guarded_main.h"
#include "common/config/config.h"
#include "common/data/metadata.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/logging.h"
#include "common/net/net_api.h"
#include "common/data/run_layout.h"
#include "common/wire/wire_client.h"
#include "infer_server/batcher.h"
#include "infer_server/inference_service.h"
#include "infer_server/reload_follower.h"
#include "infer_server/reloader.h"
#include "infer_server/result_cache.h"
#include "infer_server/server.h"
#include "infer_server/socket_setup.h"

namespace gz {
namespace {

constexpr int64_t kMaxForwardRows = 8192;  // ForwardOptions::max_batch upper bound (net_api.h)

const char* kUsage =
    "usage: infer_server [--config FILE] [--set key=value]... [--weights PATH | --run-dir DIR] [--log-file FILE]\n"
    "  --weights PATH  serve this checkpoint (waits until it exists)\n"
    "  --run-dir DIR   serve the weights named by DIR/metadata.json (waits until it exists); sets run.dir, and\n"
    "                  board and symmetry come from DIR/metadata.json when it exists (else from the config)\n"
    "  without either, the server waits for a RELOAD (infer_ctl reload PATH)\n"
    "  with run.host set and --run-dir, it also follows DIR/reload.json and acknowledges in DIR/status/HOST/\n"
    "env: GOMOKU_INFER_SOCK (server.socket), GOMOKU_MAX_BATCH (server.max_batch), GOMOKU_MAX_WAIT_MS\n"
    "     (server.max_wait: number or auto); they win over the config file and --set\n";

// "7, 9": the board sizes served, for log lines.
std::string JoinSizes(const std::vector<int>& sizes) {
  std::string out;
  for (int n : sizes) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

// With --run-dir, metadata.json (when the trainer has written one) is the
// source of truth for the run's geometry on both ends of the socket, as for
// the workers.  At a cold start it does not exist yet (the trainer writes it
// only after this server has acknowledged the first reload), so the config
// given here must match the trainer's; the HELLO check and the checkpoint's
// own header guard any mismatch.
void AdoptMetadataGeometry(const std::string& run_dir, Config* cfg) {
  const RunLayout layout(run_dir);
  std::optional<Metadata> md = ReadMetadata(layout.metadata());
  if (!md) {
    spdlog::info("no {} yet: board and symmetry from the config (the trainer's must match)", layout.metadata());
    return;
  }
  cfg->AdoptRunGeometry(Config::FromJson(md->config, layout.metadata()), layout.metadata());
  spdlog::info("run geometry from {}: board {} {}, symmetry {}, board sizes {}", layout.metadata(), cfg->board.size,
               cfg->board.rule, cfg->inference.symmetry, JoinSizes(cfg->board_sizes()));
}

BatchSettings MakeBatchSettings(const Config& c) {
  BatchSettings b;
  b.board_size = c.board.size;
  b.symmetry = ParseSymmetryMode(c.inference.symmetry);
  b.max_batch = c.server.max_batch;
  b.auto_wait_ceiling_ms = c.server.auto_wait_ceiling_ms;
  b.auto_pipeline = c.server.auto_pipeline;
  // Validated by the registry (server.max_wait: milliseconds in [0, 1000] or "auto").
  if (c.server.max_wait == "auto") b.auto_wait = true;
  else b.max_wait_ms = std::strtod(c.server.max_wait.c_str(), nullptr);
  return b;
}

int Run(int argc, char** argv) {
  CliArgs args;
  Config cfg;
  std::string weights, run_dir;
  try {
    args = ParseCli(argc, argv, CliSpec{kUsage, {"--weights", "--run-dir", kLogFileFlag}, {}});
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    weights = args.get("--weights");
    run_dir = args.get("--run-dir");
    cfg = Config::Load(args.config, args.sets);
    if (!run_dir.empty()) cfg.Set("run.dir", run_dir, "--run-dir");
  } catch (const GomokuError& e) {
    std::cerr << "infer_server: " << e.what() << "\n" << kUsage;
    return 2;
  }
  InitLogging("infer_server", args.get(kLogFileFlag));
  ::signal(SIGPIPE, SIG_IGN);
  try {
    if (!run_dir.empty()) AdoptMetadataGeometry(run_dir, &cfg);
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  spdlog::info("config set by: {}", cfg.DescribeOrigins());

  BatchSettings batch;
  ModelRequirements req;
  std::string socket_path;
  std::vector<int> sizes;  // one lane each, ascending
  try {
    sizes = cfg.board_sizes();
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
  initial.weights = weights;
  if (weights.empty()) initial.run_dir = run_dir;

  RunLayout layout(cfg.run.dir);
  ServerOptions options;
  options.max_clients = cfg.server.max_clients;
  options.stats_interval_s = cfg.server.stats_interval_s;
  if (!run_dir.empty() || FileExists(cfg.run.dir)) {
    try {
      MakeDirs(layout.status_dir(cfg.run.host));
      options.status_file = layout.server_status(cfg.run.host);
    } catch (const GomokuError& e) {
      spdlog::warn("no status file: {}", e.what());
    }
  }

  // One result cache per lane (server.cache_entries each).
  std::vector<std::unique_ptr<ResultCache>> caches(sizes.size());
  int64_t cache_capacity = 0;
  double cache_mib = 0;
  try {
    if (cfg.server.cache_entries > 0)
      for (size_t i = 0; i < sizes.size(); ++i) {
        caches[i] = std::make_unique<ResultCache>(cfg.server.cache_entries, sizes[i]);
        cache_capacity += caches[i]->capacity();
        cache_mib += caches[i]->capacity() * (4.0 * (sizes[i] * sizes[i] + 1) + 32) / (1 << 20);
      }
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  const bool cache_on = cfg.server.cache_entries > 0;
  const std::string cache_desc =
      cache_on ? fmt::format("{} entries ({:.0f} MiB){}", cache_capacity, cache_mib,
                             sizes.size() > 1 ? fmt::format(" over {} board sizes", sizes.size()) : "")
               : std::string("off");

  ServerStats stats;
  if (cache_on) stats.EnableCacheStats();
  const std::string wait_desc = batch.auto_wait ? fmt::format("auto (<= {:g} ms{})", batch.auto_wait_ceiling_ms,
                                                            batch.auto_pipeline ? ", pipelining" : "")
                                                : fmt::format("{:g} ms", batch.max_wait_ms);
  stats.SetInfo({{"device", req.device},
                 {"threads", req.threads},
                 {"board_size", batch.board_size},
                 {"board_sizes", sizes},
                 {"rule", RuleName(req.rule)},
                 {"symmetry", SymmetryModeName(batch.symmetry)},
                 {"max_batch", batch.max_batch},
                 {"max_wait", batch.auto_wait ? nlohmann::json("auto") : nlohmann::json(batch.max_wait_ms)},
                 {"auto_wait_ceiling_ms", batch.auto_wait_ceiling_ms},
                 {"auto_pipeline", batch.auto_pipeline},
                 {"cache_entries", cache_capacity},
                 {"precision", req.forward.precision},
                 {"cuda_graphs", req.forward.cuda_graphs},
                 {"device_encode", req.forward.device_encode},
                 {"forward_max_rows", req.forward.max_batch},
                 {"socket", socket_path},
                 {"pid", static_cast<int64_t>(::getpid())}});
  // One lane per board size: positions of different sizes never share a forward.
  std::vector<std::unique_ptr<Batcher>> batchers;
  std::vector<Batcher*> lanes;
  for (size_t i = 0; i < sizes.size(); ++i) {
    BatchSettings lane = batch;
    lane.board_size = sizes[i];
    batchers.push_back(std::make_unique<Batcher>(lane, &stats, caches[i].get()));
    lanes.push_back(batchers.back().get());
  }
  Reloader reloader(lanes, req, &stats);

  ServiceSettings service_settings;
  service_settings.board_size = batch.board_size;
  service_settings.rule = req.rule;
  service_settings.symmetry = batch.symmetry;
  InferenceService service(service_settings, lanes, &reloader, &stats);

  SessionContext ctx;
  ctx.idle_timeout_s = cfg.server.idle_timeout_s;
  ctx.max_pending_replies = cfg.server.max_pending_replies;
  ctx.service = &service;
  ctx.stats = &stats;

  boost::asio::io_context io(1);
  InferServer server(io, listening, options, ctx, lanes);
  spdlog::info(
      "infer_server starting: socket {}, device {} ({} threads), model {}, board {} {}, board sizes {} (one lane "
      "each), symmetry {}, max_batch {}, "
      "max_wait {}, result cache {}, forward precision {}, CUDA graphs {}, input encoding {}, forward max rows {}, "
      "idle timeout {:g}s, "
      "max pending replies {}, stats every {:g}s",
      socket_path, req.device, req.threads, initial.Describe(), batch.board_size, RuleName(req.rule),
      JoinSizes(sizes), SymmetryModeName(batch.symmetry), batch.max_batch, wait_desc, cache_desc, req.forward.precision,
      req.forward.cuda_graphs ? "on" : "off",
      req.device.rfind("cuda", 0) == 0 && req.forward.device_encode ? "on the device (compact rows)" : "on the host",
      req.forward.max_batch, ctx.idle_timeout_s, ctx.max_pending_replies,
      options.stats_interval_s);

  // A self-play host of a multi-host run follows the trainer's reload.json
  // (the trainer cannot reach this socket); one machine keeps direct RELOAD.
  std::unique_ptr<ReloadFollower> follower;
  if (!cfg.run.host.empty() && !run_dir.empty())
    follower = std::make_unique<ReloadFollower>(
        ReloadFollowerOptions{cfg.run.dir, cfg.run.host, cfg.server.heartbeat_s}, &reloader);
  else if (!cfg.run.host.empty())
    spdlog::warn("run.host is {} but no --run-dir: this server does not follow reload.json", cfg.run.host);

  for (Batcher* b : lanes) b->Start();
  reloader.Start(initial);
  if (follower) follower->Start();
  server.Start();
  io.run();

  if (follower) follower->Stop();
  reloader.Stop();
  for (Batcher* b : lanes) b->Stop();
  RemoveSocketFile(listening);
  spdlog::info("infer_server stopped");
  return 0;
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) {
  return gz::GuardedMain("infer_server", 1, [&] { return gz::Run(argc, argv); });
}
