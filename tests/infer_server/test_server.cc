// infer_server end to end: the real binary over a real Unix socket with a
// tiny real network.  Answers vs local inference, reload, cold start, socket
// start-up cases, permissions, handshake refusal, SIGTERM, infer_ctl.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/config/config.h"
#include "common/wire/fallback_evaluator.h"
#include "common/data/metadata.h"
#include "common/wire/remote_evaluator.h"
#include "common/data/run_layout.h"
#include "common/wire/wire.h"
#include "tests/net/checkpoint_edit.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

// Runs a shell command; returns its exit code, its stdout+stderr in *output.
int RunCommand(const std::string& command, std::string* output = nullptr) {
  const std::string cmd = command + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  if (output) *output = out;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int RunCtl(const std::string& args, std::string* output = nullptr) {
  return RunCommand(std::string(GZ_BIN_DIR) + "/infer_ctl " + args, output);
}

// A socket file nobody listens on (what a kill -9'd server leaves behind).
void MakeStaleSocket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  ::close(fd);
}

}  // namespace

TEST_CASE("20 concurrent clients get the same answers as local inference", "[server]") {
  ServedCheckpoint srv("server/concurrent", 11, 3, {}, "s/infer.sock");

  const int kClients = 20, kRequests = 8;
  std::vector<std::vector<Position>> work(kClients);
  std::vector<Position> all;
  for (int c = 0; c < kClients; ++c) {
    work[c] = RandomPositions(kRequests * 2, 100 + c);
    all.insert(all.end(), work[c].begin(), work[c].end());
  }
  std::vector<EvalResult> expected = LocalAnswers(srv.ckpt, all);

  std::atomic<int> failures{0};
  std::vector<double> max_diff(kClients, 0);
  std::vector<std::string> errors(kClients);
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      try {
        RemoteEvaluator remote(srv.sock, TestHello());
        for (int r = 0; r < kRequests; ++r) {
          // Requests of 1 and 2 positions, interleaved with everyone else's.
          std::span<const Position> ps(work[c].data() + r * 2, r % 2 ? 2 : 1);
          std::vector<EvalResult> got(ps.size());
          remote.Evaluate(ps, got);
          for (size_t i = 0; i < ps.size(); ++i) {
            const EvalResult& want = expected[c * kRequests * 2 + r * 2 + i];
            max_diff[c] = std::max(max_diff[c], MaxAbsDiff(got[i], want));
            if (got[i].model_generation != 3) ++failures;
          }
        }
      } catch (const std::exception& e) {
        errors[c] = e.what();
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int c = 0; c < kClients; ++c) {
    INFO("client " << c << " error: " << errors[c]);
    CHECK(errors[c].empty());
    CHECK(max_diff[c] < 1e-5);
  }
  CHECK(failures == 0);
  nlohmann::json stats = FetchStats(srv.sock, 5);
  CHECK(stats.at("positions_total").get<int64_t>() == kClients * (kRequests / 2) * 3);
  CHECK(stats.at("requests_total").get<int64_t>() == kClients * kRequests);
  CHECK(stats.at("model_generation").get<int64_t>() == 3);
  CHECK(srv.server.Terminate() == 0);
  CHECK_FALSE(FileExists(srv.sock));
}

TEST_CASE("a request bigger than the server's read buffer, then small ones on the same connection", "[server]") {
  // The session reads 16 KiB at a time; a 34 KB INFER frame needs the buffer
  // to grow over several reads, and the frames after it must still parse.
  ServedCheckpoint srv("server/bigframe", 11, 3, {}, "s/infer.sock");
  std::vector<Position> big = RandomPositions(400, 7);
  REQUIRE(wire::BuildFrame(wire::MsgType::kInfer, 1, wire::EncodeInfer(big, kTestBoard)).size() > 2 * 16384);
  std::vector<EvalResult> expected = LocalAnswers(srv.ckpt, big);
  RemoteEvaluator remote(srv.sock, TestHello());
  std::vector<EvalResult> got(big.size());
  remote.Evaluate(big, got);
  double diff = 0;
  for (size_t i = 0; i < big.size(); ++i) diff = std::max(diff, MaxAbsDiff(got[i], expected[i]));
  CHECK(diff < 1e-5);
  for (size_t i = 0; i < 3; ++i) {
    std::vector<EvalResult> one(1);
    remote.Evaluate(std::span<const Position>(&big[i], 1), one);
    CHECK(MaxAbsDiff(one[0], expected[i]) < 1e-5);
  }
  nlohmann::json stats = FetchStats(srv.sock, 5);
  CHECK(stats.at("requests_total").get<int64_t>() == 4);
  CHECK(stats.at("positions_total").get<int64_t>() == 403);
  CHECK(srv.server.Terminate() == 0);
}

