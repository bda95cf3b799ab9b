#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/data/npz.h"
#include "common/game/renju.h"
#include "common/search/selfplay.h"
#include "common/search/simple_evaluators.h"
#include "tests/support/play_games.h"
#include "common/harness/temp_dir.h"

using namespace gz;
namespace fs = std::filesystem;

namespace {
// A whole self-play game under a uniform evaluator.
GameRecord PlayedGame(int size, Rule rule, uint64_t seed, int simulations, int64_t iteration, int64_t generation) {
  SelfPlayParams p;
  p.mcts.simulations = simulations;
  SelfPlayGame g(p, size, rule, seed, iteration, generation);
  UniformEvaluator ev;
  PlayToEnd(g, ev);
  return g.record();
}
GameRecord MakeGame(uint64_t seed = 9) { return PlayedGame(7, Rule::kStandard, seed, 40, 12, 34); }
}  // namespace

TEST_CASE("npz round trip of arbitrary arrays") {
  std::map<std::string, NpyArray> a;
  a["x"] = MakeNpy(std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f}, {2, 3});
  a["s"] = MakeNpyScalar<int64_t>(-5);
  a["e"] = MakeNpy(std::vector<int16_t>{}, {0});
  auto b = ReadNpz(WriteNpz(a), "mem");
  REQUIRE(b.size() == 3);
  CHECK(b["x"].shape == std::vector<int64_t>{2, 3});
  CHECK(b["x"].As<float>() == std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f});
  CHECK(b["s"].shape.empty());
  CHECK(b["s"].As<int64_t>()[0] == -5);
  CHECK(b["e"].numel() == 0);
  CHECK_THROWS_AS(b["x"].As<int64_t>(), IoError);
}

TEST_CASE("game record round trip through a file") {
  GameRecord r = MakeGame();
  std::string dir = gz::testing::FreshTestDir("game_record_rt");
  std::string path = dir + "/g.npz";
  SaveGameRecord(r, path);
  // No temp file left behind.
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    ++files;
    CHECK_FALSE(IsTempName(e.path().filename().string()));
  }
  CHECK(files == 1);
  GameRecord s = LoadGameRecord(path);
  CHECK(s.ToNpzBytes() == r.ToNpzBytes());
  CHECK(s.rule == Rule::kStandard);
  CHECK(s.iteration == 12);
  CHECK(s.model_generation == 34);
  CHECK(s.moves == r.moves);
  CHECK(s.policy == r.policy);
}

TEST_CASE("a renju game of another renju rules version is refused by name") {
  auto arrays = ReadNpz(PlayedGame(9, Rule::kRenju, 5, 20, 1, 1).ToNpzBytes(), "renju");
  REQUIRE(arrays.count("renju_version") == 1);
  CHECK(arrays["renju_version"].As<int64_t>()[0] == kRenjuRulesVersion);
  CHECK(GameRecord::FromNpzBytes(WriteNpz(arrays), "renju").rule == Rule::kRenju);
  arrays["renju_version"] = MakeNpyScalar<int64_t>(1);
  CHECK_THROWS_WITH(GameRecord::FromNpzBytes(WriteNpz(arrays), "old.npz"),
                    Catch::Contains("old.npz") && Catch::Contains("renju rules version 1"));
  // Version 2 games ended later (no draw at 25 empty points): other value targets.
  REQUIRE(kRenjuRulesVersion == 3);
  arrays["renju_version"] = MakeNpyScalar<int64_t>(2);
  CHECK_THROWS_WITH(GameRecord::FromNpzBytes(WriteNpz(arrays), "v2.npz"), Catch::Contains("renju rules version 2"));
  arrays.erase("renju_version");  // written before the field existed
  CHECK_THROWS_WITH(GameRecord::FromNpzBytes(WriteNpz(arrays), "older.npz"), Catch::Contains("renju rules version 1"));
  // Other rules carry no such field.
  CHECK(ReadNpz(MakeGame().ToNpzBytes(), "std").count("renju_version") == 0);
}

