// bench_server: throughput, batching efficiency and per-request overhead of
// the inference server, all measured in one run on this machine.
//
//   bench_server [--clients 1,4,20,64] [--seconds 2] [--rounds 3] [--threads 1] [--board 15]
//                [--channels 32] [--blocks 4] [--max-batch 20] [--waits 3,auto,auto-pipeline]
//                [--cache N] [--only table|overhead] [--server-set KEY=VALUE[,KEY=VALUE...]]
// --waits takes max_wait values; "auto-pipeline" is auto with server.auto_pipeline=true.
//
// For each wait setting and client count K it starts build/bin/infer_server
// (child process, symmetry none, CPU, inference.threads = --threads) and runs
// K client threads, each sending single-position INFER requests as fast as the
// answers come.  Reported per run: positions/s, server avg batch, latency
// p50/p99, and efficiency = server positions/s / raw forward positions/s at the
// same (interpolated) batch size, the raw figure measured with LoadForward in
// this process right after the clients stop (the server idles meanwhile).
// Each row is the median-efficiency one of --rounds such pairs, with the range.  Finally: per-request overhead =
// round trip p50 with one client and max_batch 1 minus the server's own
// forward time for one position; then the same with a client that busy-polls
// its socket instead of sleeping in poll(), which takes the cost of waking the
// client thread out of the measurement (on a VM that wake is most of it).
// --cache N runs the servers with server.cache_entries = N (each client
// cycles through 512 positions, so repeats hit).
// Each part also measures this machine's floor for the same pattern with no
// server in it (socket_floor.h: bare socketpairs, one thread that spins for
// the forward time): the lockstep floor for K clients after the table, and
// the bare round trip over the same wait after the overhead, so that the
// server's own share is a difference of two figures from one run.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "bench/socket_floor.h"
#include "common/game/board.h"
#include "common/base/cli.h"
#include "common/base/guarded_main.h"
#include "common/game/encoder.h"
#include "common/base/fileio.h"
#include "common/net/net_api.h"
#include "common/wire/wire.h"
#include "common/wire/wire_client.h"
#include "common/harness/infer_server_process.h"
#include "common/harness/wait_until.h"

namespace gz {
namespace {

struct Options {
  std::vector<int> clients = {1, 4, 20, 64};
  std::vector<std::string> waits = {"3", "auto", "auto-pipeline"};
  double seconds = 2;
  int rounds = 3;  // per table row; the median-efficiency round is shown
  int threads = 1;
  int board = 15, channels = 32, blocks = 4;
  int max_batch = 20;
  int cache = 0;
  std::string only;  // "" = everything, "table", "overhead"
  std::vector<std::string> server_sets;  // extra KEY=VALUE server settings (--server-set)
};

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t k = std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5));
  return v[k];
}

std::string BinDir() {
  return std::filesystem::canonical("/proc/self/exe").parent_path().string();
}

// build/bin/infer_server for one measurement (symmetry none, CPU,
// inference.threads = --threads), serving before the constructor returns;
// SIGTERMed and reaped at scope exit.
class Server {
 public:
  Server(const std::string& ckpt, const std::string& sock, const Options& o, int max_batch, const std::string& wait,
         const std::string& log)
      : process_(Args(ckpt, sock, o, max_batch, wait), Emptied(log), ThreadEnv(o.threads), BinDir() + "/infer_server") {
    using namespace std::chrono_literals;
    if (!testing::WaitUntil([&] { return testing::ServedGeneration(sock) >= 0; }, 60, 50ms))
      throw GomokuError("infer_server did not come up; see " + log);
  }
  ~Server() {
    process_.Signal(SIGTERM);
    process_.Wait();
  }

