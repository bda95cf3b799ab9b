// infer_server serving several board sizes at once (one lane per size:
// batcher, result cache and model each): the real binary over a real Unix
// socket with a tiny conv-heads network (which plays any size).  Answers per
// size vs local inference at that size, HELLO acceptance by size, RELOAD into
// every lane, and a refusal in one lane (an fc checkpoint plays one size)
// that installs nothing.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/wire/remote_evaluator.h"
#include "common/wire/wire.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

constexpr int kSmall = 7;  // kTestBoard (9) is board.size; 7 comes from selfplay.board_sizes

std::string MakeConvCheckpoint(const std::string& dir, const std::string& name, uint64_t seed, int64_t generation) {
  const std::string path = dir + "/" + name;
  CreateRandomCheckpoint(path, kTestBoard, Rule::kFreestyle, 16, 1, seed, generation, generation, "conv");
  return path;
}

// The server's forward (all 8 symmetries) with `ckpt` played at `size`, in this process.
std::vector<EvalResult> LocalAnswersAt(const std::string& ckpt, int size, const std::vector<Position>& ps) {
  CheckpointExpect expect;
  expect.board_size = size;
  auto local = LoadServerForward(ckpt, SymmetryMode::kAll8, "auto", expect);
  std::vector<EvalResult> out(ps.size());
  local->Evaluate(ps, out);
  return out;
}

struct SizeCheck {
  int size;
  std::vector<Position> positions;
};