TEST_CASE("reload swaps models; bad files are refused and the old model keeps serving", "[server][reload]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/reload");
  std::string a = MakeCheckpoint(dir, "a.pt", 1, 1);
  std::string b = MakeCheckpoint(dir, "b.pt", 2, 2);
  std::string sock = tmp / "infer.sock";
  InferServerProcess server(ServerArgs(sock, dir + "/run", {"--weights", a}), dir + "/server.log");
  REQUIRE(WaitServing(sock, 1));

  std::vector<Position> probe = RandomPositions(4, 7);
  auto want_a = LocalAnswers(a, probe);
  auto want_b = LocalAnswers(b, probe);
  RemoteEvaluator remote(sock, TestHello());
  std::vector<EvalResult> got(probe.size());
  remote.Evaluate(probe, got);
  for (size_t i = 0; i < probe.size(); ++i) CHECK(MaxAbsDiff(got[i], want_a[i]) < 1e-5);
  CHECK(MaxAbsDiff(want_a[0], want_b[0]) > 1e-3);  // the two nets really differ

  CHECK(RequestReload(sock, b, 30) == 2);
  CHECK(ServedGeneration(sock) == 2);
  remote.Evaluate(probe, got);
  for (size_t i = 0; i < probe.size(); ++i) {
    CHECK(MaxAbsDiff(got[i], want_b[i]) < 1e-5);
    CHECK(got[i].model_generation == 2);
  }

  // A truncated copy, an incompatible board size, garbage, a missing file; a
  // copy claiming format version 4, one with a NaN weight and one with a bit
  // flipped in the tensor data (those two with their CRC fixed, so that the
  // loader's own checks must catch them), and one with the flip but not the fix.
  std::string full = ReadFileOrThrow(b);
  std::string truncated = dir + "/truncated.pt";
  WriteFileAtomic(truncated, full.substr(0, full.size() / 2));
  std::string garbage = dir + "/garbage.pt";
  WriteFileAtomic(garbage, std::string(5000, 'x'));
  std::string other_board = MakeCheckpoint(dir, "seven.pt", 3, 9, 7);
  const size_t data = 12 + JsonLen(full);
  std::string v2 = full;
  const uint32_t version = 4;  // 1 to 3 are read (2: the heads field, test_net_heads; 3: play settings)
  std::memcpy(v2.data() + 4, &version, 4);
  std::string version2 = dir + "/version2.pt";
  WriteFileAtomic(version2, WithFixedCrc(v2));
  std::string poisoned = full;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(poisoned.data() + data + 4 * 10, &nan, 4);
  std::string nan_weights = dir + "/nan.pt";
  WriteFileAtomic(nan_weights, WithFixedCrc(poisoned));
  std::string flipped = full;
  flipped[data + 100] ^= 0x10;
  std::string crc_mismatch = dir + "/crc.pt";
  WriteFileAtomic(crc_mismatch, flipped);
  for (const std::string& bad :
       {truncated, garbage, other_board, dir + "/missing.pt", version2, nan_weights, crc_mismatch}) {
    INFO(bad);
    try {
      RequestReload(sock, bad, 30);
      FAIL("reload of a bad file succeeded");
    } catch (const ServerRefusedError& e) {
      CHECK(e.code() == wire::ErrorCode::kReloadFailed);
      CHECK(std::string(e.what()).size() > 20);
      // The reason names the problem.
      if (bad == version2) CHECK_THAT(e.what(), Catch::Contains("format version 4"));
      if (bad == nan_weights) CHECK_THAT(e.what(), Catch::Contains("NaN/Inf"));
      if (bad == crc_mismatch) CHECK_THAT(e.what(), Catch::Contains("CRC-32 mismatch"));
    }
    CHECK(ServedGeneration(sock) == 2);
    remote.Evaluate(probe, got);
    for (size_t i = 0; i < probe.size(); ++i) CHECK(MaxAbsDiff(got[i], want_b[i]) < 1e-5);
  }

  // infer_ctl: reload prints the generation; a refusal exits non-zero with the reason.
  std::string out;
  CHECK(RunCtl("--socket " + sock + " reload " + a, &out) == 0);
  CHECK(out.find("1") != std::string::npos);
  CHECK(ServedGeneration(sock) == 1);
  CHECK(RunCtl("--socket " + sock + " reload " + truncated, &out) == 1);
  CHECK(out.find("refused") != std::string::npos);
  CHECK(ServedGeneration(sock) == 1);
  CHECK(server.Terminate() == 0);
}

