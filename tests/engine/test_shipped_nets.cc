// Shipped nets (nets/, docs/engine.md "Shipped nets"): every one has a card
// and loads; the engine plays the openings players meet near the stones (the
// openings issue: a net trained only from 4 random stones answered 1. h8 with
// g3); `play` uses the newest without arguments; NewestShippedNet picks by
// rule, size and name.
//
// GZ_OPENING_NET=PATH runs the opening check on another net instead of the
// shipped ones.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/base/fileio.h"
#include "common/game/board.h"
#include "common/net/net_api.h"
#include "engine/engine_settings.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"
#include "common/match/shipped_nets.h"
#include "common/harness/temp_dir.h"
#include "common/harness/test_process.h"

#include <catch2/catch.hpp>

using namespace gz;
namespace fs = std::filesystem;

namespace {

const std::string kNets = std::string(GZ_SOURCE_DIR) + "/nets";

std::vector<std::string> ShippedNets() {
  std::vector<std::string> out;
  if (const char* only = std::getenv("GZ_OPENING_NET")) return {only};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kNets, ec))
    if (e.path().extension() == ".pt") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Chebyshev distance from `m` to the nearest stone of `b`; on an empty board
// to the nearest centre point (one on an odd board, the middle four on an even
// one: a 20x20 board's centre lies between rows 9 and 10).
int DistanceToStones(const Board& b, int m) {
  const int n = b.size();
  auto distance = [n, m](int r, int c) { return std::max(std::abs(r - m / n), std::abs(c - m % n)); };
  int best = 1 << 20;
  bool any = false;
  for (int p = 0; p < b.num_points(); ++p) {
    if (b.at(p) == kEmpty) continue;
    any = true;
    best = std::min(best, distance(p / n, p % n));
  }
  if (!any)
    for (int r : {(n - 1) / 2, n / 2})
      for (int c : {(n - 1) / 2, n / 2}) best = std::min(best, distance(r, c));
  return best;
}

struct Opening {
  const char* name;
  std::vector<std::pair<int, int>> stones;  // (row, col) offsets from the centre, black first
};

// The openings a player meets first: the empty board, and one to three stones
// at and around the centre (Gomocup's freestyle sets and swap2 start like these).
const std::vector<Opening> kOpenings = {
    {"empty", {}},
    {"1. centre", {{0, 0}}},
    {"1. centre 2. diagonal", {{0, 0}, {1, 1}}},
    {"1. centre 2. direct", {{0, 0}, {0, 1}}},
    {"1. centre 2. diagonal 3. two away", {{0, 0}, {1, 1}, {-2, 0}}},
    {"1. centre 2. direct 3. knight", {{0, 0}, {0, -1}, {2, 1}}},
    {"swap2-like three", {{-1, 0}, {1, 1}, {0, 2}}},
};
// Measured and reported, not asserted: a first stone away from the centre.
// The shipped nets answer it from the centre (docs/engine.md "Shipped nets":
// self-play values both replies alike, so nothing teaches the net otherwise).
const std::vector<Opening> kReported = {
    {"1. off-centre", {{-2, 3}}},
};

}  // namespace

TEST_CASE("every shipped net has a card, loads and is found by NewestShippedNet") {
  const auto nets = ShippedNets();
  REQUIRE_FALSE(nets.empty());
  if (std::getenv("GZ_OPENING_NET")) return;
  const std::string cards = ReadFileOrThrow(kNets + "/README.md");
  bool freestyle15 = false;
  for (const std::string& path : nets) {
    INFO(path);
    const CheckpointInfo info = ReadCheckpointInfo(path);
    CHECK(cards.find("## " + fs::path(path).filename().string()) != std::string::npos);  // its card
    CHECK_FALSE(info.play.empty());  // it plays with its run's search settings
    if (info.rule == "freestyle" && CheckpointPlaysSize(info, 15)) freestyle15 = true;
    CHECK_FALSE(NewestShippedNet({kNets}, info.board_size, info.rule).empty());
  }
  CHECK(freestyle15);
}