TEST_CASE("caro games play to their end and their files read back; an unknown rule is refused") {
  for (Rule rule : {Rule::kCaro, Rule::kCaroOverline}) {
    const GameRecord played = PlayedGame(9, rule, 3, 20, 1, 1);
    const GameRecord r = GameRecord::FromNpzBytes(played.ToNpzBytes(), RuleName(rule));
    CHECK(r.rule == rule);
    CHECK(r.moves == played.moves);
  }
  const GameRecord played = PlayedGame(9, Rule::kCaro, 3, 20, 1, 1);
  auto arrays = ReadNpz(played.ToNpzBytes(), "caro");
  REQUIRE(kLastRule == Rule::kCaroOverline);
  arrays["rule"] = MakeNpyScalar<int64_t>(static_cast<int64_t>(kLastRule) + 1);
  CHECK_THROWS_WITH(GameRecord::FromNpzBytes(WriteNpz(arrays), "future.npz"), Catch::Contains("bad rule 5"));
}

TEST_CASE("every truncation of a game file is rejected with IoError") {
  std::string bytes = MakeGame().ToNpzBytes();
  for (size_t len = 0; len < bytes.size(); len += (len < 200 ? 1 : 37)) {
    INFO("length " << len);
    CHECK_THROWS_AS(GameRecord::FromNpzBytes(bytes.substr(0, len), "t"), IoError);
  }
}

TEST_CASE("bit flips are rejected (CRC or validation), never crash") {
  GameRecord original = MakeGame();
  std::string bytes = original.ToNpzBytes();
  std::mt19937 rng(1);
  int rejected = 0, accepted = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string b = bytes;
    size_t pos = rng() % b.size();
    b[pos] = static_cast<char>(b[pos] ^ (1 << (rng() % 8)));
    try {
      GameRecord g = GameRecord::FromNpzBytes(b, "flip");
      // Only a flip in a field that carries no data (zip date, version, npy
      // header padding) may pass, and then the game must be unchanged.
      CHECK(g.ToNpzBytes() == bytes);
      ++accepted;
    } catch (const IoError&) {
      ++rejected;
    }
  }
  CHECK(rejected > 800);
  CHECK(rejected + accepted == 1000);
}

TEST_CASE("missing file and garbage give IoError naming the file") {
  try {
    LoadGameRecord("/nonexistent/x.npz");
    FAIL("no exception");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("/nonexistent/x.npz") != std::string::npos);
  }
  CHECK_THROWS_AS(GameRecord::FromNpzBytes(std::string(100, 'z'), "garbage"), IoError);
}

TEST_CASE("numpy reads a game file with no code of ours") {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    // set-up installs python3-numpy; without it this check cannot run.
    FAIL("python3-numpy is not installed (launch/setup.sh installs it)");
  }
  GameRecord r = MakeGame(21);
  std::string dir = gz::testing::FreshTestDir("game_record_numpy");
  SaveGameRecord(r, dir + "/g.npz");
  std::string script = dir + "/check.py";
  std::ofstream(script) << R"(import numpy as np, sys
z = np.load(sys.argv[1])
T = z['moves'].shape[0]
assert z['boards'].dtype == np.int8 and z['boards'].shape == (T, 7, 7)
assert z['to_move'].dtype == np.int8 and z['to_move'].shape == (T,)
assert z['policy'].dtype == np.float32 and z['policy'].shape == (T, 49)
assert np.allclose(z['policy'].sum(axis=1), 1.0, atol=1e-4)
assert z['q'].dtype == np.float32 and np.all(np.abs(z['q']) <= 1)
assert z['moves'].dtype == np.int16
assert z['winner'].dtype == np.int8 and z['winner'].shape == ()
for k in ('iteration', 'model_generation', 'seed'):
    assert z[k].dtype == np.int64 and z[k].shape == ()
assert int(z['iteration']) == 12 and int(z['model_generation']) == 34
b = z['boards']
for t in range(T):
    r, c = divmod(int(z['moves'][t]), 7)
    assert b[t, r, c] == 0
    if t + 1 < T:
        assert b[t + 1, r, c] == z['to_move'][t]
print('moves', T, 'winner', int(z['winner']), 'sum', int(b[-1].astype(int).sum()))
)";
  std::string cmd = "/usr/bin/python3 " + script + " " + dir + "/g.npz > " + dir + "/out.txt 2>&1";
  int rc = std::system(cmd.c_str());
  std::string out = ReadFileOrThrow(dir + "/out.txt");
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("moves " + std::to_string(r.num_moves())) != std::string::npos);
}
