// League nets (docs/engine.md "Nets for every league"): the engine holds one
// net per league and each game is played by the one of its rule and size,
// picked when the game's first search starts (INFO rule comes after START).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/base/errors.h"
#include "common/net/net_api.h"
#include "engine/engine_settings.h"
#include "engine/gomocup_session.h"
#include "common/match/evaluator_source.h"
#include "common/match/search_player.h"
#include "common/match/shipped_nets.h"

using namespace gz;
using Clock = std::chrono::steady_clock;

namespace {

namespace fs = std::filesystem;

// A folder of small random nets: an fc 15x15 freestyle one and conv ones of
// 20x20 freestyle, 15x15 standard, renju and caro (their iteration tells them apart).
struct LeagueFolder {
  fs::path dir;
  std::string fc15, conv20, standard, renju, caro;
  LeagueFolder() {
    dir = fs::path(GZ_TEST_TMP) / "league_nets";
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto make = [&](const char* name, int size, Rule rule, const char* heads, int iteration) {
      const std::string path = (dir / name).string();
      CreateRandomCheckpoint(path, size, rule, 8, 1, /*seed=*/static_cast<uint64_t>(iteration), iteration, iteration,
                             heads);
      return path;
    };
    fc15 = make("gz-15x15-freestyle-2026-12-05.pt", 15, Rule::kFreestyle, "fc", 1);
    conv20 = make("gz-20x20-freestyle-2026-12-06.pt", 20, Rule::kFreestyle, "conv", 2);
    standard = make("gz-15x15-standard-2026-12-06.pt", 15, Rule::kStandard, "conv", 3);
    renju = make("gz-15x15-renju-2026-12-06.pt", 15, Rule::kRenju, "conv", 4);
    caro = make("gz-15x15-caro-2026-12-06.pt", 15, Rule::kCaro, "conv", 5);
  }
  std::vector<std::string> league() const { return {conv20, standard, renju, caro}; }
};

Config OneThread() {
  Config c;
  c.inference.threads = 1;
  return c;
}

}  // namespace

TEST_CASE("league nets: each rule and size is played by its own net") {
  LeagueFolder f;
  EvaluatorSource source(f.fc15, OneThread(), f.league());
  REQUIRE(source.uses_network());
  CHECK(source.NetFor(15, Rule::kFreestyle) == f.fc15);     // trained for 15x15: beats the conv net
  CHECK(source.NetFor(20, Rule::kFreestyle) == f.conv20);   // the fc net cannot play 20
  CHECK(source.NetFor(15, Rule::kStandard) == f.standard);
  CHECK(source.NetFor(15, Rule::kRenju) == f.renju);
  CHECK(source.NetFor(15, Rule::kCaro) == f.caro);
  CHECK(source.NetFor(20, Rule::kRenju) == f.renju);        // conv: its rule at another size beats other rules
  CHECK(source.NetFor(20, Rule::kCaro) == f.caro);
  // Caro-overline (Gomocup rule 8) has no net of its own: the caro net, its kin, plays it.
  CHECK(source.NetFor(15, Rule::kCaroOverline) == f.caro);
  CHECK(source.NetFor(20, Rule::kCaroOverline) == f.caro);
  for (int size : {5, 15, 20, 22}) CHECK(source.CheckSize(size).empty());

  // Without league nets nothing changes: the one net plays (or refuses) everything.
  EvaluatorSource alone(f.fc15, OneThread());
  CHECK(alone.NetFor(15, Rule::kRenju) == f.fc15);
  CHECK(alone.NetFor(20, Rule::kFreestyle).empty());
  CHECK(alone.CheckSize(20).find("not supported") != std::string::npos);

  // A rule with no net of its own falls back to a net of another rule that plays the size.
  EvaluatorSource no_caro(f.fc15, OneThread(), {f.conv20, f.renju});
  CHECK(no_caro.NetFor(15, Rule::kCaro) == f.fc15);
  CHECK(no_caro.NetFor(20, Rule::kCaro) == f.conv20);
}

