// dashboard/run_data: the series the charts draw, from generations.jsonl.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "common/base/fileio.h"
#include "common/data/run_layout.h"
#include "dashboard/run_data.h"
#include "common/harness/temp_dir.h"
#include "tests/support/text_checks.h"

using namespace gz;

namespace {
nlohmann::json Record(int it, nlohmann::json server) {
  return {{"iteration", it}, {"server", std::move(server)}};
}
}  // namespace

TEST_CASE("the batch chart plots each iteration's average, not the server's last snapshot") {
  const std::string run = testing::FreshTestDir("run_data_batch");
  std::string lines;
  // Server pid 7 serves iterations 1-2, then restarts as pid 8; iteration 4's
  // record comes from an older build (a snapshot only); 5 has no server.
  lines += Record(1, {{"pid", 7}, {"avg_batch", 3.0}, {"avg_batch_total", 10.0}, {"max_batch", 80},
                      {"positions_forwarded_total", 100}, {"forwards_total", 10}}).dump() + "\n";
  lines += Record(2, {{"pid", 7}, {"avg_batch", 4.0}, {"avg_batch_total", 13.3}, {"max_batch", 80},
                      {"positions_forwarded_total", 1300}, {"forwards_total", 40}}).dump() + "\n";
  lines += Record(3, {{"pid", 8}, {"avg_batch", 2.0}, {"avg_batch_total", 25.0}, {"max_batch", 80},
                      {"positions_forwarded_total", 500}, {"forwards_total", 20}}).dump() + "\n";
  lines += Record(4, {{"avg_batch", 6.0}, {"max_batch", 80}}).dump() + "\n";
  lines += nlohmann::json({{"iteration", 5}}).dump() + "\n";
  WriteFileAtomic(RunLayout(run).generations(), lines);
  const nlohmann::json s = SeriesJson(run);
  REQUIRE(s["avg_batch"].size() == 5);
  CHECK(s["avg_batch"][0].get<double>() == Approx(10.0));  // a server's first iteration: its total average
  CHECK(s["avg_batch"][1].get<double>() == Approx(40.0));  // (1300 - 100) / (40 - 10), not the snapshot 4
  CHECK(s["avg_batch"][2].get<double>() == Approx(25.0));  // a new server: not a difference across the restart
  CHECK(s["avg_batch"][3].get<double>() == Approx(6.0));   // only the snapshot exists
  CHECK(s["avg_batch"][4].is_null());
  CHECK(s["batch_fill"][1].get<double>() == Approx(0.5));
}

// Records of a live CPU run (launch/start.sh --config configs/cpu.json,
// 2026-12-06): each snapshots an interval the server's stats line had just
// reset, so iteration 3's own figure reads forward_busy_fraction 0.0 with 0
// requests in 19 s while the server spent 46-85% of every 30 s stats line in
// forwards.  The chart reads the cumulative counters instead.
TEST_CASE("the busy chart reads each iteration's forward time, not the just-reset interval") {
  const std::string run = testing::FreshTestDir("run_data_busy");
  std::filesystem::copy_file(std::string(GZ_SOURCE_DIR) + "/tests/dashboard/fixtures/generations-cpu-live.jsonl",
                             RunLayout(run).generations());
  const nlohmann::json s = SeriesJson(run);
  REQUIRE(s["forward_busy"].size() == 3);
  // Iteration 1, the server's first: its forward time over its uptime, 3587 x 13.1494 ms / 67.399 s.
  CHECK(s["forward_busy"][0].get<double>() == Approx(3587 * 13.1494 / 1000 / 67.399).epsilon(1e-6));
  // Iterations 2 and 3: the forward time between two records over the uptime between them.
  CHECK(s["forward_busy"][1].get<double>() ==
        Approx((9579 * 12.2726 - 3587 * 13.1494) / 1000 / (167.364 - 67.399)).epsilon(1e-6));
  const double third = (13069 * 13.3884 - 9579 * 12.2726) / 1000 / (259.207 - 167.364);
  CHECK(s["forward_busy"][2].get<double>() == Approx(third).epsilon(1e-6));
  CHECK(third > 0.5);  // the record's own interval says 0.0
  for (const auto& b : s["forward_busy"]) CHECK((b.get<double>() > 0.3 && b.get<double>() <= 1.0));
}

