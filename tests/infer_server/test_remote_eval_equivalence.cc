// The server answers what local inference answers (numerical equivalence;
// proof "E1" of the seed report): >= 256 real self-play positions evaluated
// (a) locally in one batched forward and (b) one by one through the server
// while other clients load it with concurrent traffic.  The max abs
// difference of log-policy and value must stay below 1e-5.  "Locally" is the
// forward the server runs (inference.backend: auto, the native forward on
// the CPU, or torch, LibTorch's): batching changes nothing in either.
#include <catch2/catch.hpp>

#include <atomic>

#include "common/wire/remote_evaluator.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"
#include "common/game/encoder.h"
#include "common/net/net_api.h"
#include "tests/support/play_games.h"
#include "tests/infer_server/server_test_util.h"

using namespace gz;
using namespace gz::testing;

namespace {

// Records every position the search asks about (a decorator).
class RecordingEvaluator : public Evaluator {
 public:
  explicit RecordingEvaluator(Evaluator* inner) : inner_(inner) {}
  void Evaluate(std::span<const Position> positions, std::span<EvalResult> results) override {
    seen.insert(seen.end(), positions.begin(), positions.end());
    inner_->Evaluate(positions, results);
  }
  std::string Describe() const override { return "recording " + inner_->Describe(); }
  std::vector<Position> seen;

 private:
  Evaluator* inner_;
};

// `wanted` positions spread over the positions of `games` self-play games
// (uniform evaluator, 16 simulations, 2 random opening moves).
std::vector<Position> SelfPlayPositions(int wanted, Rule rule = Rule::kFreestyle, int games_count = 6,
                                        uint64_t seed = 9) {
  UniformEvaluator uniform;
  RecordingEvaluator rec(&uniform);
  SelfPlayParams params;
  params.mcts.simulations = 16;
  params.random_opening_moves = 2;
  std::vector<std::unique_ptr<SelfPlayGame>> games;
  for (int g = 0; g < games_count; ++g)
    games.push_back(std::make_unique<SelfPlayGame>(params, kTestBoard, rule, GameSeed(seed, 1, 0, g), 1, 0));
  PlayTogether(games, rec);
  // Spread the picks over the whole games (openings to endgames).
  std::vector<Position> out;
  const size_t step = std::max<size_t>(1, rec.seen.size() / wanted);
  for (size_t i = 0; i < rec.seen.size() && static_cast<int>(out.size()) < wanted; i += step) out.push_back(rec.seen[i]);
  return out;
}

void CompareServerWithLocal(SymmetryMode mode, const char* mode_name, const std::string& backend,
                            const std::string& forward_logged) {
  ShortTempDir tmp;
  std::string dir = FreshTestDir(std::string("server/remote-eval-") + mode_name + "-" + backend);
  std::string ckpt = MakeCheckpoint(dir, "a.pt", 31, 1);
  std::string sock = tmp / "infer.sock";
  auto args = ServerArgs(sock, dir + "/run", {"--weights", ckpt, "--set", std::string("inference.symmetry=") + mode_name,
                                              "--set", "inference.backend=" + backend});
  InferServerProcess server(args, dir + "/server.log");

  std::vector<Position> ps = SelfPlayPositions(256);
  REQUIRE(ps.size() == 256);
  int stones = 0;
  for (auto& p : ps)
    for (auto c : p.cells) stones += c != 0;
  CHECK(stones > 256 * 3);  // real mid-game positions, not empty boards

  std::vector<EvalResult> local(ps.size());
  LoadServerForward(ckpt, mode, backend)->Evaluate(ps, local);  // one batched forward

  REQUIRE(WaitServing(sock, 1));
  // The server says which forward it runs.
  CHECK(ReadFileOrThrow(dir + "/server.log").find(forward_logged) != std::string::npos);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> background{0};
  std::vector<std::thread> traffic;
  for (int t = 0; t < 3; ++t) {
    traffic.emplace_back([&, t] {
      RemoteEvaluator r(sock, TestHello(mode));
      std::vector<Position> mine = RandomPositions(4 + t, 1000 + t);
      std::vector<EvalResult> out(mine.size());
      while (!stop) {
        r.Evaluate(mine, out);
        ++background;
      }
    });
  }
  RemoteEvaluator remote(sock, TestHello(mode));
  double max_policy = 0, max_value = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    std::vector<EvalResult> one(1);
    remote.Evaluate(std::span<const Position>(&ps[i], 1), one);
    REQUIRE(one[0].log_policy.size() == local[i].log_policy.size());
    for (size_t k = 0; k < one[0].log_policy.size(); ++k)
      max_policy = std::max(max_policy, static_cast<double>(std::fabs(one[0].log_policy[k] - local[i].log_policy[k])));
    max_value = std::max(max_value, static_cast<double>(std::fabs(one[0].value - local[i].value)));
  }
  stop = true;
  for (auto& t : traffic) t.join();
  auto stats = FetchStats(sock, 5);
  std::printf("server vs local (%s, %s): %zu positions, max |d log-policy| = %.3e, max |d value| = %.3e, background requests %lld, "
              "server avg batch %.2f\n",
              mode_name, backend.c_str(), ps.size(), max_policy, max_value, static_cast<long long>(background.load()),
              stats.value("avg_batch_total", 0.0));
  CHECK(background > 0);
  CHECK(max_policy < 1e-5);
  CHECK(max_value < 1e-5);
  CHECK(server.Terminate() == 0);
}

}  // namespace

