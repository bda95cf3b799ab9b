// common/base/jsonl: an append-only JSON-lines file read while its writer may
// have been killed mid-append: torn and non-object lines are skipped and
// counted, never fatal.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/base/jsonl.h"
#include "common/harness/temp_dir.h"

namespace gz {

TEST_CASE("ReadJsonLines: objects in order; torn, garbage and non-object lines counted; empty lines ignored") {
  const std::string path = testing::FreshTestDir("jsonl_read") + "/log.jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    out << "{\"i\":1}\n"
        << "\n"
        << "[1,2]\n"              // JSON, not an object
        << "42\n"                 // the same
        << "{\"i\":2,\"s\":\"a\"}\n"
        << "not json at all\n"
        << "{\"i\":3}\n"
        << "{\"i\":4, \"half";  // a writer killed mid-append
  }
  JsonLines lines = ReadJsonLines(path);
  REQUIRE(lines.records.size() == 3);
  CHECK(lines.records[0]["i"] == 1);
  CHECK(lines.records[1]["s"] == "a");
  CHECK(lines.records[2]["i"] == 3);
  CHECK(lines.bad_lines == 4);
}

TEST_CASE("ReadJsonLines: a missing file is no records; an unreadable one throws naming it") {
  const std::string dir = testing::FreshTestDir("jsonl_missing");
  JsonLines none = ReadJsonLines(dir + "/nothing.jsonl");
  CHECK(none.records.empty());
  CHECK(none.bad_lines == 0);
  // A directory exists but cannot be read as a file.
  MakeDirs(dir + "/a_dir.jsonl");
  try {
    ReadJsonLines(dir + "/a_dir.jsonl");
    FAIL("no error for a directory");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(dir + "/a_dir.jsonl") != std::string::npos);
  }
}

TEST_CASE("ReadJsonLines: a torn line followed by appended records loses only the torn line") {
  const std::string path = testing::FreshTestDir("jsonl_torn_then_more") + "/log.jsonl";
  AppendLine(path, "{\"i\":1}");
  { std::ofstream(path, std::ios::app | std::ios::binary) << "{\"i\":2,"; }  // torn, no newline
  AppendLine(path, "");  // what a writer does at start: terminate the torn line
  AppendLine(path, "{\"i\":3}");
  JsonLines lines = ReadJsonLines(path);
  REQUIRE(lines.records.size() == 2);
  CHECK(lines.records[0]["i"] == 1);
  CHECK(lines.records[1]["i"] == 3);
  CHECK(lines.bad_lines == 1);
}

}  // namespace gz
