// gz_dashboard against hostile and broken input: the real binary over real
// sockets, on a run directory with torn, empty and corrupt files.  Every bad
// request must get its clear 4xx and the server must keep serving.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/data/run_layout.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"
#include "tests/support/play_games.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"
#include "common/harness/wait_until.h"

using namespace gz;
using namespace gz::testing;

namespace {

// A socket to 127.0.0.1:port with 30 s send/receive limits: a hung server
// fails the test instead of hanging it (never a timing assertion).
int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

void SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may close on us after an error answer
    off += static_cast<size_t>(n);
  }
}

struct Answer {
  int status = 0;
  std::string body;
};

// Sends `raw` (one request, "Connection: close"), reads to EOF.
Answer Raw(int port, const std::string& raw) {
  int fd = Connect(port);
  SendAll(fd, raw);
  std::string got;
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  Answer a;
  std::smatch m;
  if (std::regex_search(got, m, std::regex("^HTTP/1\\.1 (\\d{3})"))) a.status = std::stoi(m[1]);
  auto sep = got.find("\r\n\r\n");
  if (sep != std::string::npos) a.body = got.substr(sep + 4);
  return a;
}

Answer Get(int port, const std::string& target, const std::string& host = "127.0.0.1") {
  return Raw(port, "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
}

Answer Post(int port, const std::string& target, const std::string& body) {
  return Raw(port, "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: "
                   "application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

std::string ErrorOf(const Answer& a) {
  auto j = nlohmann::json::parse(a.body, nullptr, false);
  return j.is_object() && j.contains("error") ? j["error"].get<std::string>() : "";
}

GameRecord MakeGame() {
  SelfPlayParams p;
  p.mcts.simulations = 16;
  SelfPlayGame g(p, 7, Rule::kFreestyle, 5, 1, 0);
  UniformEvaluator ev;
  PlayToEnd(g, ev);
  return g.record();
}

// A run directory as a crashed or busy run leaves it.
std::string MakeBrokenRun(GameRecord* game) {
  const std::string run = FreshTestDir("dashboard_hostile/run");
  const RunLayout layout(run);
  MakeDirs(layout.status_dir());
  MakeDirs(layout.games_for(1));
  std::string gens;
  for (int it = 1; it <= 3; ++it)
    gens += nlohmann::json({{"iteration", it}, {"losses", {{"policy", 3.0 - 0.1 * it}, {"value", 0.5}}},
                            {"entropy", 2.0}, {"games_per_min", 60.0}, {"selfplay_s", 10.0}, {"training_s", 2.0},
                            {"reload", {{"seconds", 0.3}}}, {"avg_game_length", 20.0},
                            {"wins", {{"black", 3}, {"white", 2}, {"draw", 1}}},
                            {"server", {{"avg_batch", 4.0}, {"max_batch", 8}, {"forward_busy_fraction", 0.5}}}})
                .dump() + "\n";
  gens += "{\"iteration\": 4, \"losses\": {\"pol";  // the trainer was killed mid-append
  WriteFileAtomic(layout.generations(), gens);
  // ratings.jsonl as docs/ratings.md writes it, plus a torn line.
  std::string ratings;
  for (int it = 1; it <= 2; ++it)
    ratings += nlohmann::json({{"iteration", it}, {"generation", it}, {"player", "checkpoint:" + std::to_string(it)},
                               {"complete", true}, {"elo", 10.0 * it}, {"elo_low", -50.0}, {"elo_high", 80.0},
                               {"games", 4},
                               {"opponents", {{{"entry", "rollout:1000"}, {"name", "rollout:1000"}, {"wins", 2},
                                               {"draws", 1}, {"losses", 1}, {"games", 4}, {"elo", 0.0},
                                               {"elo_low", 0.0}, {"elo_high", 0.0}}}},
                               {"anchor", "rollout:1000"}, {"time", 1796000000.0 + it}})
                   .dump() + "\n";
  ratings += "{\"iteration\":3,\"elo\":";
  WriteFileAtomic(layout.ratings(), ratings);
  WriteFileAtomic(layout.server_status(), "");          // empty
  WriteFileAtomic(layout.evaluator_status(), "{\"pid\":");  // torn
  *game = MakeGame();
  SaveGameRecord(*game, layout.game_file(1, 0, 0));
  std::string bytes = game->ToNpzBytes();
  WriteFileAtomic(layout.game_file(1, 0, 1), bytes.substr(0, bytes.size() / 2));  // truncated
  return run;
}

struct Dashboard {
  std::unique_ptr<TestProcess> proc;
  int port = 0;
  explicit Dashboard(const std::string& run) {
    // Each SECTION starts a fresh server: the log must not show the last one's port.
    std::filesystem::remove(TestTmpPath("dashboard_hostile/dashboard.log"));
    proc = std::make_unique<TestProcess>(BinPath("gz_dashboard"),
                                         std::vector<std::string>{"--run-dir", run, "--port", "0"},
                                         TestTmpPath("dashboard_hostile/dashboard.log"));
    std::smatch m;
    const bool up = WaitUntil([&] {
      std::string log = proc->Log();
      if (!std::regex_search(log, m, std::regex("dashboard: http://127\\.0\\.0\\.1:(\\d+)/"))) return false;
      port = std::stoi(m[1]);
      return true;
    });
    INFO(proc->Log());
    REQUIRE(up);
  }
  bool Serves() { return Get(port, "/api/series").status == 200; }
};

}  // namespace

TEST_CASE("gz_dashboard answers hostile and broken input with 4xx and keeps serving") {
  GameRecord game;
  const std::string run = MakeBrokenRun(&game);
  Dashboard d(run);

  SECTION("broken run files: torn last lines skipped and counted, empty/torn status files tolerated") {
    Answer s = Get(d.port, "/api/series");
    REQUIRE(s.status == 200);
    auto j = nlohmann::json::parse(s.body);
    CHECK(j["iterations"] == nlohmann::json({1, 2, 3}));
    CHECK(j["bad_lines"] == 1);
    CHECK(j["batch_fill"][0] == 0.5);
    Answer r = Get(d.port, "/api/ratings");
    REQUIRE(r.status == 200);
    auto rj = nlohmann::json::parse(r.body);
    CHECK(rj["iterations"] == nlohmann::json({1, 2}));
    CHECK(rj["elo"] == nlohmann::json({10.0, 20.0}));
    CHECK(rj["opponents"]["rollout:1000"]["score"][0] == 0.625);
    CHECK(rj["bad_lines"] == 1);
    Answer st = Get(d.port, "/api/status");
    REQUIRE(st.status == 200);
    auto sj = nlohmann::json::parse(st.body);
    CHECK(sj["iteration"].is_null());  // no metadata.json
    CHECK(sj["evaluator"]["present"] == false);
    CHECK(Get(d.port, "/api/games?iteration=77").body.find("\"files\":[]") != std::string::npos);  // no folder
  }

  SECTION("the real game file is served; bad names, missing and corrupt files are 4xx") {
    Answer g = Get(d.port, "/api/game?iteration=1&file=w0_g0.npz");
    REQUIRE(g.status == 200);
    auto j = nlohmann::json::parse(g.body);
    CHECK(j["moves"].size() == static_cast<size_t>(game.num_moves()));
    CHECK(j["moves"][0]["point"] == game.moves[0]);
    CHECK(j["moves"][0]["policy"].size() == 49u);
    // Playout cap and resignation off: every move a full search, no resignation fields.
    CHECK(j["end"] == (game.winner == 0 ? "draw" : "five"));
    CHECK(j["resignation"].is_null());
    CHECK(j["playout_cap"] == false);
    CHECK(j["moves"][0]["full_search"] == true);
    for (const char* bad : {"../metadata.json", "..%2Fmetadata.json", "%2Fetc%2Fpasswd", "/etc/passwd",
                            "w0_g0.npz%00", "w0_g0.npz/..", "w-1_g0.npz", "w0_g0.npz.tmp.1.2", ""}) {
      Answer a = Get(d.port, std::string("/api/game?iteration=1&file=") + bad);
      INFO(bad << " -> " << a.status << " " << a.body);
      CHECK(a.status == 400);
      CHECK(!ErrorOf(a).empty());
    }
    CHECK(Get(d.port, "/api/game?iteration=1&file=w0_g9.npz").status == 404);
    Answer corrupt = Get(d.port, "/api/game?iteration=1&file=w0_g1.npz");
    CHECK(corrupt.status == 422);
    CHECK(ErrorOf(corrupt).find("unreadable game file") != std::string::npos);
  }

  SECTION("non-numeric, negative, huge and missing query parameters are 400 naming the parameter") {
    for (const char* q : {"abc", "1x", "-1", "99999999999999999999999", "1e3", "", "%41"}) {
      Answer a = Get(d.port, std::string("/api/games?iteration=") + q);
      INFO(q << " -> " << a.body);
      CHECK(a.status == 400);
      CHECK(ErrorOf(a).find("iteration") != std::string::npos);
    }
    CHECK(Get(d.port, "/api/games").status == 400);
    CHECK(Get(d.port, "/api/game?iteration=1&file=w0_g0.npz&x=%zz").status == 400);
  }

  SECTION("unknown paths, wrong methods, foreign Host headers, bad bodies") {
    CHECK(Get(d.port, "/nope").status == 404);
    CHECK(Get(d.port, "/../../etc/passwd").status == 404);
    CHECK(Post(d.port, "/api/series", "{}").status == 405);
    CHECK(Get(d.port, "/api/series", "evil.example:80").status == 403);  // DNS rebinding
    CHECK(Post(d.port, "/api/play/new", "not json").status == 400);
    CHECK(Post(d.port, "/api/play/new", "{\"colour\": 3}").status == 400);
    CHECK(Post(d.port, "/api/play/new", "{\"colour\": \"green\"}").status == 400);
    Answer none = Post(d.port, "/api/play/new", "{\"colour\": \"black\"}");
    CHECK(none.status == 503);  // no checkpoint in this run
    CHECK(ErrorOf(none).find("nothing to play against") != std::string::npos);
    CHECK(Post(d.port, "/api/play/move", "{\"id\": \"feed\", \"row\": 1, \"col\": 1}").status == 404);
    CHECK(Post(d.port, "/api/play/new", std::string(20000, '{')).status == 413);
    CHECK(Raw(d.port, "\x01\x02garbage\r\n\r\n").status == 400);
  }

  SECTION("a request line or a header over the size limit is 431") {
    CHECK(Get(d.port, "/api/series?x=" + std::string(10000, 'a')).status == 431);
    CHECK(Raw(d.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(10000, 'b') +
                          "\r\nConnection: close\r\n\r\n")
              .status == 431);
    std::string many = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (int i = 0; i < 1000; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
    CHECK(Raw(d.port, many + "\r\n").status == 431);
  }

  SECTION("a client that never reads does not stop the others") {
    int fd = Connect(d.port);
    int small = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    std::string req = "GET /vendor/chart.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    std::string burst;
    for (int i = 0; i < 200; ++i) burst += req;
    SendAll(fd, burst);  // ~40 MB of answers it will never read
    CHECK(d.Serves());
    CHECK(Get(d.port, "/").status == 200);
    ::close(fd);
  }

  SECTION("200 concurrent idle connections, some half-sent, do not stop the others") {
    std::vector<int> idle;
    for (int i = 0; i < 200; ++i) {
      idle.push_back(Connect(d.port));
      if (i % 2) SendAll(idle.back(), "GET /api/series HTTP/1.1\r\nHost: 12");  // slowloris
    }
    CHECK(d.Serves());
    Answer g = Get(d.port, "/api/game?iteration=1&file=w0_g0.npz");
    CHECK(g.status == 200);
    for (int fd : idle) ::close(fd);
  }

  // Whatever the section did, the process is alive and serving.
  CHECK_FALSE(d.proc->Poll().has_value());
  CHECK(d.Serves());
  CHECK(d.proc->Terminate() == std::optional<int>(0));  // SIGTERM: a clean stop
}