 private:
  static std::vector<std::string> Args(const std::string& ckpt, const std::string& sock, const Options& o,
                                       int max_batch, const std::string& wait) {
    std::vector<std::string> args = {"--weights", ckpt,
                                     "--set", "board.size=" + std::to_string(o.board),
                                     "--set", "inference.device=cpu",
                                     "--set", "inference.symmetry=none",
                                     "--set", "inference.threads=" + std::to_string(o.threads),
                                     "--set", "server.socket=" + sock,
                                     "--set", "server.max_batch=" + std::to_string(max_batch),
                                     "--set", "server.max_wait=" + (wait == "auto-pipeline" ? std::string("auto") : wait),
                                     "--set", std::string("server.auto_pipeline=") + (wait == "auto-pipeline" ? "true" : "false"),
                                     "--set", "server.max_clients=1000",
                                     "--set", "server.cache_entries=" + std::to_string(o.cache),
                                     "--set", "server.stats_interval_s=3600",
                                     "--set", "run.dir=/nonexistent-bench-run"};
    for (const auto& kv : o.server_sets) {
      args.push_back("--set");
      args.push_back(kv);
    }
    return args;
  }
  // Each server's log replaces the previous one's.
  static const std::string& Emptied(const std::string& log) {
    std::remove(log.c_str());
    return log;
  }
  static std::map<std::string, std::string> ThreadEnv(int threads) {
    return {{"OMP_NUM_THREADS", std::to_string(threads)}, {"OPENBLAS_NUM_THREADS", std::to_string(threads)}};
  }

  testing::InferServerProcess process_;
};

struct RunResult {
  int clients = 0;
  std::string wait;
  int max_batch = 0;
  double positions_per_s = 0, avg_batch = 0, p50_us = 0, p99_us = 0, server_forward_ms = 0;
  double raw_pps = 0, efficiency = 0, busy = 0;
  std::string closes;  // batch close reasons in the window
};