TEST_CASE("league nets: a session switches nets with START size and INFO rule") {
  LeagueFolder f;
  EngineSettings settings;
  settings.weights = f.fc15;
  settings.league_nets = f.league();
  settings.config = OneThread();
  EvaluatorSource source(settings.weights, settings.config, settings.league_nets);
  SearchPlayer player(source, settings.config);
  GomocupSession session(player, 40);
  struct Case {
    const char* start;
    const char* rule_bits;  // INFO rule value
    std::string net;
  };
  const std::vector<Case> cases = {{"START 15", "0", f.fc15},     {"START 20", "0", f.conv20},
                                   {"START 15", "1", f.standard}, {"START 15", "4", f.renju},
                                   {"START 15", "9", f.caro},     {"START 20", "1", f.standard},
                                   {"START 15", "0", f.fc15}};
  for (const Case& c : cases) {
    INFO(c.start << " rule " << c.rule_bits);
    std::vector<std::string> out;
    session.Handle(c.start, Clock::now(), out);
    REQUIRE(out == std::vector<std::string>{"OK"});
    session.Handle(std::string("INFO rule ") + c.rule_bits, Clock::now(), out);
    out.clear();
    session.Handle("BEGIN", Clock::now(), out);
    REQUIRE_FALSE(out.empty());
    REQUIRE(ParseCoordinates(out.back()).has_value());
    CHECK(source.Describe().find("network " + c.net + " ") == 0);
  }
}

TEST_CASE("league nets: the settings file lists them; a broken one refuses START by name") {
  LeagueFolder f;
  const fs::path file = f.dir / "pbrain-gomoku-zero.json";
  std::ofstream(file) << R"({"weights": "gz-15x15-freestyle-2026-12-05.pt",
    "league_nets": ["gz-20x20-freestyle-2026-12-06.pt", "gz-15x15-renju-2026-12-06.pt"]})";
  EngineCommandLine cl;
  cl.settings_file = file.string();
  EngineSettings s = ResolveEngineSettings(cl, f.dir.string());
  REQUIRE(s.league_nets.size() == 2);
  CHECK(fs::path(s.league_nets[0]) == fs::path(f.conv20));
  CHECK(fs::path(s.league_nets[1]) == fs::path(f.renju));
  // --weights on the command line: that net plays every game.
  cl.weights = f.fc15;
  CHECK(ResolveEngineSettings(cl, f.dir.string()).league_nets.empty());

  for (const char* bad : {R"({"league_nets": "a.pt"})", R"({"league_nets": [3]})", R"({"league_nets": [""]})"}) {
    INFO(bad);
    std::ofstream(file) << bad;
    CHECK_THROWS_WITH(LoadEngineSettingsFile(file.string()), Catch::Contains("league_nets"));
  }

  // A league net that is not a checkpoint: START says which file.
  const fs::path broken = f.dir / "broken.pt";
  std::ofstream(broken) << "not a checkpoint";
  EvaluatorSource source(f.fc15, OneThread(), {f.conv20, broken.string()});
  SearchPlayer player(source, OneThread());
  GomocupSession session(player, 40);
  std::vector<std::string> out;
  session.Handle("START 15", Clock::now(), out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].starts_with("ERROR cannot load weights " + broken.string()));
}

TEST_CASE("shipped nets: a net trained for the size beats a newer any-size net of the rule") {
  LeagueFolder f;
  const std::vector<std::string> dirs = {f.dir.string()};
  CHECK(NewestShippedNet(dirs, 15, "freestyle") == f.fc15);
  CHECK(NewestShippedNet(dirs, 20, "freestyle") == f.conv20);
  CHECK(NewestShippedNet(dirs, 19, "freestyle") == f.conv20);
  CHECK(NewestShippedNet(dirs, 0, "freestyle") == f.conv20);  // the newest
  CHECK(NewestShippedNet(dirs, 15, "caro") == f.caro);
}
