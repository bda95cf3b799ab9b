// common/data/record_format.h: every JSON record of a run carries a
// format_version, and a reader refuses one this build does not read, naming
// the file, the record and both versions.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/metadata.h"
#include "common/data/record_format.h"
#include "common/data/run_layout.h"
#include "common/harness/temp_dir.h"
#include "tests/support/text_checks.h"

using namespace gz;
using nlohmann::json;

namespace {

// The IoError message of f(), or "" when it did not throw IoError.
template <typename F>
std::string IoErrorOf(F f) {
  try {
    f();
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every record format: its own version passes, a newer one is refused by name") {
  std::set<std::string> names;
  for (const RecordFormat& format : AllRecordFormats()) {
    INFO(format.name);
    CHECK(names.insert(format.name).second);
    json record = {{"x", 1}};
    StampRecordVersion(record, format);
    CHECK(record["format_version"] == format.version);
    CHECK(CheckRecordVersion(record, format, "f.json") == format.version);

    record["format_version"] = format.version + 1;
    const std::string newer = IoErrorOf([&] { CheckRecordVersion(record, format, "/run/f.json"); });
    gz::testing::RequireContainsAll(newer, {"/run/f.json: ", format.name,
                                            "format_version " + std::to_string(format.version + 1),
                                            "this build reads version", "newer build"});
    record["format_version"] = 0;
    CHECK_FALSE(IoErrorOf([&] { CheckRecordVersion(record, format, "f.json"); }).empty());
    record["format_version"] = "1";
    CHECK(IoErrorOf([&] { CheckRecordVersion(record, format, "f.json"); }).find("not an integer") !=
          std::string::npos);

    const json old = {{"x", 1}};  // from before the field existed
    if (format.missing_is_v1) {
      CHECK(CheckRecordVersion(old, format, "f.json") == 1);
    } else {
      CHECK(IoErrorOf([&] { CheckRecordVersion(old, format, "f.json"); }).find("has no format_version") !=
            std::string::npos);
    }
    CHECK(IoErrorOf([&] { CheckRecordVersion(json::array(), format, "f.json"); }).find("not a JSON object") !=
          std::string::npos);
  }
}

TEST_CASE("ReadRecordLines and ReadRecordFile refuse a newer record, naming the file and the line") {
  RunLayout run(gz::testing::FreshTestDir("record_format_lines"));
  CHECK(ReadRecordLines(run.ratings(), kRatingRecord).empty());  // no file: no records
  CHECK_FALSE(ReadRecordFile(run.evaluator_status(), kEvaluatorStatusRecord));
  AppendLine(run.ratings(), R"({"iteration": 1})");                      // before versions: version 1
  AppendLine(run.ratings(), R"({"format_version": 1, "iteration": 2})");
  AppendLine(run.ratings(), R"({"format_version": 1, "itera)");          // torn: skipped, counted
  int bad = 0;
  CHECK(ReadRecordLines(run.ratings(), kRatingRecord, &bad).size() == 2);
  CHECK(bad == 1);
  AppendLine(run.ratings(), R"({"format_version": 2, "iteration": 3})");
  gz::testing::RequireContainsAll(IoErrorOf([&] { ReadRecordLines(run.ratings(), kRatingRecord); }),
                                  {run.ratings(), "(record 3)", "ratings.jsonl record has format_version 2"});

  MakeDirs(run.status_dir());
  WriteFileAtomic(run.evaluator_status(), R"({"format_version": 5, "state": "playing"})");
  gz::testing::RequireContainsAll(IoErrorOf([&] { ReadRecordFile(run.evaluator_status(), kEvaluatorStatusRecord); }),
                                  {run.evaluator_status(), "evaluator status has format_version 5"});
  WriteFileAtomic(run.evaluator_status(), "{torn");
  CHECK(IoErrorOf([&] { ReadRecordFile(run.evaluator_status(), kEvaluatorStatusRecord); }).find("not JSON") !=
        std::string::npos);
}

TEST_CASE("metadata.json is written with its version and a newer one is refused by name") {
  RunLayout run(gz::testing::FreshTestDir("record_format_metadata"));
  Metadata m;
  m.iteration = 3;
  m.weights = run.checkpoint(2);
  m.config = json::object();
  WriteMetadata(run.metadata(), m);
  json j = json::parse(ReadFileOrThrow(run.metadata()));
  CHECK(j["format_version"] == kMetadataRecord.version);
  j["format_version"] = kMetadataRecord.version + 1;
  WriteFileAtomic(run.metadata(), j.dump());
  gz::testing::RequireContainsAll(IoErrorOf([&] { ReadMetadata(run.metadata()); }),
                                  {run.metadata(), "metadata.json has format_version 2", "this build reads version 1"});
}
