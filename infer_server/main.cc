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
#include "common/net/forward_choice.h"
#include "common/net/net_api.h"
#include "infer_server/serving_model.h"
#include "common/data/record_fields.h"
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

// Everything the server is started with, resolved before anything starts.
struct ServerSetup {
  Config cfg;
  std::string weights, run_dir, log_file;
  std::vector<int> sizes;  // one lane each, ascending
  BatchSettings batch;
  ModelRequirements req;
  std::string socket_path;
};

// The command line and the config.  Returns the exit status when the server
// must not go on (--help: 0; a usage or config error, on stderr: 2).
std::optional<int> LoadSetup(int argc, char** argv, ServerSetup* s) {
  try {
    CliArgs args = ParseCli(argc, argv, CliSpec{kUsage, {"--weights", "--run-dir", kLogFileFlag}, {}});
    if (args.help) {
      std::cout << kUsage;
      return 0;
    }
    s->weights = args.get("--weights");
    s->run_dir = args.get("--run-dir");
    s->log_file = args.get(kLogFileFlag);
    s->cfg = Config::Load(args.config, args.sets);
    if (!s->run_dir.empty()) s->cfg.Set("run.dir", s->run_dir, "--run-dir");
  } catch (const GomokuError& e) {
    std::cerr << "infer_server: " << e.what() << "\n" << kUsage;
    return 2;
  }
  return std::nullopt;
}

// The lanes' sizes, the batching, the model's requirements and the socket
// path, from the (geometry-adopted) config.  Throws GomokuError.
void ResolveSettings(ServerSetup* s) {
  const Config& cfg = s->cfg;
  s->sizes = cfg.board_sizes();
  s->batch = MakeBatchSettings(cfg);
  ModelRequirements& req = s->req;
  req.device = ResolveDevice(cfg.inference.device);
  req.threads = cfg.server.threads > 0 ? cfg.server.threads : cfg.inference.threads;
  req.board_size = cfg.board.size;
  req.rule = cfg.rule();
  req.forward.precision = cfg.server.precision;
  req.forward.cuda_graphs = cfg.server.cuda_graphs;
  req.forward.device_encode = cfg.server.device_encode;
  req.forward.backend = cfg.inference.backend;  // auto: the native forward on the CPU
  // Rows per device forward = positions x symmetry images; bigger batches
  // run in chunks of the forward's limit.
  req.forward.max_batch = static_cast<int>(std::clamp<int64_t>(
      int64_t{s->batch.max_batch} * SymmetriesPerPosition(s->batch.symmetry), 1, int64_t{kMaxForwardBatch}));
  ValidateForwardOptions(req.forward, req.device);
  s->socket_path = ResolveSocketPath(cfg);
}

// Connection limit, stats period, and status/{host}/server.json when there is a run directory.
ServerOptions MakeServerOptions(const Config& cfg, bool run_dir_given) {
  RunLayout layout(cfg.run.dir);
  ServerOptions options;
  options.max_clients = cfg.server.max_clients;
  options.stats_interval_s = cfg.server.stats_interval_s;
  if (run_dir_given || FileExists(cfg.run.dir)) {
    try {
      MakeDirs(layout.status_dir(cfg.run.host));
      options.status_file = layout.server_status(cfg.run.host);
    } catch (const GomokuError& e) {
      spdlog::warn("no status file: {}", e.what());
    }
  }
  return options;
}

// One result cache per lane (server.cache_entries each; none when 0).
struct LaneCaches {
  std::vector<std::unique_ptr<ResultCache>> caches;  // per lane; null = off
  bool on = false;
  int64_t capacity = 0;
  double mib = 0;

  std::string Describe() const {
    return on ? fmt::format("{} entries ({:.0f} MiB){}", capacity, mib,
                              caches.size() > 1 ? fmt::format(" over {} board sizes", caches.size()) : "")
                : std::string("off");
  }
};

// Throws GomokuError (e.g. a cache too large).
LaneCaches MakeCaches(int entries, const std::vector<int>& sizes) {
  LaneCaches c;
  c.caches.resize(sizes.size());
  c.on = entries > 0;
  if (entries > 0)
    for (size_t i = 0; i < sizes.size(); ++i) {
      c.caches[i] = std::make_unique<ResultCache>(entries, sizes[i]);
      c.capacity += c.caches[i]->capacity();
      c.mib += c.caches[i]->capacity() * (4.0 * (sizes[i] * sizes[i] + 1) + 32) / (1 << 20);
    }
  return c;
}

std::string WaitDescription(const BatchSettings& batch) {
  return batch.auto_wait ? fmt::format("auto (<= {:g} ms{})", batch.auto_wait_ceiling_ms,
                                       batch.auto_pipeline ? ", pipelining" : "")
                         : fmt::format("{:g} ms", batch.max_wait_ms);
}