TEST_CASE("with --run-dir the server takes board and symmetry from an existing metadata.json", "[server]") {
  // The config given to the server says 7x7 and no symmetry; the run's
  // metadata.json (the source of truth the workers read too) says 9x9, all8.
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/geometry");
  std::string run = dir + "/run";
  std::string sock = tmp / "sock/infer.sock";
  RunLayout layout(run);
  std::filesystem::create_directories(layout.checkpoints());
  std::string ckpt = MakeCheckpoint(layout.checkpoints(), RunLayout::checkpoint_name(0), 5, 4);
  Config shared;
  shared.board.size = kTestBoard;
  shared.inference.symmetry = "all8";
  Metadata m;
  m.iteration = 1;
  m.weights = ckpt;
  m.model_generation = 4;
  m.config = shared.ToJson();
  WriteMetadata(layout.metadata(), m);
  std::vector<std::string> args = ServerArgs(sock, run, {"--run-dir", run, "--set", "board.size=7", "--set",
                                                         "inference.symmetry=none"});
  InferServerProcess server(args, dir + "/server.log");
  REQUIRE(WaitServing(sock, 4, 30));
  // A client that states the run's geometry is served; one that states the
  // server's own config is refused by the HELLO guard.
  {
    RemoteEvaluator remote(sock, TestHello(SymmetryMode::kAll8, kTestBoard));
    std::vector<Position> ps = RandomPositions(2, 3);
    std::vector<EvalResult> got(ps.size());
    remote.Evaluate(ps, got);
    auto want = LocalAnswers(ckpt, ps);
    for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) < 1e-5);
  }
  CHECK_THROWS_AS(RemoteEvaluator(sock, TestHello(SymmetryMode::kNone, 7)), ServerRefusedError);
  const nlohmann::json stats = FetchStats(sock, 5);
  CHECK(stats.at("board_size") == kTestBoard);
  CHECK(stats.at("symmetry") == "all8");
  CHECK(server.Terminate() == 0);
  const std::string log = server.Log();
  CHECK(log.find("run geometry from " + layout.metadata()) != std::string::npos);
  CHECK(log.find("board.size=9 (" + layout.metadata() + ")") != std::string::npos);
}

TEST_CASE("cold start: the server waits for metadata.json, then serves its weights", "[server]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/cold");
  std::string run = dir + "/run";
  std::string sock = tmp / "sock/infer.sock";
  std::filesystem::create_directories(run);
  InferServerProcess server(ServerArgs(sock, run, {"--run-dir", run}), dir + "/server.log");
  REQUIRE(WaitServing(sock, -1));  // up, no model yet

  // INFER before a model exists: a clear refusal, not a hang.
  {
    RemoteEvaluator remote(sock, TestHello());
    CHECK(remote.last_generation() == -1);
    std::vector<Position> ps = RandomPositions(1, 1);
    std::vector<EvalResult> out(1);
    try {
      remote.Evaluate(ps, out);
      FAIL("INFER without a model succeeded");
    } catch (const ServerRefusedError& e) {
      CHECK(e.code() == wire::ErrorCode::kNotReady);
    }
  }
  RunLayout layout(run);
  std::filesystem::create_directories(layout.checkpoints());
  std::string ckpt = MakeCheckpoint(layout.checkpoints(), RunLayout::checkpoint_name(0), 5, 0);
  Metadata m;
  m.iteration = 1;
  m.weights = ckpt;
  m.model_generation = 0;
  m.config = nlohmann::json::object();
  WriteMetadata(layout.metadata(), m);
  REQUIRE(WaitServing(sock, 0, 30));

  std::vector<Position> ps = RandomPositions(3, 2);
  auto want = LocalAnswers(ckpt, ps);
  RemoteEvaluator remote(sock, TestHello());
  std::vector<EvalResult> got(ps.size());
  remote.Evaluate(ps, got);
  for (size_t i = 0; i < ps.size(); ++i) CHECK(MaxAbsDiff(got[i], want[i]) < 1e-5);

  // The status file is rewritten every stats interval with a timestamp.
  REQUIRE(WaitUntil(
      [&] {
        try {
          auto j = nlohmann::json::parse(ReadFileOrThrow(layout.server_status()));
          return j.at("model_generation").get<int64_t>() == 0 && j.at("requests_total").get<int64_t>() >= 1;
        } catch (const std::exception&) {
          return false;
        }
      },
      10));
  auto status = nlohmann::json::parse(ReadFileOrThrow(layout.server_status()));
  CHECK(status.at("timestamp").get<double>() > 1.6e9);
  CHECK(status.at("state") == "serving");
  CHECK(server.Terminate() == 0);
  std::string log = server.Log();
  CHECK(log.find("waiting for") != std::string::npos);
  CHECK(log.find("stats: ") != std::string::npos);
  CHECK(log.find("infer_server starting") != std::string::npos);
}

