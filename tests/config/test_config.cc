#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/base/cli.h"
#include "common/config/config.h"
#include "common/base/errors.h"
#include "tests/config/config_test_util.h"
#include "common/harness/temp_dir.h"

using namespace gz;
using gz::testing::ConfigErrorOf;

TEST_CASE("defaults are the seed configuration and validate") {
  Config c;
  CHECK(c.board.size == 15);
  CHECK(c.net.channels == 128);
  CHECK(c.net.blocks == 8);
  CHECK(c.mcts.simulations == 800);
  CHECK(c.run.worker_count == 20);
  CHECK(c.run.worker_games_per_worker == 6);
  CHECK(c.run.target_games == 100);
  CHECK(c.server.max_batch == 20);
  CHECK(c.train.train_batches == 32);
  CHECK(c.train.batch_size == 512);
  CHECK_NOTHROW(c.Validate());
}

TEST_CASE("unknown keys are errors naming the key") {
  Config c;
  std::string e = ConfigErrorOf([&] { c.Apply(nlohmann::json::parse(R"({"mcts": {"simulatons": 5}})"), "f.json"); });
  CHECK(e.find("mcts.simulatons") != std::string::npos);
  CHECK(e.find("f.json") != std::string::npos);
  e = ConfigErrorOf([&] { c.ApplyOverride("nope.key=1"); });
  CHECK(e.find("nope.key") != std::string::npos);
}

TEST_CASE("out-of-range and wrong-type values name the key") {
  Config c;
  std::string e = ConfigErrorOf([&] { c.ApplyOverride("board.size=40"); });
  CHECK(e.find("board.size") != std::string::npos);
  CHECK(e.find("out of range") != std::string::npos);
  e = ConfigErrorOf([&] { c.ApplyOverride("mcts.c_puct=abc"); });
  CHECK(e.find("mcts.c_puct") != std::string::npos);
  e = ConfigErrorOf([&] { c.ApplyOverride("board.rule=pente"); });
  CHECK(e.find("board.rule") != std::string::npos);
  c.ApplyOverride("board.rule=caro");  // Caro is a rule
  CHECK(c.rule() == Rule::kCaro);
  c.ApplyOverride("board.rule=caro-overline");  // Gomocup's rule 8
  CHECK(c.rule() == Rule::kCaroOverline);
  c.ApplyOverride("board.rule=renju");  // Renju is a rule
  CHECK(c.rule() == Rule::kRenju);
  c.ApplyOverride("board.rule=freestyle");
  e = ConfigErrorOf([&] { c.ApplyOverride("server.max_wait=-3"); });
  CHECK(e.find("server.max_wait") != std::string::npos);
  e = ConfigErrorOf([&] { c.ApplyOverride("mcts.tree_reuse=2"); });
  CHECK(e.find("mcts.tree_reuse") != std::string::npos);
  e = ConfigErrorOf([&] { c.ApplyOverride("novalue"); });
  CHECK(e.find("dotted.key=value") != std::string::npos);
  CHECK(c.board.size == 15);  // failed overrides changed nothing
}

