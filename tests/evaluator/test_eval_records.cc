// The evaluator's files against common/data/record_format.h: its results and
// ratings lines carry format_version, and a results file holding a line of a
// newer version is refused (never skipped as a bad line), naming the file.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/jsonl.h"
#include "common/data/record_fields.h"
#include "common/data/record_format.h"
#include "common/data/run_layout.h"
#include "evaluator/ratings_file.h"
#include "evaluator/results_log.h"
#include "common/harness/temp_dir.h"
#include "tests/support/text_checks.h"

using namespace gz;
using nlohmann::json;
namespace rf = gz::fields::eval_result;

namespace {

json Stamped(json j) {
  StampRecordVersion(j, kEvalResultRecord);
  return j;
}

}  // namespace

TEST_CASE("results and ratings lines carry format_version; a newer results line is refused by name") {
  RunLayout run(gz::testing::FreshTestDir("eval_records"));
  {
    ResultsLog log(run.eval_results());
    log.AppendEvaluation(Stamped({{rf::kType, rf::kTypeEvaluation}, {rf::kIteration, 1}, {rf::kPlayer, "checkpoint:1"},
                                  {rf::kOpponents, json::array({{{rf::kEntry, "random"}, {rf::kName, "random"}}})},
                                  {rf::kGames, 1}}));
    log.AppendGame(Stamped({{rf::kType, rf::kTypeGame}, {rf::kIteration, 1}, {rf::kEntry, "random"},
                            {rf::kOpponent, "random"}, {rf::kGame, 0}, {rf::kScore, 1.0}}));
    const std::string ratings = RatingsJsonl(log, "random");
    const json line = json::parse(ratings.substr(0, ratings.find('\n')));
    CHECK(line[kFormatVersionKey] == kRatingRecord.version);
    CHECK(line[fields::rating::kComplete] == true);
  }
  CHECK(ResultsLog(run.eval_results()).Find(1) != nullptr);  // read back
  for (const json& j : ReadJsonLines(run.eval_results()).records) CHECK(j[kFormatVersionKey] == 1);

  AppendLine(run.eval_results(), json{{kFormatVersionKey, 2}, {rf::kType, rf::kTypeGame}, {rf::kIteration, 1}}.dump());
  try {
    ResultsLog refused(run.eval_results());
    FAIL("a results file with a newer line was read");
  } catch (const IoError& e) {
    gz::testing::RequireContainsAll(e.what(), {run.eval_results(), "eval/results.jsonl record has format_version 2",
                                               "this build reads version 1"});
  }
}
