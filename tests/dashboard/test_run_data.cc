// dashboard/run_data: the series the charts draw, from generations.jsonl.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "common/base/fileio.h"
#include "dashboard/run_data.h"
#include "tests/support/temp_dir.h"

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
  WriteFileAtomic(run + "/generations.jsonl", lines);
  const nlohmann::json s = SeriesJson(run);
  REQUIRE(s["avg_batch"].size() == 5);
  CHECK(s["avg_batch"][0].get<double>() == Approx(10.0));  // a server's first iteration: its total average
  CHECK(s["avg_batch"][1].get<double>() == Approx(40.0));  // (1300 - 100) / (40 - 10), not the snapshot 4
  CHECK(s["avg_batch"][2].get<double>() == Approx(25.0));  // a new server: not a difference across the restart
  CHECK(s["avg_batch"][3].get<double>() == Approx(6.0));   // only the snapshot exists
  CHECK(s["avg_batch"][4].is_null());
  CHECK(s["batch_fill"][1].get<double>() == Approx(0.5));
}