TEST_CASE("socket start-up: stale socket, second server, non-socket file, permissions", "[server][socket]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/socket");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 1, 1);
  std::string sock = tmp / "d/infer.sock";
  std::filesystem::create_directories(tmp / "d");
  ::chmod((tmp / "d").c_str(), 0700);
  MakeStaleSocket(sock);
  REQUIRE(FileExists(sock));

  InferServerProcess first(ServerArgs(sock, dir + "/run", {"--weights", ckpt}), dir + "/first.log");
  REQUIRE(WaitServing(sock, 1));
  CHECK(first.Log().find("removed stale socket") != std::string::npos);

  struct stat st {};
  REQUIRE(::stat(sock.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);

  // A second server on the same path refuses and leaves the first alone.
  InferServerProcess second(ServerArgs(sock, dir + "/run", {"--weights", ckpt}), dir + "/second.log");
  CHECK(second.WaitExit(std::chrono::seconds(60)) == 1);
  CHECK(second.Log().find("already") != std::string::npos);
  CHECK(ServedGeneration(sock) == 1);
  CHECK(first.Poll() == std::nullopt);  // still running
  CHECK(first.Terminate() == 0);
  CHECK_FALSE(FileExists(sock));

  // A server creates a missing socket directory with mode 0700.
  std::string sock2 = tmp / "new/sub/infer.sock";
  InferServerProcess third(ServerArgs(sock2, dir + "/run", {"--weights", ckpt}), dir + "/third.log");
  REQUIRE(WaitServing(sock2, 1));
  REQUIRE(::stat((tmp / "new/sub").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat(sock2.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(third.Terminate() == 0);

  // A regular file where the socket should be is never removed.
  std::string not_socket = tmp / "d/file.sock";
  WriteFileAtomic(not_socket, "precious");
  InferServerProcess fourth(ServerArgs(not_socket, dir + "/run", {"--weights", ckpt}), dir + "/fourth.log");
  CHECK(fourth.WaitExit(std::chrono::seconds(60)) == 1);
  CHECK(ReadFileOrThrow(not_socket) == "precious");
  CHECK(fourth.Log().find("not a socket") != std::string::npos);
}

// Checklist item 11, the other user: runs as root (CI does) so that it can run
// a client as uid/gid 65534 (setpriv).  The file modes stop that client with
// EACCES; a client of that uid that reaches the socket anyway (the test
// loosens the modes) is refused by the server's SO_PEERCRED policy, and the
// log names its uid and pid.  Tagged [root]: ctest runs it as its own entry,
// test_server_other_uid, which reports "ctest-skip: ..." as skipped
// (tests/infer_server/CMakeLists.txt), so a normal user's run says what it
// left out instead of failing it or counting it as passed.
TEST_CASE("socket: another uid gets EACCES; one that reaches the socket is refused (SO_PEERCRED)",
          "[server][socket][uid][root]") {
  if (::geteuid() != 0) {
    std::cout << "ctest-skip: needs root (CI runs it as root): it runs a client as uid 65534 to check the socket's "
                 "permissions and the server's SO_PEERCRED policy; euid is "
              << ::geteuid() << std::endl;
    return;
  }
  REQUIRE(FileExists("/usr/bin/setpriv"));
  constexpr uid_t kOther = 65534;
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/peer-uid");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 1, 1);
  const std::string sdir = tmp / "d";
  const std::string sock = sdir + "/infer.sock";
  InferServerProcess server(ServerArgs(sock, dir + "/run", {"--weights", ckpt}), dir + "/server.log");
  REQUIRE(WaitServing(sock, 1));
  struct stat st {};
  REQUIRE(::stat(sdir.c_str(), &st) == 0);
  REQUIRE((st.st_mode & 0777) == 0700);  // created by the server
  REQUIRE(::stat(sock.c_str(), &st) == 0);
  REQUIRE((st.st_mode & 0777) == 0600);

  // `infer_ctl ping` as uid/gid 65534 with no groups; setpriv execs it, so
  // the child's pid is the client's.  Returns the exit code and its output.
  int run = 0;
  auto ping_as_other = [&](pid_t* pid) {
    const std::string log = dir + "/client" + std::to_string(++run) + ".log";
    TestProcess client("/usr/bin/setpriv",
                       {"--reuid=" + std::to_string(kOther), "--regid=" + std::to_string(kOther), "--clear-groups",
                        BinPath("infer_ctl"), "--socket", sock, "--timeout", "20", "ping"},
                       log);
    if (pid) *pid = client.pid();
    const std::optional<int> rc = client.WaitExit(std::chrono::seconds(60));
    return std::make_pair(rc.value_or(-1), client.Log());
  };

  // 1. The socket's directory is 0700 (the temp folder above it made
  //    passable): EACCES at connect.
  REQUIRE(::chmod(tmp.path().c_str(), 0711) == 0);
  auto [rc1, out1] = ping_as_other(nullptr);
  INFO(out1);
  CHECK(rc1 == 2);  // infer_ctl: no server answered
  CHECK(out1.find("Permission denied") != std::string::npos);

  // 2. The directory passable, the socket 0600: EACCES again.
  REQUIRE(::chmod(sdir.c_str(), 0711) == 0);
  auto [rc2, out2] = ping_as_other(nullptr);
  INFO(out2);
  CHECK(rc2 == 2);
  CHECK(out2.find("Permission denied") != std::string::npos);
  CHECK(server.Log().find("refused a connection") == std::string::npos);  // never reached the server

  // 3. The socket 0666: the client connects, and the server refuses it by its
  //    credentials, closes it and logs its uid and pid.
  REQUIRE(::chmod(sock.c_str(), 0666) == 0);
  pid_t client_pid = -1;
  auto [rc3, out3] = ping_as_other(&client_pid);
  INFO(out3);
  CHECK(rc3 == 2);  // the connection was closed without an answer
  CHECK(out3.find("pong") == std::string::npos);
  const std::string refused = "refused a connection from uid " + std::to_string(kOther) + " (pid " +
                              std::to_string(client_pid) + "): only uid 0 (the server's own) may use this server";
  REQUIRE(WaitUntil([&] { return server.Log().find(refused) != std::string::npos; }, 30));
  CHECK(server.Log().find("closing it") != std::string::npos);

  // The owner is still served, and the server stops cleanly.
  CHECK(ServedGeneration(sock) == 1);
  CHECK(server.Terminate() == 0);
  CHECK_FALSE(FileExists(sock));
}

TEST_CASE("a mismatched HELLO is refused with the reason; FallbackEvaluator does not fall back", "[server]") {
  ServedCheckpoint srv("server/hello", 1, 1);

  struct Case {
    HelloParams hello;
    std::string reason;
  };
  std::vector<Case> cases;
  cases.push_back({TestHello(SymmetryMode::kAll8, 7), "board size 7"});
  cases.push_back({TestHello(SymmetryMode::kNone), "symmetry none"});
  HelloParams rule = TestHello();
  rule.rule = Rule::kStandard;
  cases.push_back({rule, "rule standard"});
  HelloParams enc = TestHello();
  enc.encoder_version = kEncoderVersion + 1;
  cases.push_back({enc, "encoder version"});
  for (auto& c : cases) {
    INFO(c.reason);
    WireClient client(srv.sock, 5);
    try {
      client.Hello(c.hello, 5);
      FAIL("HELLO accepted");
    } catch (const ServerRefusedError& e) {
      CHECK(e.code() == wire::ErrorCode::kIncompatible);
      CHECK(std::string(e.what()).find(c.reason) != std::string::npos);
    }
    int factory_calls = 0;
    try {
      FallbackEvaluator fb(srv.sock, c.hello, [&] {
        ++factory_calls;
        return std::unique_ptr<Evaluator>();
      });
      FAIL("FallbackEvaluator accepted a refused HELLO");
    } catch (const ProtocolError& e) {
      CHECK(std::string(e.what()).find(c.reason) != std::string::npos);
    }
    CHECK(factory_calls == 0);
  }
  // The worker binary: a refused HELLO ends it non-zero with the reason in
  // its log, and it never falls back to local inference over it.
  const std::string out_dir = srv.dir + "/worker_games";
  for (const auto& [set, reason] : std::vector<std::pair<std::string, std::string>>{
           {"--set board.size=7", "board size 7"}, {"--set board.rule=standard", "rule standard"}}) {
    INFO(set);
    std::string log;
    const int code = RunCommand("GOMOKU_INFER_SOCK=" + srv.sock + " " + std::string(GZ_BIN_DIR) +
                                    "/worker --id 0 --games 1 --weights uniform --out " + out_dir +
                                    " --set inference.symmetry=all8 " + set,
                                &log);
    INFO(log);
    CHECK(code >= 1);  // exited with an error (-1: killed by a signal)
    CHECK(log.find(reason) != std::string::npos);
    CHECK(log.find("falling back to local inference") == std::string::npos);
    int games = 0;
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec))
      games += it->path().extension() == ".npz";
    CHECK(games == 0);
  }
  // Wrong protocol version in HELLO's frame header.
  WireClient raw(srv.sock, 5);
  std::string frame = wire::BuildFrame(wire::MsgType::kHello, 1, wire::EncodeHello({}));
  frame[4] = 9;
  raw.SendRaw(frame, 5);
  auto reply = raw.Receive(5);
  CHECK(reply.header.type == wire::MsgType::kError);
  CHECK(wire::DecodeError(reply.payload).code == wire::ErrorCode::kVersionMismatch);
  CHECK(ServedGeneration(srv.sock) == 1);
  CHECK(srv.server.Terminate() == 0);
}

// Checklist item 18: SIGTERM with requests waiting (six connections, two
// pipelined INFERs each, in an open 1 s batch window).  Within 5 s of the
// signal (the requirement, so the bound is asserted): every request sent
// before it is answered, by its batch (INFER_REPLY) or with ERROR
// shutting_down, none is dropped; the socket is unlinked; the server exits 0.
TEST_CASE("SIGTERM under load: the batch finishes, waiters are released, socket removed, exit 0 within 5 s",
          "[server][shutdown]") {
  // A long batch window (max_wait is at most 1000 ms) so that the requests
  // are waiting in an open batch when SIGTERM arrives.
  ServedCheckpoint srv("server/sigterm", 1, 1, {"--set", "server.max_wait=1000", "--set", "server.max_batch=1000"});
  constexpr int kClients = 6, kPipelined = 2;
  constexpr double kBound_s = 5.0;  // docs/reliability.md, item 18
  std::vector<std::unique_ptr<WireClient>> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(std::make_unique<WireClient>(srv.sock, 10));
    clients.back()->Hello(TestHello(), 30);
  }
  std::vector<std::string> payloads;
  for (int c = 0; c < kClients; ++c) payloads.push_back(wire::EncodeInfer(RandomPositions(1, 100 + c), kTestBoard));

  // A round: every client pipelines its INFERs and a PING.  The PONG, sent at
  // once, proves the INFERs before it were read and queued.  SIGTERM is sent
  // as soon as every PONG is in, if that took well under the 1 s window;
  // otherwise (a very slow moment) the round's answers are collected and the
  // round starts over.
  std::vector<std::vector<uint64_t>> pending(kClients);
  double t_sig = 0;
  for (int round = 0; round < 20 && t_sig == 0; ++round) {
    const double t_round = MonotonicSeconds();
    for (int c = 0; c < kClients; ++c) {
      pending[c].clear();
      for (int k = 0; k < kPipelined; ++k) pending[c].push_back(clients[c]->Send(wire::MsgType::kInfer, payloads[c]));
      clients[c]->Send(wire::MsgType::kPing, "");
    }
    int early_answers = 0;
    for (int c = 0; c < kClients; ++c) {
      for (;;) {
        WireClient::Frame f = clients[c]->Receive(30);
        if (f.header.type == wire::MsgType::kPong) break;
        REQUIRE(f.header.type == wire::MsgType::kInferReply);  // the window closed before the PONG was read
        pending[c].erase(std::find(pending[c].begin(), pending[c].end(), f.header.request_id));
        ++early_answers;
      }
    }
    if (early_answers == 0 && MonotonicSeconds() - t_round < 0.5) {
      t_sig = MonotonicSeconds();
      srv.server.Signal(SIGTERM);
      break;
    }
    for (int c = 0; c < kClients; ++c)
      while (!pending[c].empty()) {
        WireClient::Frame f = clients[c]->Receive(30);
        REQUIRE(f.header.type == wire::MsgType::kInferReply);
        pending[c].erase(std::find(pending[c].begin(), pending[c].end(), f.header.request_id));
      }
  }
  REQUIRE(t_sig > 0);

  // Every waiting request is answered: by its batch or "shutting down".
  int answered = 0, refused = 0, lost = 0;
  for (int c = 0; c < kClients; ++c) {
    while (!pending[c].empty()) {
      WireClient::Frame f;
      try {
        f = clients[c]->Receive(std::max(0.1, t_sig + kBound_s - MonotonicSeconds()));
      } catch (const ServerUnavailableError& e) {  // closed (or not answered in time) with requests waiting
        UNSCOPED_INFO("client " << c << ": " << e.what());
        lost += static_cast<int>(pending[c].size());
        break;
      }
      auto it = std::find(pending[c].begin(), pending[c].end(), f.header.request_id);
      REQUIRE(it != pending[c].end());
      pending[c].erase(it);
      if (f.header.type == wire::MsgType::kInferReply) {
        std::vector<EvalResult> out(1);
        CHECK(wire::DecodeInferReply(f.payload, kTestBoard, out) == 1);
        ++answered;
      } else {
        REQUIRE(f.header.type == wire::MsgType::kError);
        CHECK(wire::DecodeError(f.payload).code == wire::ErrorCode::kShuttingDown);
        ++refused;
      }
    }
  }
  const double released_s = MonotonicSeconds() - t_sig;
  CHECK(lost == 0);
  CHECK(answered + refused == kClients * kPipelined);
  CHECK(refused >= 1);  // the requests waiting in the open window got ERROR shutting_down
  CHECK(released_s < kBound_s);

  // Exit 0 within the bound (the wait's own limit only guards against a hang).
  const std::optional<int> rc = srv.server.WaitExit(std::chrono::seconds(30));
  const double exit_s = MonotonicSeconds() - t_sig;
  REQUIRE(rc.has_value());
  CHECK(*rc == 0);
  CHECK(exit_s < kBound_s);
  CHECK_FALSE(FileExists(srv.sock));
  const std::string log = srv.server.Log();
  CHECK(log.find("SIGTERM received") != std::string::npos);
  CHECK(log.find("infer_server stopped") != std::string::npos);
  WARN("SIGTERM: waiters released after " << released_s << " s, exit 0 after " << exit_s << " s (" << answered
                                          << " answered, " << refused << " refused)");
}