// The server's settings as status/server.json's "info" shows them.
nlohmann::json ServerInfo(const ServerSetup& s, int64_t cache_capacity) {
  const BatchSettings& batch = s.batch;
  const ModelRequirements& req = s.req;
  return {{fields::server_status::kDevice, req.device},
          {"threads", req.threads},
          {"backend", ChooseForward(ServingSettings(req)).name()},
          {"board_size", batch.board_size},
          {"board_sizes", s.sizes},
          {"rule", RuleName(req.rule)},
          {"symmetry", SymmetryModeName(batch.symmetry)},
          {fields::server_status::kMaxBatch, batch.max_batch},
          {"max_wait", batch.auto_wait ? nlohmann::json("auto") : nlohmann::json(batch.max_wait_ms)},
          {"auto_wait_ceiling_ms", batch.auto_wait_ceiling_ms},
          {"auto_pipeline", batch.auto_pipeline},
          {"cache_entries", cache_capacity},
          {"precision", req.forward.precision},
          {"cuda_graphs", req.forward.cuda_graphs},
          {"device_encode", req.forward.device_encode},
          {"forward_max_rows", req.forward.max_batch},
          {"socket", s.socket_path},
          {fields::server_status::kPid, static_cast<int64_t>(::getpid())}};
}

void LogStart(const ServerSetup& s, const InitialModelSource& initial, const LaneCaches& caches,
              const SessionContext& ctx, const ServerOptions& options) {
  const BatchSettings& batch = s.batch;
  const ModelRequirements& req = s.req;
  spdlog::info(
      "infer_server starting: socket {}, device {} ({}), model {}, board {} {}, board sizes {} (one lane "
      "each), symmetry {}, max_batch {}, "
      "max_wait {}, result cache {}, forward precision {}, CUDA graphs {}, input encoding {}, forward max rows {}, "
      "idle timeout {:g}s, "
      "max pending replies {}, stats every {:g}s",
      s.socket_path, req.device, ChooseForward(ServingSettings(req)).Describe(),
      initial.Describe(), batch.board_size, RuleName(req.rule),
      JoinSizes(s.sizes), SymmetryModeName(batch.symmetry), batch.max_batch, WaitDescription(batch),
      caches.Describe(), req.forward.precision, req.forward.cuda_graphs ? "on" : "off",
      req.device.rfind("cuda", 0) == 0 && req.forward.device_encode ? "on the device (compact rows)" : "on the host",
      req.forward.max_batch, ctx.idle_timeout_s, ctx.max_pending_replies, options.stats_interval_s);
}

// Builds the lanes, the reloader, the service and the server on `listening`,
// serves until a stop signal, then stops them in reverse order.  Returns 0.
int Serve(const ServerSetup& s, const ListeningSocket& listening, const ServerOptions& options, LaneCaches& caches) {
  const Config& cfg = s.cfg;
  InitialModelSource initial;
  initial.weights = s.weights;
  if (s.weights.empty()) initial.run_dir = s.run_dir;

  ServerStats stats;
  if (caches.on) stats.EnableCacheStats();
  stats.SetInfo(ServerInfo(s, caches.capacity));
  // One lane per board size: positions of different sizes never share a forward.
  std::vector<std::unique_ptr<Batcher>> batchers;
  std::vector<Batcher*> lanes;
  for (size_t i = 0; i < s.sizes.size(); ++i) {
    BatchSettings lane = s.batch;
    lane.board_size = s.sizes[i];
    batchers.push_back(std::make_unique<Batcher>(lane, &stats, caches.caches[i].get()));
    lanes.push_back(batchers.back().get());
  }
  Reloader reloader(lanes, s.req, &stats);

  ServiceSettings service_settings;
  service_settings.board_size = s.batch.board_size;
  service_settings.rule = s.req.rule;
  service_settings.symmetry = s.batch.symmetry;
  InferenceService service(service_settings, lanes, &reloader, &stats);

  SessionContext ctx;
  ctx.idle_timeout_s = cfg.server.idle_timeout_s;
  ctx.max_pending_replies = cfg.server.max_pending_replies;
  ctx.service = &service;
  ctx.stats = &stats;

  boost::asio::io_context io(1);
  InferServer server(io, listening, options, ctx, lanes);
  LogStart(s, initial, caches, ctx, options);

  // A self-play host of a multi-host run follows the trainer's reload.json
  // (the trainer cannot reach this socket); one machine keeps direct RELOAD.
  std::unique_ptr<ReloadFollower> follower;
  if (!cfg.run.host.empty() && !s.run_dir.empty())
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

// Phases: command line and config -> logging and the run's geometry ->
// settings -> the listening socket -> status file -> the caches -> serve.
int Run(int argc, char** argv) {
  ServerSetup s;
  if (std::optional<int> rc = LoadSetup(argc, argv, &s)) return *rc;
  InitLogging("infer_server", s.log_file);
  ::signal(SIGPIPE, SIG_IGN);
  try {
    if (!s.run_dir.empty()) AdoptMetadataGeometry(s.run_dir, &s.cfg);
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  spdlog::info("config set by: {}", s.cfg.DescribeOrigins());
  try {
    ResolveSettings(&s);
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }

  ListeningSocket listening;
  try {
    listening = OpenListeningSocket(s.socket_path);
  } catch (const GomokuError& e) {
    spdlog::error("cannot start: {}", e.what());
    return 1;
  }
  const ServerOptions options = MakeServerOptions(s.cfg, !s.run_dir.empty());
  LaneCaches caches;
  try {
    caches = MakeCaches(s.cfg.server.cache_entries, s.sizes);
  } catch (const GomokuError& e) {
    spdlog::error("{}", e.what());
    return 2;
  }
  return Serve(s, listening, options, caches);
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) {
  return gz::GuardedMain("infer_server", 1, [&] { return gz::Run(argc, argv); });
}