RunResult RunClients(const std::string& sock, int k, double seconds, int board, const std::vector<Position>& ps) {
  std::atomic<bool> measuring{false}, stop{false};
  std::vector<std::vector<double>> lat(k);
  std::vector<int64_t> done(k, 0);
  std::vector<std::string> errors(k);
  std::vector<std::thread> threads;
  HelloParams hello;
  hello.board_size = board;
  hello.symmetry = SymmetryMode::kNone;
  hello.client_name = "bench";
  for (int c = 0; c < k; ++c) {
    threads.emplace_back([&, c] {
      try {
        WireClient w(sock, 5);
        w.Hello(hello, 5);
        std::vector<EvalResult> out(1);
        size_t i = c;
        while (!stop) {
          const double t0 = MonotonicSeconds();
          w.Infer(std::span<const Position>(&ps[i++ % ps.size()], 1), out, 30);
          if (measuring) {
            lat[c].push_back((MonotonicSeconds() - t0) * 1e6);
            ++done[c];
          }
        }
      } catch (const std::exception& e) {
        errors[c] = e.what();
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // warm up
  nlohmann::json before = FetchStats(sock, 5);
  measuring = true;
  const double t0 = MonotonicSeconds();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  measuring = false;
  const double span = MonotonicSeconds() - t0;
  nlohmann::json after = FetchStats(sock, 5);
  stop = true;
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (!e.empty()) throw GomokuError("client failed: " + e);
  RunResult r;
  r.clients = k;
  std::vector<double> all;
  int64_t total = 0;
  for (int c = 0; c < k; ++c) {
    all.insert(all.end(), lat[c].begin(), lat[c].end());
    total += done[c];
  }
  r.positions_per_s = total / span;
  r.p50_us = Percentile(all, 0.5);
  r.p99_us = Percentile(all, 0.99);
  // Positions that went through forwards (cache hits excluded; older servers
  // without the field forwarded everything).
  auto forwarded = [](const nlohmann::json& j) {
    return j.contains("positions_forwarded_total") ? j["positions_forwarded_total"].get<double>()
                                                   : j["positions_total"].get<double>();
  };
  const double dpos = forwarded(after) - forwarded(before);
  const double dfwd = after["forwards_total"].get<double>() - before["forwards_total"].get<double>();
  const double dms = after["avg_forward_ms_total"].get<double>() * after["forwards_total"].get<double>() -
                     before["avg_forward_ms_total"].get<double>() * before["forwards_total"].get<double>();
  r.avg_batch = dfwd > 0 ? dpos / dfwd : 0;
  r.server_forward_ms = dfwd > 0 ? dms / dfwd : 0;
  r.busy = dms / 1000.0 / span;  // fraction of the window the batch thread spent in forwards
  r.closes = bench::BatchCloses(after, &before);
  return r;
}

// Round trip p50 of PING (no batch thread involved), microseconds.
double PingRoundTripUs(const std::string& sock, double seconds) {
  WireClient w(sock, 5);
  std::vector<double> t;
  const double end = MonotonicSeconds() + seconds;
  while (MonotonicSeconds() < end) {
    const double t0 = MonotonicSeconds();
    w.Ping(5);
    t.push_back((MonotonicSeconds() - t0) * 1e6);
  }
  return Percentile(t, 0.5);
}

// Round trip p50 (us) of single-position INFERs from a client that spins on a
// non-blocking recv() instead of sleeping: no client wake-up in the figure.
double SpinRoundTripUs(const std::string& sock, int board, const std::vector<Position>& ps, double seconds) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock.c_str());
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    throw GomokuError("spin client cannot connect to " + sock);
  auto send_all = [&](const std::string& f) {
    if (!SendAll(fd, f.data(), f.size())) throw GomokuError("spin client: send failed");
  };
  std::string buf;
  auto read_frame = [&]() -> wire::FrameHeader {
    char tmp[65536];
    for (;;) {
      if (buf.size() >= wire::kHeaderSize) {
        wire::FrameHeader h = wire::DecodeHeader(reinterpret_cast<const uint8_t*>(buf.data()));
        if (buf.size() >= wire::kHeaderSize + h.payload_len) {
          buf.erase(0, wire::kHeaderSize + h.payload_len);
          return h;
        }
      }
      ssize_t n = ::recv(fd, tmp, sizeof(tmp), MSG_DONTWAIT);
      if (n > 0) buf.append(tmp, static_cast<size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        throw GomokuError("spin client: connection lost");
    }
  };
  wire::Hello h;
  h.encoder_version = kEncoderVersion;
  h.board_size = board;
  h.symmetry = SymmetryMode::kNone;
  h.client_name = "bench-spin";
  send_all(wire::BuildFrame(wire::MsgType::kHello, 1, wire::EncodeHello(h)));
  if (read_frame().type != wire::MsgType::kHelloOk) throw GomokuError("spin client: HELLO refused");
  std::vector<double> t;
  uint64_t id = 2;
  const double warm = MonotonicSeconds() + 0.3, end = warm + seconds;
  for (size_t i = 0; MonotonicSeconds() < end; ++i) {
    std::string frame =
        wire::BuildFrame(wire::MsgType::kInfer, id++, wire::EncodeInfer(std::span<const Position>(&ps[i % ps.size()], 1), board));
    const double t0 = MonotonicSeconds();
    send_all(frame);
    if (read_frame().type != wire::MsgType::kInferReply) throw GomokuError("spin client: no INFER_REPLY");
    if (t0 >= warm) t.push_back((MonotonicSeconds() - t0) * 1e6);
  }
  ::close(fd);
  return Percentile(t, 0.5);
}

// Median seconds of one forward of `n` positions.
double RawForwardSeconds(BatchForward& f, int n, const std::vector<float>& planes_pool, int board) {
  const size_t stride = PlaneFloats(board);
  std::vector<float> planes(planes_pool.begin(), planes_pool.begin() + static_cast<long>(stride * n));
  std::vector<float> logp(static_cast<size_t>(n) * board * board), values(n);
  for (int i = 0; i < 3; ++i) f.Forward(planes.data(), n, logp.data(), values.data());
  std::vector<double> t;
  const double end = MonotonicSeconds() + 0.6;
  while (MonotonicSeconds() < end || t.size() < 5) {
    const double t0 = MonotonicSeconds();
    f.Forward(planes.data(), n, logp.data(), values.data());
    t.push_back(MonotonicSeconds() - t0);
  }
  return Percentile(t, 0.5);
}

// Options from the command line; returns false after printing --help.
bool ParseOptions(int argc, char** argv, Options* out) {
  const char* usage =
      "usage: bench_server [--clients a,b,...] [--waits w,...] [--seconds S] [--rounds R] [--threads T]\n"
      "                    [--board N] [--channels C] [--blocks B] [--max-batch M] [--cache E]\n"
      "                    [--only overhead] [--server-set key=value,...] [--quick]\n"
      "  --quick  1 s runs of 1 and 20 clients at waits 3 and auto, one round (the before/after check)\n";
  CliArgs args = ParseCli(argc, argv,
                          CliSpec{usage,
                                  {"--clients", "--waits", "--seconds", "--rounds", "--threads", "--board",
                                   "--channels", "--blocks", "--max-batch", "--cache", "--only", "--server-set"},
                                  {"--quick"}});
  if (args.help) {
    std::fputs(usage, stdout);
    return false;
  }
  Options& o = *out;
  if (args.has("--quick")) {
    o.clients = {1, 20};
    o.waits = {"3", "auto"};
    o.seconds = 1.0;
    o.rounds = 1;
  }
  if (args.has("--clients")) {
    o.clients.clear();
    for (auto& s : Split(args.get("--clients"))) o.clients.push_back(std::stoi(s));
  }
  if (args.has("--waits")) o.waits = Split(args.get("--waits"));
  o.seconds = args.get_double("--seconds", o.seconds);
  o.rounds = std::max<int>(1, static_cast<int>(args.get_int("--rounds", o.rounds)));
  o.threads = static_cast<int>(args.get_int("--threads", o.threads));
  o.board = static_cast<int>(args.get_int("--board", o.board));
  o.channels = static_cast<int>(args.get_int("--channels", o.channels));
  o.blocks = static_cast<int>(args.get_int("--blocks", o.blocks));
  o.max_batch = static_cast<int>(args.get_int("--max-batch", o.max_batch));
  o.cache = static_cast<int>(args.get_int("--cache", o.cache));
  o.only = args.get("--only", o.only);
  if (args.has("--server-set")) o.server_sets = bench::ParseServerSets(args.get("--server-set"));
  return true;
}

// What every section of the bench shares: the net, the socket, positions,
// and the raw forward in this process (same intra-op threads as the server),
// measured right after each server run so that both see the same load.
struct Bench {
  Options o;
  std::string tmp, ckpt, sock;
  std::vector<Position> ps;
  std::unique_ptr<BatchForward> forward;
  std::vector<float> pool;
  size_t request_bytes = 0, reply_bytes = 0;  // frames of one position, as the clients send and receive them

  explicit Bench(const Options& options) : o(options) {
    char tmpl[] = "/tmp/gzb-XXXXXX";
    tmp = ::mkdtemp(tmpl);
    ckpt = tmp + "/bench.pt";
    sock = tmp + "/infer.sock";
    CreateRandomCheckpoint(ckpt, o.board, Rule::kFreestyle, o.channels, o.blocks, 1, 0, 1);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 512; ++i) {
      Board b(o.board);
      int moves = static_cast<int>(rng() % 40);
      for (int m = 0; m < moves && !b.terminal(); ++m) {
        auto legal = b.LegalMoves();
        b.Play(legal[rng() % legal.size()]);
      }
      ps.push_back(b.ToPosition());
    }
    forward = LoadForward(ckpt, "cpu", o.threads);
    const int pool_n = std::max(o.max_batch, 64);
    pool.resize(PlaneFloats(o.board) * static_cast<size_t>(pool_n));
    for (int i = 0; i < pool_n; ++i)
      EncodePosition(ps[i % ps.size()], 0, pool.data() + static_cast<size_t>(i) * PlaneFloats(o.board));
    request_bytes = wire::BuildFrame(wire::MsgType::kInfer, 1, wire::EncodeInfer({&ps[0], 1}, o.board)).size();
    EvalResult one;
    one.log_policy.assign(static_cast<size_t>(o.board) * o.board, -5.0f);
    reply_bytes = wire::BuildFrame(wire::MsgType::kInferReply, 1, wire::EncodeInferReply(1, {&one, 1}, o.board)).size();
  }
  ~Bench() { std::filesystem::remove_all(tmp); }
  double RawSeconds(int n) { return RawForwardSeconds(*forward, n, pool, o.board); }
  double RawPositionsPerSecondAt(double b) {
    b = std::max(1.0, b);
    const int lo = static_cast<int>(std::floor(b)), hi = static_cast<int>(std::ceil(b));
    const double tlo = RawSeconds(lo);
    const double t = lo == hi ? tlo : tlo + (RawSeconds(hi) - tlo) * (b - lo);
    return b / t;
  }
};

// Clients x waits: throughput, latency and efficiency against the raw forward.
void PrintThroughputTable(Bench& bench) {
  const Options& o = bench.o;
  std::printf("\n%-6s %-8s %10s %9s %10s %10s %11s %12s %10s %12s   %s\n", "wait", "clients", "pos/s", "avg batch",
              "p50 us", "p99 us", "forward ms", "raw pos/s", "efficiency", "forward busy", "efficiency range");
  for (const std::string& wait : o.waits) {
    for (int k : o.clients) {
      // Rounds of (clients for --seconds, then the raw forward at the batch
      // size they reached): this VM's speed drifts by +-15% over seconds, so
      // each efficiency pairs measurements seconds apart, and the row shown
      // is the round with the median efficiency.
      std::vector<RunResult> rounds;
      {
        Server server(bench.ckpt, bench.sock, o, o.max_batch, wait, bench.tmp + "/server.log");
        for (int i = 0; i < o.rounds; ++i) {
          RunResult r = RunClients(bench.sock, k, o.seconds, o.board, bench.ps);
          r.wait = wait;
          r.max_batch = o.max_batch;
          r.raw_pps = bench.RawPositionsPerSecondAt(r.avg_batch);
          r.efficiency = r.positions_per_s / r.raw_pps;
          rounds.push_back(r);
        }
      }
      std::sort(rounds.begin(), rounds.end(),
                [](const RunResult& a, const RunResult& b) { return a.efficiency < b.efficiency; });
      const RunResult& r = rounds[rounds.size() / 2];
      std::printf("%-6s %-8d %10.0f %9.2f %10.0f %10.0f %11.3f %12.0f %10.3f %12.3f   %.3f..%.3f\n", r.wait.c_str(),
                  r.clients, r.positions_per_s, r.avg_batch, r.p50_us, r.p99_us, r.server_forward_ms, r.raw_pps,
                  r.efficiency, r.busy, rounds.front().efficiency, rounds.back().efficiency);
      std::printf("       closes: %s\n", r.closes.c_str());
      std::fflush(stdout);
    }
  }
}

void PrintLockstepFloor(Bench& bench) {
  const Options& o = bench.o;
  std::printf("\nlockstep floor (socket_floor.h: K sleeping clients, one thread that takes a request from each, spins "
              "for the raw forward time of the batch, answers all):\n");
  std::printf("%-8s %9s %12s %12s %16s\n", "clients", "batch", "forward us", "floor busy", "turnaround us");
  for (int k : o.clients) {
    if (k > o.max_batch) continue;  // the floor is for rounds of every client in one batch
    const double work_us = bench.RawSeconds(k) * 1e6;
    const SocketFloor f = MeasureSocketFloor(k, work_us, o.seconds, bench.request_bytes, bench.reply_bytes);
    std::printf("%-8d %9d %12.0f %12.3f %16.1f\n", k, k, work_us, f.busy, f.turnaround_us);
  }
  std::fflush(stdout);
}

// One client, max_batch 1, max_wait 0: the server's own round-trip overhead,
// beside a busy-polling client and the bare socket floor.
void PrintOverhead(Bench& bench) {
  const Options& o = bench.o;
  RunResult overhead;
  double ping_us = 0, queue_wait_us = 0, forward_p50_us = 0, spin_us = 0, spin_forward_p50_us = 0;
  {
    Server server(bench.ckpt, bench.sock, o, 1, "0", bench.tmp + "/server.log");
    overhead = RunClients(bench.sock, 1, o.seconds, o.board, bench.ps);
    nlohmann::json st = FetchStats(bench.sock, 5);
    queue_wait_us = st.value("queue_wait_ms_p50", 0.0) * 1000;
    forward_p50_us = st.value("forward_ms_p50", 0.0) * 1000;
    ping_us = PingRoundTripUs(bench.sock, 1.0);
  }
  {
    Server server(bench.ckpt, bench.sock, o, 1, "0", bench.tmp + "/server.log");
    spin_us = SpinRoundTripUs(bench.sock, o.board, bench.ps, o.seconds);
    spin_forward_p50_us = FetchStats(bench.sock, 5).value("forward_ms_p50", 0.0) * 1000;
  }
  const double raw1_us = bench.RawSeconds(1) * 1e6;
  std::printf("\noverhead (1 client, max_batch 1, max_wait 0): round trip p50 %.1f us - server forward p50 %.1f us "
              "= overhead p50 %.1f us\n  (of which queue wait p50 %.1f us = I/O thread -> batch thread hand-off; raw forward "
              "here %.1f us; PING round trip p50 %.1f us)\n",
              overhead.p50_us, forward_p50_us, overhead.p50_us - forward_p50_us, queue_wait_us, raw1_us, ping_us);
  std::printf("busy-polling client (no client wake-up): round trip p50 %.1f us - server forward p50 %.1f us = "
              "overhead p50 %.1f us\n",
              spin_us, spin_forward_p50_us, spin_us - spin_forward_p50_us);
  const SocketFloor bare = MeasureSocketFloor(1, forward_p50_us, o.seconds, bench.request_bytes, bench.reply_bytes);
  std::printf("bare socket floor (socket_floor.h: one sleeping client, a thread that spins %.1f us): round trip p50 "
              "%.1f us = overhead p50 %.1f us\n  server's own share = %.1f - %.1f = %.1f us\n",
              forward_p50_us, bare.round_trip_p50_us, bare.overhead_p50_us, overhead.p50_us - forward_p50_us,
              bare.overhead_p50_us, overhead.p50_us - forward_p50_us - bare.overhead_p50_us);
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 0;
  ::signal(SIGPIPE, SIG_IGN);
  // The OpenMP pool size is read when LibTorch loads, so pin it by re-executing
  // once: the raw forward here then runs like the server's (inference.threads).
  // Clients are plain threads and use no OpenMP.
  const std::string want_threads = std::to_string(o.threads);
  const char* omp = std::getenv("OMP_NUM_THREADS");
  if (!omp || want_threads != omp) {
    ::setenv("OMP_NUM_THREADS", want_threads.c_str(), 1);
    ::setenv("OPENBLAS_NUM_THREADS", want_threads.c_str(), 1);
    ::execv("/proc/self/exe", argv);
  }
  Bench bench(o);
  std::printf("bench_server: %dx%d board, %d channels x %d blocks, symmetry none, CPU, server inference.threads=%d, "
              "max_batch %d, %.1fs per run, cache %d entries",
              o.board, o.board, o.channels, o.blocks, o.threads, o.max_batch, o.seconds, o.cache);
  for (const auto& kv : o.server_sets) std::printf(", %s", kv.c_str());
  std::printf("\n");
  if (o.only != "overhead") {
    PrintThroughputTable(bench);
    PrintLockstepFloor(bench);
  }
  if (o.only == "table") return 0;
  PrintOverhead(bench);
  return 0;
}

}  // namespace
}  // namespace gz

int main(int argc, char** argv) {
  return gz::GuardedMain("bench_server", 1, [&] { return gz::Main(argc, argv); });
}
