// Where config values come from: the environment variables bound to keys go
// through the same registry as files and --set, and every key remembers its
// origin (common/config/config.h).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "tests/config/config_test_util.h"

using namespace gz;
using gz::testing::ConfigErrorOf;

namespace {

// Sets the bound variables for one scope and restores the previous values.
class ScopedEnv {
 public:
  ScopedEnv(const std::string& name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name.c_str())) old_ = old, had_ = true;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_.c_str(), old_.c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

void ClearBoundEnvironment() {
  for (const auto& [var, key] : Config::EnvironmentBindings()) ::unsetenv(var.c_str());
}

}  // namespace

TEST_CASE("bound environment variables set their keys, win over --set, and are validated by the registry") {
  ClearBoundEnvironment();
  {
    ScopedEnv batch("GOMOKU_MAX_BATCH", "40");
    ScopedEnv wait("GOMOKU_MAX_WAIT_MS", "auto");
    ScopedEnv sock("GOMOKU_INFER_SOCK", "/tmp/gz-test.sock");
    Config c = Config::Load("", {"server.max_batch=7", "server.max_wait=5"});
    CHECK(c.server.max_batch == 40);
    CHECK(c.server.max_wait == "auto");
    CHECK(c.server.socket == "/tmp/gz-test.sock");
    CHECK(c.origin("server.max_batch") == "env GOMOKU_MAX_BATCH");
    CHECK(c.from_environment("server.socket"));
    CHECK(c.DescribeOrigins().find("server.max_batch=40 (env GOMOKU_MAX_BATCH)") != std::string::npos);
  }
  {
    ScopedEnv batch("GOMOKU_MAX_BATCH", "0");
    const std::string why = ConfigErrorOf([] { Config::Load("", {}); });
    CHECK(why.find("GOMOKU_MAX_BATCH") != std::string::npos);
    CHECK(why.find("server.max_batch") != std::string::npos);
    CHECK(why.find("out of range") != std::string::npos);
  }
  {
    ScopedEnv wait("GOMOKU_MAX_WAIT_MS", "soon");
    const std::string why = ConfigErrorOf([] { Config::Load("", {}); });
    CHECK(why.find("GOMOKU_MAX_WAIT_MS") != std::string::npos);
    CHECK(why.find("server.max_wait") != std::string::npos);
  }
  {
    ScopedEnv empty("GOMOKU_MAX_BATCH", "");  // empty = not set, as before
    Config c = Config::Load("", {"server.max_batch=9"});
    CHECK(c.server.max_batch == 9);
    CHECK(c.origin("server.max_batch") == "--set");
    CHECK_FALSE(c.from_environment("server.socket"));
  }
}

TEST_CASE("origins: default, file source, --set, Set, and the run's geometry") {
  ClearBoundEnvironment();
  Config c;
  CHECK(c.origin("board.size") == "default");
  CHECK(c.DescribeOrigins() == "all defaults");
  c.Apply(nlohmann::json::parse(R"({"board": {"size": 9}})"), "configs/x.json");
  CHECK(c.origin("board.size") == "configs/x.json");
  c.ApplyOverride("mcts.c_puct=2.5");
  CHECK(c.origin("mcts.c_puct") == "--set");
  c.Set("run.dir", "/tmp/r", "--run-dir");
  CHECK(c.run.dir == "/tmp/r");
  CHECK(c.origin("run.dir") == "--run-dir");
  Config run;
  run.board.size = 11;
  run.board.rule = "standard";
  run.inference.symmetry = "none";
  c.AdoptRunGeometry(run, "runs/a/metadata.json");
  CHECK(c.board.size == 11);
  CHECK(c.rule() == Rule::kStandard);
  CHECK(c.inference.symmetry == "none");
  CHECK(c.origin("inference.symmetry") == "runs/a/metadata.json");
  const std::string d = c.DescribeOrigins();
  CHECK(d.find("board.size=11 (runs/a/metadata.json)") != std::string::npos);
  CHECK(d.find("mcts.c_puct=2.5 (--set)") != std::string::npos);
  CHECK(d.find("run.dir=\"/tmp/r\" (--run-dir)") != std::string::npos);
}

TEST_CASE("float parameters keep the search layer's floats and print as written") {
  Config c;
  c.ApplyOverride("mcts.dirichlet_alpha=0.3");
  CHECK(c.mcts.dirichlet_alpha == 0.3f);
  CHECK(c.ToJson()["mcts"]["dirichlet_alpha"].dump() == "0.3");
  CHECK(ConfigErrorOf([&] { c.ApplyOverride("mcts.c_puct=1e300"); }).find("mcts.c_puct") != std::string::npos);
  // A round trip through JSON (metadata.json) gives the same floats.
  Config back = Config::FromJson(c.ToJson(), "round trip");
  CHECK(back.mcts.dirichlet_alpha == c.mcts.dirichlet_alpha);
  CHECK(back.mcts.c_puct == c.mcts.c_puct);
}

TEST_CASE("string lists: JSON arrays or comma lists, entries checked by kind") {
  Config c;
  c.ApplyOverride("eval.ladder=rollout:100,previous:1,checkpoint:0,engine:/bin/brain --x");
  REQUIRE(c.eval.ladder.size() == 4);
  CHECK(c.eval.ladder[3] == "engine:/bin/brain --x");
  c.ApplyOverride(R"(eval.ladder=["rollout:5"])");
  CHECK(c.eval.ladder == std::vector<std::string>{"rollout:5"});
  CHECK(ConfigErrorOf([&] { c.ApplyOverride("eval.ladder=rollout:100,bogus:3"); }).find("'bogus:3'") !=
        std::string::npos);
  CHECK(ConfigErrorOf([&] { c.ApplyOverride("eval.ladder=rollout:0"); }).find("eval.ladder") != std::string::npos);
  CHECK(ConfigErrorOf([&] { c.ApplyOverride("eval.ladder=rollout:10,"); }).find("empty") != std::string::npos);
  CHECK(ConfigErrorOf([&] { c.ApplyOverride("eval.anchor=checkpoint:x"); }).find("eval.anchor") != std::string::npos);
}