TEST_CASE("openings: the engine's first replies on an empty or nearly empty board are near the stones") {
  for (const std::string& path : ShippedNets()) {
    const CheckpointInfo info = ReadCheckpointInfo(path);
    // A conv net is checked on 15x15 and on the size it was trained for (20
    // for the 20x20 league nets).  The engine's replies are asserted on both.
    // The policy mass is asserted where the engine plays the net on 15x15 (a
    // net trained for 15x15); a net trained for 20x20 never plays 15x15
    // freestyle (the fc net does: NewestShippedNet prefers the size's own
    // net) and spreads its policy over the wider centre, so there the mass is
    // reported (docs/engine.md "Shipped nets").
    std::vector<int> sizes{info.heads == NetHeads::kFc ? info.board_size : 15};
    if (info.heads != NetHeads::kFc && info.board_size != 15) sizes.push_back(info.board_size);
    EngineSettings settings;
    settings.weights = path;
    AdoptEnginePlaySettings(settings);
    EvaluatorSource source(settings.weights, settings.config);
    for (const int size : sizes) {
      REQUIRE(source.CheckSize(size).empty());
      for (const bool asserted : {true, false})
      for (const Opening& o : asserted ? kOpenings : kReported) {
        Board b(size, ParseRule(info.rule));
        const int c = size / 2;
        for (auto [dr, dc] : o.stones) b.Play((c + dr) * size + (c + dc));
        // The net's own policy: the share of its mass within 2 of the stones.
        const Position p = b.ToPosition();
        EvalResult r;
        source.ForGame(size, b.rule()).Evaluate({&p, 1}, {&r, 1});
        double near = 0, total = 0;
        for (int m = 0; m < b.num_points(); ++m) {
          if (b.at(m) != kEmpty) continue;
          const double q = std::exp(static_cast<double>(r.log_policy[m]));
          total += q;
          if (DistanceToStones(b, m) <= 2) near += q;
        }
        SearchPlayer player(source, settings.config);
        SearchLimits limits;
        limits.max_simulations = 200;
        const MoveDecision d = player.ChooseMove(b, limits);
        std::ostringstream what;
        what << path << ", " << size << "x" << size << ", " << o.name << ": engine plays (" << d.move / size << "," << d.move % size << "), "
             << DistanceToStones(b, d.move) << " from the stones; policy mass within 2: " << near / total;
        if (!asserted) {
          WARN("reported, not asserted: " << what.str());
          continue;
        }
        INFO(what.str());
        CHECK(DistanceToStones(b, d.move) <= 2);
        if (size == 15 && info.board_size == 15) {
          CHECK(near / total >= 0.5);
        } else {
          WARN("policy mass reported, not asserted: " << what.str());
        }
      }
    }
  }
}

TEST_CASE("NewestShippedNet: the last name in order of the rule and size, damaged files skipped") {
  const std::string dir = testing::FreshTestDir("shipped_nets");
  CreateRandomCheckpoint(dir + "/a-7x7-freestyle-2026-01-01.pt", 7, Rule::kFreestyle, 8, 1, 1, 0, 0);
  CreateRandomCheckpoint(dir + "/a-7x7-freestyle-2026-02-01.pt", 7, Rule::kFreestyle, 8, 1, 2, 0, 0);
  CreateRandomCheckpoint(dir + "/a-7x7-renju-2026-03-01.pt", 7, Rule::kRenju, 8, 1, 3, 0, 0);
  CreateRandomCheckpoint(dir + "/a-9x9-freestyle-2026-04-01.pt", 9, Rule::kFreestyle, 8, 1, 4, 0, 0);
  WriteFileAtomic(dir + "/z-7x7-freestyle-broken.pt", "not a checkpoint");
  CHECK(NewestShippedNet({dir}, 7, "freestyle") == dir + "/a-7x7-freestyle-2026-02-01.pt");
  CHECK(NewestShippedNet({dir}, 7, "renju") == dir + "/a-7x7-renju-2026-03-01.pt");
  CHECK(NewestShippedNet({dir}, 9, "freestyle") == dir + "/a-9x9-freestyle-2026-04-01.pt");
  CHECK(NewestShippedNet({dir}, 0, "freestyle") == dir + "/a-9x9-freestyle-2026-04-01.pt");
  CHECK(NewestShippedNet({dir}, 11, "freestyle").empty());
  CHECK(NewestShippedNet({dir + "/none", dir}, 7, "renju") == dir + "/a-7x7-renju-2026-03-01.pt");
  CHECK(NewestShippedNet({dir}, 7, "standard").empty());
  // A binary outside any checkout or engine folder still finds the checkout's nets.
  const auto dirs = ShippedNetDirs("/no/such/folder/bin");
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0] == "/no/such/nets");
  CHECK(dirs[1] == "/no/such/folder/bin/nets");
  CHECK(fs::equivalent(dirs[2], kNets));
  CHECK_FALSE(NewestShippedNet(dirs, 15, "freestyle").empty());
  // Built inside the checkout: its nets/ is looked at once.
  const auto in_checkout = ShippedNetDirs(std::string(GZ_SOURCE_DIR) + "/build/bin");
  CHECK(in_checkout.size() == 2);
  CHECK(fs::equivalent(in_checkout[0], kNets));
}

TEST_CASE("play without --weights plays the newest shipped net; --weights none the baseline") {
  const std::string play = std::string(GZ_BIN_DIR) + "/play";
  const std::string out = testing::TestTmpPath("shipped_play.out");
  REQUIRE(testing::ShellStatus("printf 'quit\\n' | " + play + " --simulations 2 >" + out + " 2>&1") == 0);
  const std::string text = ReadFileOrThrow(out);
  const std::string newest = NewestShippedNet({kNets}, 15, "freestyle");
  REQUIRE_FALSE(newest.empty());
  CHECK_THAT(text, Catch::Contains("engine: network " + fs::path(newest).lexically_normal().string()) ||
                       Catch::Contains(fs::path(newest).filename().string()));
  CHECK_THAT(text, Catch::Contains("search: mcts.c_puct="));
  CHECK_THAT(text, Catch::Contains("(checkpoint "));  // its settings come from the net
  REQUIRE(testing::ShellStatus("printf 'quit\\n' | " + play + " --weights none --simulations 2 >" + out +
                               " 2>&1") == 0);
  CHECK_THAT(ReadFileOrThrow(out), Catch::Contains("engine: pure-MCTS baseline"));
}