TEST_CASE("the busy chart does not difference across a server restart and has gaps without counters") {
  const std::string run = testing::FreshTestDir("run_data_busy_restart");
  std::string lines;
  lines += Record(1, {{"pid", 7}, {"uptime_s", 100.0}, {"forwards_total", 1000}, {"avg_forward_ms_total", 50.0},
                      {"forward_busy_fraction", 0.0}}).dump() + "\n";
  lines += Record(2, {{"pid", 8}, {"uptime_s", 20.0}, {"forwards_total", 100}, {"avg_forward_ms_total", 40.0},
                      {"forward_busy_fraction", 0.0}}).dump() + "\n";
  lines += Record(3, {{"pid", 8}, {"uptime_s", 40.0}, {"forwards_total", 200}, {"forward_busy_fraction", 0.9}}).dump() + "\n";
  lines += Record(4, {{"forward_busy_fraction", 0.7}}).dump() + "\n";
  WriteFileAtomic(RunLayout(run).generations(), lines);
  const nlohmann::json s = SeriesJson(run);
  REQUIRE(s["forward_busy"].size() == 4);
  CHECK(s["forward_busy"][0].get<double>() == Approx(0.5));  // 50 s of forwards in 100 s
  CHECK(s["forward_busy"][1].get<double>() == Approx(0.2));  // the new server's own 4 s in 20 s
  CHECK(s["forward_busy"][2].is_null());                     // no forward time recorded: a gap, not the snapshot
  CHECK(s["forward_busy"][3].is_null());                     // a snapshot alone is not plotted
}

TEST_CASE("ladder entries get short, distinct names for the legends") {
  const auto names = ShortEntryNames({"rollout:1000", "previous:1", "net:/work/main/configs/../nets/gz-a.pt",
                                      "net:/srv/old/nets/gz-a.pt:400", "net:/x/one/ref.pt", "net:/y/two/ref.pt",
                                      "engine:/opt/brains/pbrain-x --level 3"});
  CHECK(names.at("rollout:1000") == "rollout:1000");
  CHECK(names.at("previous:1") == "previous:1");
  CHECK(names.at("net:/work/main/configs/../nets/gz-a.pt") == "net:gz-a.pt");
  CHECK(names.at("net:/srv/old/nets/gz-a.pt:400") == "net:gz-a.pt:400");
  CHECK(names.at("net:/x/one/ref.pt") == "net:one/ref.pt");  // the same file name: one folder more each
  CHECK(names.at("net:/y/two/ref.pt") == "net:two/ref.pt");
  CHECK(names.at("engine:/opt/brains/pbrain-x --level 3") == "engine:pbrain-x --level 3");
  std::set<std::string> distinct;
  for (const auto& [entry, name] : names) distinct.insert(name);
  CHECK(distinct.size() == names.size());

  // RatingsJson carries them beside each opponent's curve.
  const std::string run = testing::FreshTestDir("run_data_labels");
  const nlohmann::json line = {{"iteration", 3},
                               {"opponents", {{{"entry", "net:/x/one/ref.pt"}, {"name", "net:/x/one/ref.pt"}},
                                              {{"entry", "net:/y/two/ref.pt"}, {"name", "net:/y/two/ref.pt"}}}}};
  WriteFileAtomic(RunLayout(run).ratings(), line.dump() + "\n");
  const nlohmann::json r = RatingsJson(run);
  CHECK(r["opponents"]["net:/x/one/ref.pt"]["label"] == "net:one/ref.pt");
  CHECK(r["opponents"]["net:/y/two/ref.pt"]["label"] == "net:two/ref.pt");
}

TEST_CASE("files of a newer format_version show as empty, with the reason naming file and version") {
  RunLayout run(testing::FreshTestDir("run_data_versions"));
  WriteFileAtomic(run.generations(), "{\"iteration\": 1}\n{\"format_version\": 2, \"iteration\": 2}\n");
  WriteFileAtomic(run.ratings(), "{\"format_version\": 2, \"iteration\": 1}\n");
  MakeDirs(run.status_dir());
  WriteFileAtomic(run.evaluator_status(), "{\"format_version\": 2, \"state\": \"playing\"}");
  const nlohmann::json series = SeriesJson(run.dir), ratings = RatingsJson(run.dir), ev = EvaluatorJson(run.dir);
  CHECK(series["iterations"].empty());
  CHECK(ratings["iterations"].empty());
  CHECK(ev["present"] == false);
  testing::RequireContainsAll(series["error"].get<std::string>(),
                              {run.generations(), "generations.jsonl record has format_version 2"});
  testing::RequireContainsAll(ratings["error"].get<std::string>(),
                              {run.ratings(), "ratings.jsonl record has format_version 2"});
  testing::RequireContainsAll(ev["error"].get<std::string>(), {run.evaluator_status(), "evaluator status has format_version 2"});

  WriteFileAtomic(run.ratings(), "{\"format_version\": 1, \"iteration\": 1}\n");
  CHECK(RatingsJson(run.dir)["error"].is_null());
  CHECK(RatingsJson(run.dir)["iterations"] == nlohmann::json::array({1}));
}