TEST_CASE("infer_ctl ping and stats; exit codes", "[server][ctl]") {
  ShortTempDir tmp;
  std::string dir = FreshTestDir("server/ctl");
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 1, 4);
  std::string sock = tmp / "infer.sock";
  std::string out;
  CHECK(RunCtl("--socket " + sock + " ping", &out) == 2);
  CHECK(out.find("no socket file") != std::string::npos);
  CHECK_FALSE(Ping(sock, 1));
  CHECK_THROWS_AS(FetchStats(sock, 1), ServerUnavailableError);
  CHECK_THROWS_AS(RequestReload(sock, ckpt, 1), ServerUnavailableError);

  InferServerProcess server(ServerArgs(sock, dir + "/run", {"--weights", ckpt}), dir + "/server.log");
  REQUIRE(WaitServing(sock, 4));
  CHECK(Ping(sock, 5));
  CHECK(RunCtl("--socket " + sock + " ping", &out) == 0);
  CHECK(out.find("generation 4") != std::string::npos);
  CHECK(RunCtl("--socket " + sock + " stats", &out) == 0);
  auto j = nlohmann::json::parse(out);
  CHECK(j.at("model_generation") == 4);
  CHECK(j.at("max_batch") == 20);
  CHECK(j.contains("queue_wait_ms_p99"));
  CHECK(RunCtl("--socket " + sock + " frobnicate", &out) == 64);
  CHECK(server.Terminate() == 0);
}