TEST_CASE("run.host: a name that fits shared file names, or the error names the key") {
  Config c;
  CHECK(c.run.host.empty());  // one machine: today's file names
  c.ApplyOverride("run.host=gpu-a.lab2");
  CHECK(c.run.host == "gpu-a.lab2");
  for (const char* bad : {"run.host=a_b", "run.host=.hidden", "run.host=a/b", "run.host=a b",
                          "run.host=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}) {
    INFO(bad);
    const std::string e = ConfigErrorOf([&] { c.ApplyOverride(bad); });
    CHECK(e.find("run.host") != std::string::npos);
    CHECK(e.find("host name") != std::string::npos);
  }
  CHECK(c.run.host == "gpu-a.lab2");  // refused values changed nothing
  CHECK_FALSE(ConfigErrorOf([&] { c.ApplyOverride("run.host_timeout_s=0"); }).empty());
  CHECK_FALSE(ConfigErrorOf([&] { c.ApplyOverride("server.heartbeat_s=0"); }).empty());
}

TEST_CASE("cross-field validation") {
  Config c;
  c.ApplyOverride("run.min_games=500");
  std::string e = ConfigErrorOf([&] { c.Validate(); });
  CHECK(e.find("run.min_games") != std::string::npos);
  // net.heads: fc | conv; conv not with data-parallel training yet.
  Config h;
  CHECK(h.net.heads == "fc");
  h.ApplyOverride("net.heads=conv");
  h.Validate();
  CHECK(ConfigErrorOf([&] { h.ApplyOverride("net.heads=attention"); }).find("net.heads") != std::string::npos);
  h.ApplyOverride("train.world_size=2");
  CHECK(ConfigErrorOf([&] { h.Validate(); }).find("net.heads") != std::string::npos);
}

TEST_CASE("selfplay.board_sizes: sizes and weights, validated against board.size and net.heads") {
  Config c;
  CHECK(c.board_size_shares().empty());
  CHECK(c.board_sizes() == std::vector<int>{15});  // one size: board.size
  c.ApplyOverride("net.heads=conv");
  c.ApplyOverride("selfplay.board_sizes=15:8,13,20:0.5");
  c.Validate();
  REQUIRE(c.board_size_shares().size() == 3);
  CHECK(c.board_size_shares()[1] == std::pair<int, double>{13, 1.0});
  CHECK(c.board_size_shares()[2] == std::pair<int, double>{20, 0.5});
  CHECK(c.board_sizes() == std::vector<int>{13, 15, 20});
  for (const char* bad : {"selfplay.board_sizes=15:0", "selfplay.board_sizes=4", "selfplay.board_sizes=23:1",
                          "selfplay.board_sizes=15:x", "selfplay.board_sizes=15x", "selfplay.board_sizes=15:-1",
                          "selfplay.board_sizes=15:inf"}) {
    INFO(bad);
    CHECK(ConfigErrorOf([&] { c.ApplyOverride(bad); }).find("selfplay.board_sizes") != std::string::npos);
  }
  auto validate_error = [](const std::vector<std::string>& sets) {
    Config v;
    for (const auto& s : sets) v.ApplyOverride(s);
    return ConfigErrorOf([&] { v.Validate(); });
  };
  // board.size must be listed (the checkpoints' and the engine's size) ...
  CHECK(validate_error({"net.heads=conv", "selfplay.board_sizes=13,17"}).find("must include board.size 15") !=
        std::string::npos);
  // ... once ...
  CHECK(validate_error({"net.heads=conv", "selfplay.board_sizes=15,13,13:2"}).find("listed twice") !=
        std::string::npos);
  // ... and other sizes need conv heads (fc heads play one size).
  CHECK(validate_error({"selfplay.board_sizes=15,13"}).find("net.heads conv") != std::string::npos);
  CHECK(validate_error({"selfplay.board_sizes=15"}).empty());  // fc, one size listed: fine
  CHECK(validate_error({"net.heads=conv", "selfplay.board_sizes=15,5", "selfplay.random_opening_moves=30"})
            .find("too small") != std::string::npos);
  // The run's geometry travels with metadata.json.
  Config worker;
  worker.AdoptRunGeometry(c, "metadata.json");
  CHECK(worker.board_sizes() == std::vector<int>{13, 15, 20});
  CHECK(worker.net.heads == "conv");
  CHECK(worker.origin("selfplay.board_sizes") == "metadata.json");
}

TEST_CASE("file < overrides, and ToJson round-trips every key") {
  std::string path = gz::testing::TestTmpPath("cfg_test.json");
  std::ofstream(path) << R"({"board": {"size": 9, "rule": "standard"}, "mcts": {"simulations": 50},
                            "server": {"max_wait": "auto"}})";
  Config c = Config::Load(path, {"mcts.simulations=70", "run.dir=/tmp/x"});
  CHECK(c.board.size == 9);
  CHECK(c.rule() == Rule::kStandard);
  CHECK(c.mcts.simulations == 70);
  CHECK(c.server.max_wait == "auto");
  CHECK(c.run.dir == "/tmp/x");
  Config d = Config::FromJson(c.ToJson(), "roundtrip");
  CHECK(d.ToJson() == c.ToJson());
  CHECK(c.ToJson()["mcts"]["simulations"] == 70);
  // Every key appears in ToJson.
  for (const auto& k : Config::Keys()) {
    auto dot = k.find('.');
    INFO(k);
    CHECK(c.ToJson()[k.substr(0, dot)].contains(k.substr(dot + 1)));
  }
}

