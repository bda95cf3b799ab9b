#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/run_layout.h"
#include "tools/arena_lib.h"
#include "tests/support/temp_dir.h"

using namespace gz;
namespace fs = std::filesystem;

TEST_CASE("checkpoints are ordered numerically, temp files ignored") {
  std::string dir = gz::testing::FreshTestDir("layout_ckpt");
  for (int i : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99, 100, 101})
    WriteFileAtomic(dir + "/weights_it" + std::to_string(i) + ".pt", "x");
  WriteFileAtomic(dir + "/weights_it102.pt.tmp.1.0", "partial");
  WriteFileAtomic(dir + "/weights_itX.pt", "junk");
  auto its = ListCheckpointIterations(dir);
  REQUIRE(its.size() == 15);
  CHECK(its.back() == 101);
  CHECK(its.front() == 1);
  CHECK(std::is_sorted(its.begin(), its.end()));
  CHECK(ParseIterationNumber("weights_it9.pt", "weights_it", ".pt") == 9);
  CHECK_FALSE(ParseIterationNumber("weights_it.pt", "weights_it", ".pt"));
  CHECK_FALSE(ParseIterationNumber("weights_it9.pt.tmp", "weights_it", ".pt"));
}

TEST_CASE("metadata round trip and corrupt metadata") {
  std::string dir = gz::testing::FreshTestDir("layout_md");
  RunLayout l(dir);
  CHECK_FALSE(ReadMetadata(l.metadata()).has_value());
  Metadata m;
  m.iteration = 7;
  m.weights = l.checkpoint(6);
  m.model_generation = 6;
  m.config = {{"board", {{"size", 9}}}};
  WriteMetadata(l.metadata(), m);
  auto r = ReadMetadata(l.metadata());
  REQUIRE(r);
  CHECK(r->iteration == 7);
  CHECK(r->weights == l.checkpoint(6));
  CHECK(r->config["board"]["size"] == 9);
  WriteFileAtomic(l.metadata(), "{\"iteration\": ");
  CHECK_THROWS_AS(ReadMetadata(l.metadata()), IoError);
}

TEST_CASE("Elo from match results") {
  ArenaResult even;
  even.games = 10;
  even.wins = 5;
  even.losses = 5;
  ComputeElo(&even);
  CHECK(even.score == Approx(0.5));
  CHECK(even.elo == Approx(0.0).margin(1e-9));
  CHECK(even.elo_low < 0);
  CHECK(even.elo_high > 0);
  ArenaResult strong;
  strong.games = 50;
  strong.wins = 45;
  strong.draws = 2;
  strong.losses = 3;
  ComputeElo(&strong);
  CHECK(strong.score == Approx(0.92));
  CHECK(strong.elo > 300);
  CHECK(strong.elo_low < strong.elo);
  CHECK(strong.elo_high > strong.elo);
  ArenaResult perfect;
  perfect.games = 20;
  perfect.wins = 20;
  ComputeElo(&perfect);
  CHECK(std::isfinite(perfect.elo));
  CHECK(perfect.elo > 400);
}