// Each client evaluates its positions (one request per position, then all
// at once) on its own thread, both at the same time.  Returns, per client,
// the largest difference to `want` and how many answers carried another
// generation than `generation`; errors in *errors.
void EvaluateTogether(std::vector<RemoteEvaluator*> clients, const std::vector<SizeCheck>& checks,
                      const std::vector<std::vector<EvalResult>>& want, int64_t generation,
                      std::vector<double>* max_diff, std::vector<int>* wrong_generation,
                      std::vector<std::string>* errors) {
  const size_t n = clients.size();
  max_diff->assign(n, 0);
  wrong_generation->assign(n, 0);
  errors->assign(n, "");
  std::vector<std::thread> threads;
  for (size_t c = 0; c < n; ++c) {
    threads.emplace_back([&, c] {
      try {
        const std::vector<Position>& ps = checks[c].positions;
        std::vector<EvalResult> got(ps.size());
        for (size_t i = 0; i < ps.size(); ++i)
          clients[c]->Evaluate(std::span<const Position>(&ps[i], 1), std::span<EvalResult>(&got[i], 1));
        std::vector<EvalResult> all(ps.size());
        clients[c]->Evaluate(ps, all);
        for (size_t i = 0; i < ps.size(); ++i)
          for (const EvalResult* r : {&got[i], &all[i]}) {
            (*max_diff)[c] = std::max((*max_diff)[c], MaxAbsDiff(*r, want[c][i]));
            if (r->model_generation != generation) ++(*wrong_generation)[c];
          }
      } catch (const std::exception& e) {
        (*errors)[c] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace

TEST_CASE("one server serves 7x7 and 9x9 clients from a conv checkpoint, one lane per size", "[server][sizes]") {
  ShortTempDir tmp;
  const std::string dir = FreshTestDir("server/board-sizes");
  const std::string a = MakeConvCheckpoint(dir, "a.pt", 21, 1);
  const std::string b = MakeConvCheckpoint(dir, "b.pt", 22, 2);
  // fc heads: plays 7x7 only.  The 7x7 lane (validated first) would take it,
  // the 9x9 lane refuses it.
  const std::string fc = MakeCheckpoint(dir, "fc7.pt", 23, 3, kSmall);
  const std::string sock = tmp / "infer.sock";
  InferServerProcess server(ServerArgs(sock, dir + "/run",
                                       {"--weights", a, "--set", "net.heads=conv", "--set",
                                        "selfplay.board_sizes=9:3,7:1", "--set", "server.cache_entries=4096"}),
                            dir + "/server.log");
  REQUIRE(WaitServing(sock, 1));

  const std::vector<SizeCheck> checks = {{kSmall, DistinctPositions(6, 31, kSmall)},
                                         {kTestBoard, DistinctPositions(6, 32, kTestBoard)}};
  std::vector<std::vector<EvalResult>> want_a, want_b;
  for (const SizeCheck& c : checks) {
    want_a.push_back(LocalAnswersAt(a, c.size, c.positions));
    want_b.push_back(LocalAnswersAt(b, c.size, c.positions));
    CHECK(MaxAbsDiff(want_a.back()[1], want_b.back()[1]) > 1e-3);  // the two nets really differ
  }

  // Both clients are connected (and bound to their sizes) before either asks.
  RemoteEvaluator small(sock, TestHello(SymmetryMode::kAll8, kSmall));
  RemoteEvaluator big(sock, TestHello(SymmetryMode::kAll8, kTestBoard));
  std::vector<double> diff;
  std::vector<int> wrong_gen;
  std::vector<std::string> errors;
  auto check_answers = [&](const std::vector<std::vector<EvalResult>>& want, int64_t generation) {
    EvaluateTogether({&small, &big}, checks, want, generation, &diff, &wrong_gen, &errors);
    for (size_t c = 0; c < checks.size(); ++c) {
      INFO("board size " << checks[c].size << " error: " << errors[c]);
      CHECK(errors[c].empty());
      CHECK(diff[c] < 1e-5);
      CHECK(wrong_gen[c] == 0);
    }
  };

  SECTION("answers per size equal local inference at that size; other sizes are refused") {
    check_answers(want_a, 1);
    // Second time round the answers come from each lane's cache, still exact.
    check_answers(want_a, 1);
    const nlohmann::json stats = FetchStats(sock, 5);
    CHECK(stats.at("board_size") == kTestBoard);
    CHECK(stats.at("board_sizes") == nlohmann::json::array({kSmall, kTestBoard}));
    CHECK(stats.at("cache_hits_total").get<int64_t>() > 0);
    CHECK(stats.at("requests_total").get<int64_t>() == 2 * 2 * (6 + 1));

    // 11 is no lane's size: refused, naming the sizes served.
    {
      WireClient client(sock, 5);
      try {
        client.Hello(TestHello(SymmetryMode::kAll8, 11), 5);
        FAIL("HELLO of board size 11 accepted");
      } catch (const ServerRefusedError& e) {
        CHECK(e.code() == wire::ErrorCode::kIncompatible);
        CHECK_THAT(e.what(), Catch::Contains("board size 11 is not served (sizes 7, 9)"));
      }
    }
    // A connection keeps the size of its first HELLO.
    {
      WireClient client(sock, 5);
      CHECK(client.Hello(TestHello(SymmetryMode::kAll8, kSmall), 5).max_positions ==
            static_cast<uint32_t>(wire::MaxPositionsPerInfer(kSmall)));
      try {
        client.Hello(TestHello(SymmetryMode::kAll8, kTestBoard), 5);
        FAIL("a second HELLO of another size was accepted");
      } catch (const ServerRefusedError& e) {
        CHECK(e.code() == wire::ErrorCode::kIncompatible);
        CHECK_THAT(e.what(), Catch::Contains("board size 9 != this connection's 7"));
      }
    }
    // The clients bound before are unaffected.
    check_answers(want_a, 1);
  }

  SECTION("RELOAD goes into both lanes; a checkpoint one lane refuses installs nothing") {
    check_answers(want_a, 1);
    CHECK(RequestReload(sock, b, 30) == 2);
    CHECK(ServedGeneration(sock) == 2);
    check_answers(want_b, 2);

    // The fc checkpoint would do for the 7x7 lane, but not for the 9x9 one.
    try {
      RequestReload(sock, fc, 30);
      FAIL("reload of a 7x7 fc checkpoint into a 9x9 lane succeeded");
    } catch (const ServerRefusedError& e) {
      CHECK(e.code() == wire::ErrorCode::kReloadFailed);
      CHECK_THAT(e.what(), Catch::Contains("board size 9: "));
      CHECK_THAT(e.what(), Catch::Contains("fc heads"));
    }
    CHECK(ServedGeneration(sock) == 2);
    check_answers(want_b, 2);  // generation 2 still serves both sizes, the 7x7 lane included
    const nlohmann::json stats = FetchStats(sock, 5);
    CHECK(stats.at("reloads_failed_total").get<int64_t>() == 1);
    CHECK(stats.at("model_generation").get<int64_t>() == 2);
  }

  CHECK(server.Terminate() == 0);
  const std::string log = server.Log();
  CHECK(log.find("board sizes 7, 9") != std::string::npos);
}