TEST_CASE("bad JSON and missing files are clear errors") {
  std::string path = gz::testing::TestTmpPath("cfg_bad.json");
  std::ofstream(path) << "{ not json";
  std::string e = ConfigErrorOf([&] { Config::Load(path, {}); });
  CHECK(e.find("invalid JSON") != std::string::npos);
  CHECK_THROWS_AS(Config::Load("/nonexistent.json", {}), IoError);
}

TEST_CASE("command line parsing") {
  const char* argv[] = {"prog", "--config", "a.json", "--set", "x.y=1", "--id=3", "--json"};
  CliSpec spec{"usage", {"--id"}, {"--json"}};
  CliArgs a = ParseCli(7, const_cast<char**>(argv), spec);
  CHECK(a.config == "a.json");
  CHECK(a.sets == std::vector<std::string>{"x.y=1"});
  CHECK(a.get_int("--id", 0) == 3);
  CHECK(a.has("--json"));
  const char* bad[] = {"prog", "--bogus"};
  CHECK_THROWS_AS(ParseCli(2, const_cast<char**>(bad), spec), ConfigError);
  const char* missing[] = {"prog", "--id"};
  CHECK_THROWS_AS(ParseCli(2, const_cast<char**>(missing), spec), ConfigError);
}

TEST_CASE("every shipped config in configs/ loads and validates") {
  // A user starts with these files: one that the loader refuses (an unknown
  // key, a value out of range, a combination it forbids) is a broken release.
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GZ_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().string());
    CHECK_NOTHROW(gz::Config::Load(e.path().string(), {}));
    // A fixed net named as a rung must ship with the repository.
    for (const std::string& entry : gz::Config::Load(e.path().string(), {}).eval.ladder) {
      if (entry.rfind("net:", 0) != 0) continue;
      INFO(entry);
      const std::string path = entry.substr(4, entry.rfind(".pt") + 3 - 4);
      CHECK(std::filesystem::path(path).is_absolute());
      CHECK(std::filesystem::exists(path));
    }
    ++n;
  }
  CHECK(n >= 8);  // cpu, gpu, tiny, the learn/recipe/baseline configs
}

TEST_CASE("relative paths in a config file are relative to that file; overrides stay as given") {
  const std::string dir = gz::testing::FreshTestDir("config_paths");
  std::filesystem::create_directories(dir + "/configs");
  const std::string file = dir + "/configs/c.json";
  std::ofstream(file) << R"({"train": {"init_weights": "../nets/a.pt"},
    "eval": {"ladder": ["rollout:50", "net:../nets/ref.pt:80", "net:ref2.pt", "net:/abs/x.pt:7", "previous:1"]}})";
  const std::string root = std::filesystem::path(dir).lexically_normal().string();
  Config c = Config::Load(file, {});
  CHECK(c.train.init_weights == root + "/nets/a.pt");
  const std::vector<std::string> want = {"rollout:50", "net:" + root + "/nets/ref.pt:80",
                                         "net:" + root + "/configs/ref2.pt", "net:/abs/x.pt:7", "previous:1"};
  CHECK(c.eval.ladder == want);
  // --set is typed in the caller's directory: taken as given.
  Config o = Config::Load(file, {"train.init_weights=here.pt", "eval.ladder=net:n.pt:3"});
  CHECK(o.train.init_weights == "here.pt");
  CHECK(o.eval.ladder == std::vector<std::string>{"net:n.pt:3"});
}