TEST_CASE("server answers equal local batched inference (all8)", "[remote][equivalence]") {
  CompareServerWithLocal(SymmetryMode::kAll8, "all8", "auto", "native forward, one thread");
}

TEST_CASE("server answers equal local batched inference (none)", "[remote][equivalence]") {
  CompareServerWithLocal(SymmetryMode::kNone, "none", "auto", "native forward, one thread");
}

TEST_CASE("server answers equal local batched inference (all8, LibTorch's forward)", "[remote][equivalence]") {
  CompareServerWithLocal(SymmetryMode::kAll8, "all8", "torch", "LibTorch forward, threads 1");
}

// A renju server encodes every INFER position under its own rule
// (HELLO says the client's is the same), so the forbidden-points plane it
// builds equals the one local inference builds from Position::rule.
TEST_CASE("renju: the server's planes carry black's forbidden points like local inference", "[remote][equivalence]") {
  ShortTempDir tmp;
  const std::string dir = FreshTestDir("server/remote-eval-renju");
  const std::string ckpt = dir + "/renju.pt";
  CreateRandomCheckpoint(ckpt, kTestBoard, Rule::kRenju, 8, 1, /*seed=*/41, 1, 1);
  const std::string sock = tmp / "infer.sock";
  InferServerProcess server(
      ServerArgs(sock, dir + "/run", {"--weights", ckpt, "--set", "board.rule=renju", "--set", "inference.symmetry=all8"}),
      dir + "/server.log");
  // Renju self-play positions, and hand-built ones with forbidden points for
  // black (X X X . X X on a row: the gap is an overline point) with either side to move.
  std::vector<Position> ps = SelfPlayPositions(48, Rule::kRenju, 3, 4);
  int with_forbidden = 0;
  for (int row = 0; row < kTestBoard; row += 2) {
    Board b(kTestBoard, Rule::kRenju);
    const int n = kTestBoard, w = (row + 4) % n;
    for (int c : {0, 1, 2, 4, 5}) {
      b.Play(row * n + c);
      b.Play(w * n + (c + 3) % n);
    }
    ps.push_back(b.ToPosition());  // black to move
    b.Play(((row + 7) % n) * n + 8);
    ps.push_back(b.ToPosition());  // white to move
  }
  for (const Position& p : ps) {
    CHECK(p.rule == Rule::kRenju);
    with_forbidden += !ForbiddenPlanePoints(p).empty();
  }
  CHECK(with_forbidden >= 8);

  std::vector<EvalResult> local(ps.size()), no_plane(ps.size());
  LoadServerForward(ckpt, SymmetryMode::kAll8)->Evaluate(ps, local);
  std::vector<Position> as_freestyle = ps;  // the same stones without the renju plane
  for (Position& p : as_freestyle) p.rule = Rule::kFreestyle;
  LoadServerForward(ckpt, SymmetryMode::kAll8)->Evaluate(as_freestyle, no_plane);

  REQUIRE(WaitServing(sock, 1));
  HelloParams hello = TestHello(SymmetryMode::kAll8);
  hello.rule = Rule::kRenju;
  RemoteEvaluator remote(sock, hello);
  std::vector<EvalResult> served(ps.size());
  remote.Evaluate(ps, served);
  double max_policy = 0, max_value = 0, plane_effect = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    REQUIRE(served[i].log_policy.size() == local[i].log_policy.size());
    for (size_t k = 0; k < served[i].log_policy.size(); ++k)
      max_policy = std::max(max_policy, static_cast<double>(std::fabs(served[i].log_policy[k] - local[i].log_policy[k])));
    max_value = std::max(max_value, static_cast<double>(std::fabs(served[i].value - local[i].value)));
    plane_effect = std::max(plane_effect, static_cast<double>(std::fabs(no_plane[i].value - local[i].value)));
  }
  std::printf("renju server vs local: %zu positions (%d with forbidden points), max |d log-policy| = %.3e, "
              "max |d value| = %.3e; without the plane the value moves by up to %.3e\n",
              ps.size(), with_forbidden, max_policy, max_value, plane_effect);
  CHECK(max_policy < 1e-5);
  CHECK(max_value < 1e-5);
  CHECK(plane_effect > 1e-4);  // the plane reaches the net: the server really encoded renju
  // A freestyle client is refused by the renju server.
  CHECK_THROWS(RemoteEvaluator(sock, TestHello(SymmetryMode::kAll8)).Evaluate(ps, served));
  CHECK(server.Terminate() == 0);
}
