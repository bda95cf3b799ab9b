// The forward each caller in common/match runs (ChooseForward,
// common/net/forward_choice.h): the EvaluatorSource of the engine, the
// analysis engine and the dashboard, and the net players of the evaluator
// and arena (MakeNetPlayer) run the native forward on the CPU by default,
// LibTorch's when inference.backend says torch, with inference.threads; a
// conv net is read once, whatever sizes its games or queries mix (the file
// is removed before the second size is played: a reload would fail).
#include <catch2/catch.hpp>

#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/base/errors.h"
#include "common/config/config.h"
#include "common/harness/temp_dir.h"
#include "common/match/analysis_engine.h"
#include "common/match/evaluator_source.h"
#include "common/match/game.h"
#include "common/net/net_api.h"

using namespace gz;
using json = nlohmann::json;

namespace {

std::string ConvNet(const std::string& name, int size) {
  const std::string path = testing::TestTmpPath("forward_callers_" + name + ".gzck");
  CreateRandomCheckpoint(path, size, Rule::kFreestyle, 8, 1, /*seed=*/21, 1, 2, "conv");
  return path;
}

Config CpuConfig(const std::string& backend = "auto", int threads = 1) {
  Config c;
  c.inference.device = "cpu";
  c.inference.backend = backend;
  c.inference.threads = threads;
  c.inference.symmetry = "none";
  return c;
}

std::vector<Position> OnePosition(int size) {
  Board b(size, Rule::kFreestyle);
  b.Play(size * (size / 2) + size / 2);
  return {b.ToPosition()};
}

}  // namespace

TEST_CASE("EvaluatorSource (engine, analysis, dashboard): native on the CPU with inference.threads, torch when asked") {
  const std::string path = ConvNet("source", 9);
  {
    EvaluatorSource source(path, CpuConfig("auto", 2));
    REQUIRE(source.forward() != nullptr);
    CHECK(std::string(source.forward()->name()) == "native");
    CHECK(source.forward()->threads == 2);
    CHECK_THAT(source.Describe(), Catch::Contains("native forward, 2 threads"));
    CHECK_THAT(source.ForGame(9, Rule::kFreestyle).Describe(),
               Catch::Contains("native CPU forward") && Catch::Contains("2 threads"));
  }
  {
    EvaluatorSource source(path, CpuConfig("torch"));
    REQUIRE(source.forward() != nullptr);
    CHECK(std::string(source.forward()->name()) == "torch");
    CHECK_THAT(source.ForGame(9, Rule::kFreestyle).Describe(), Catch::StartsWith("torch cpu"));
  }
  Config deflt;  // inference.device auto, backend auto: on this CPU-only machine the native forward
  if (!CudaAvailable()) CHECK(std::string(EvaluatorSource(path, deflt).forward()->name()) == "native");
  EvaluatorSource baseline("", CpuConfig());
  CHECK(baseline.forward() == nullptr);
}

TEST_CASE("EvaluatorSource: a conv net's file is read once; each size's forward is made once and kept") {
  for (const std::string backend : {"native", "torch"}) {
    INFO("backend " << backend);
    const std::string path = ConvNet("sizes_" + backend, 9);
    EvaluatorSource source(path, CpuConfig(backend));
    std::filesystem::remove(path);  // from here on a read of the file fails
    Evaluator& at9 = source.ForGame(9, Rule::kFreestyle);
    Evaluator& at11 = source.ForGame(11, Rule::kFreestyle);
    Evaluator& at13 = source.ForGame(13, Rule::kFreestyle);
    CHECK(&source.ForGame(11, Rule::kFreestyle) == &at11);  // kept, not remade
    CHECK(&source.ForGame(9, Rule::kFreestyle) == &at9);
    for (auto [size, e] : {std::pair<int, Evaluator*>{9, &at9}, {11, &at11}, {13, &at13}}) {
      std::vector<EvalResult> r(1);
      e->Evaluate(OnePosition(size), r);
      CHECK(r[0].log_policy.size() == static_cast<size_t>(size * size));
      CHECK(r[0].model_generation == 2);
    }
  }
}

TEST_CASE("the analysis engine mixing 19x19 and 20x20 queries reads its net once") {
  const std::string path = ConvNet("analysis", 15);
  Config cfg = CpuConfig();
  EvaluatorSource source(path, cfg);
  std::filesystem::remove(path);  // a reload at either size would fail the evaluation
  std::mutex mu;
  std::vector<json> lines;
  AnalysisEngine engine(source, cfg.mcts, 5, [&](const std::string& l) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(json::parse(l));
  });
  for (int i = 0; i < 6; ++i) {
    const int size = i % 2 == 0 ? 19 : 20;
    engine.Submit(R"({"id":"q)" + std::to_string(i) + R"(","boardSize":)" + std::to_string(size) +
                  R"(,"moves":[["B",")" + std::to_string(i) + R"(,9"]],"maxVisits":12})");
  }
  engine.CloseInput();
  engine.Run();
  int answered = 0;
  for (const json& l : lines) {
    INFO(l.dump());
    CHECK_FALSE(l.contains("error"));
    if (l.value("isDuringSearch", true) == false && l.contains("moveInfos")) ++answered;
  }
  CHECK(answered == 6);
  CHECK(engine.stats().forwards >= 2);
}

TEST_CASE("MakeNetPlayer (evaluator, arena): the native forward on the CPU, torch when asked; forward() names it") {
  const std::string path = ConvNet("player", 7);
  Config cfg = CpuConfig();
  cfg.board.size = 7;
  PlayerOptions options = PlayerOptions::FromConfig(cfg, 1, 2);
  CHECK(options.backend == "auto");
  auto native = MakeNetPlayer("net", path, 4, cfg, options);
  CHECK(native->forward() == "native");
  options.backend = "torch";
  auto torch = MakeNetPlayer("net", path, 4, cfg, options);
  CHECK(torch->forward() == "torch");
  options.backend = "native";
  options.device = "cpu";
  CHECK(MakeMatchPlayer("net:" + path + ":4", cfg, 4, options)->forward() == "native");
  CHECK(MakeMatchPlayer("rollout:4", cfg, 4, options)->forward().empty());
  CHECK(MakeMatchPlayer("classical:100", cfg, 4, options)->forward().empty());
  // A game between the two forwards of one net: both play legal moves to the end.
  const GameResult g = PlayGame(*native, *torch, 7, Rule::kFreestyle, {});
  CHECK((g.end == "five" || g.end == "full"));
}