TEST_CASE("play settings: a checkpoint's settings fill only what nobody set, each with its origin") {
  Config run;
  run.Set("mcts.solver", "true", "run.json");
  run.Set("mcts.fpu_reduction", "0.2", "run.json");
  const auto play = run.PlaySettings();
  REQUIRE(play.size() == Config::PlaySettingKeys().size());
  CHECK(play.at("mcts.solver") == "true");
  CHECK(std::stod(play.at("mcts.fpu_reduction")) == Approx(0.2));
  CHECK(play.count("mcts.simulations") == 0);  // self-play knobs are not play settings
  CHECK(play.count("mcts.dirichlet_alpha") == 0);

  Config player;
  player.Set("mcts.c_puct", "2.5", "--set");
  const auto set = player.AdoptPlaySettings(play, "checkpoint w.pt");
  CHECK(player.mcts.solver);
  CHECK(player.mcts.fpu_reduction == Approx(0.2f));
  CHECK(player.mcts.c_puct == Approx(2.5f));  // the explicit value wins
  CHECK(player.origin("mcts.solver") == "checkpoint w.pt");
  CHECK(player.origin("mcts.c_puct") == "--set");
  CHECK(std::find(set.begin(), set.end(), "mcts.c_puct") == set.end());
  CHECK(std::find(set.begin(), set.end(), "mcts.solver") != set.end());
  const std::string line = player.DescribePlaySettings();
  CHECK_THAT(line, Catch::Contains("mcts.solver=true (checkpoint w.pt)"));
  CHECK_THAT(line, Catch::Contains("mcts.c_puct=2.5 (--set)"));

  // Adopting again changes nothing: every key now has an origin.
  CHECK(player.AdoptPlaySettings({{"mcts.solver", "false"}}, "other").empty());
  CHECK(player.mcts.solver);

  Config bad;
  CHECK_THAT(ConfigErrorOf([&] { bad.AdoptPlaySettings({{"mcts.simulations", "5"}}, "checkpoint x.pt"); }),
             Catch::Contains("'mcts.simulations' is not a play setting"));
  CHECK_THAT(ConfigErrorOf([&] { bad.AdoptPlaySettings({{"mcts.c_puct", "lots"}}, "checkpoint x.pt"); }),
             Catch::Contains("checkpoint x.pt"));
}

TEST_CASE("engine.batch and engine.threads: defaults, bounds, errors name the key") {
  const Config d = Config::Load("", {});
  CHECK(d.engine.batch == EngineConfig{}.batch);
  CHECK(d.engine.threads == EngineConfig{}.threads);
  const Config c = Config::Load("", {"engine.batch=32", "engine.threads=2"});
  CHECK(c.engine.batch == 32);
  CHECK(c.engine.threads == 2);
  CHECK(c.ToJson()["engine"]["batch"] == 32);
  for (const std::string bad : {"engine.batch=0", "engine.batch=513", "engine.threads=0", "engine.threads=33",
                                "engine.batch=2.5"}) {
    INFO(bad);
    CHECK_THAT(ConfigErrorOf([&] { Config::Load("", {bad}); }), Catch::Contains(bad.substr(0, bad.find('='))));
  }
  CHECK_THROWS_AS(Config::Load("", {"engine.batches=4"}), ConfigError);
}

TEST_CASE("renamed keys: an old file still loads into the new key; --set names the new key") {
  // A run's config.json / metadata.json and engine settings files written before the rename.
  const auto old_file = nlohmann::json::parse(R"({"mcts": {"c_puct": 2.0, "engine_batch": 8, "engine_threads": 3}})");
  Config c = Config::FromJson(old_file, "old/config.json");
  CHECK(c.engine.batch == 8);
  CHECK(c.engine.threads == 3);
  CHECK(c.mcts.c_puct == Approx(2.0f));
  CHECK(c.origin("engine.batch") == "old/config.json (as mcts.engine_batch)");
  CHECK(c.ToJson()["mcts"].count("engine_batch") == 0);  // written back under the new name only
  CHECK(c.ToJson()["engine"]["threads"] == 3);
  // The old name's value is checked as the new key's.
  CHECK_THAT(ConfigErrorOf([&] { Config::FromJson(nlohmann::json::parse(R"({"mcts": {"engine_batch": 0}})"), "f"); }),
             Catch::Contains("engine.batch") && Catch::Contains("mcts.engine_batch"));
  // Both names in one file: which one was meant is unclear.
  CHECK_THAT(ConfigErrorOf([&] {
               Config::FromJson(nlohmann::json::parse(R"({"mcts": {"engine_batch": 8}, "engine": {"batch": 4}})"), "f");
             }),
             Catch::Contains("give only 'engine.batch'"));
  // A typed command gets the new name.
  const std::vector<std::string> keys = Config::Keys();
  for (const auto& [old_key, new_key] : Config::RenamedKeys()) {
    INFO(old_key);
    CHECK_THAT(ConfigErrorOf([&] { Config::Load("", {old_key + "=2"}); }),
               Catch::Contains("'" + old_key + "' was renamed to '" + new_key + "'"));
    CHECK(std::find(keys.begin(), keys.end(), new_key) != keys.end());
  }
}
