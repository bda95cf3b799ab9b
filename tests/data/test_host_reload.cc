// reload.json and status/{host}/reload_ack.json (common/data/host_reload.h):
// round trips, and malformed or foreign files refused with the file and the
// problem named.
#include <catch2/catch.hpp>

#include <filesystem>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/host_reload.h"
#include "common/data/run_layout.h"
#include "common/harness/temp_dir.h"

using namespace gz;

TEST_CASE("reload announcements and host acknowledgements round-trip") {
  const RunLayout run(gz::testing::FreshTestDir("host_reload/roundtrip"));
  CHECK_FALSE(ReadReloadAnnouncement(run.reload_announcement()));
  WriteReloadAnnouncement(run.reload_announcement(), ReloadAnnouncement{7, "/x/weights_it7.pt", 7, 123.5});
  auto a = ReadReloadAnnouncement(run.reload_announcement());
  REQUIRE(a);
  CHECK(a->iteration == 7);
  CHECK(a->weights == "/x/weights_it7.pt");
  CHECK(a->generation == 7);
  CHECK(a->announced_at == 123.5);

  MakeDirs(run.status_dir("hostA"));
  MakeDirs(run.status_dir("hostB"));
  MakeDirs(run.status_dir("no-ack"));
  HostAck ack;
  ack.host = "hostA";
  ack.pid = 42;
  ack.seq = 9;
  ack.updated_at = 1.5;
  ack.serving_generation = 6;
  WriteHostAck(run.reload_ack("hostA"), ack);
  ack.host = "hostB";
  ack.has_announcement = true;
  ack.announced_generation = 7;
  ack.announcement_ok = false;
  ack.announcement_reason = "CRC mismatch";
  WriteHostAck(run.reload_ack("hostB"), ack);
  CHECK(ListAckingHosts(run.status_dir()) == std::vector<std::string>{"hostA", "hostB"});
  auto ra = ReadHostAck(run.reload_ack("hostA"));
  REQUIRE(ra);
  CHECK(ra->seq == 9);
  CHECK(ra->serving_generation == 6);
  CHECK_FALSE(ra->has_announcement);
  auto rb = ReadHostAck(run.reload_ack("hostB"));
  REQUIRE(rb);
  CHECK(rb->has_announcement);
  CHECK(rb->announced_generation == 7);
  CHECK_FALSE(rb->announcement_ok);
  CHECK(rb->announcement_reason == "CRC mismatch");
}

TEST_CASE("malformed reload files are refused with the file and the problem named") {
  const RunLayout run(gz::testing::FreshTestDir("host_reload/bad"));
  const std::string path = run.reload_announcement();
  auto refused = [&](const std::string& text, const std::string& needle) {
    WriteFileAtomic(path, text);
    INFO(text);
    try {
      ReadReloadAnnouncement(path);
      FAIL("accepted: " << text);
    } catch (const IoError& e) {
      const std::string what = e.what();
      CHECK(what.find(path) != std::string::npos);
      CHECK(what.find(needle) != std::string::npos);
    }
  };
  refused("not json", "not JSON");
  refused("[1,2]", "not a JSON object");
  refused("{\"iteration\": 1}", "has no format_version");
  refused("{\"format_version\": 2, \"iteration\": 1, \"weights\": \"w\", \"generation\": 1}", "format_version 2");
  refused("{\"format_version\": 1, \"weights\": \"w\", \"generation\": 1}", "malformed");
  refused("{\"format_version\": 1, \"iteration\": 1, \"weights\": \"\", \"generation\": 1}", "names no weights");
  refused("{\"format_version\": 1, \"iteration\": \"one\", \"weights\": \"w\", \"generation\": 1}", "malformed");

  MakeDirs(run.status_dir("h"));
  WriteFileAtomic(run.reload_ack("h"), "{\"format_version\": 1, \"host\": \"h\"}");
  CHECK_THROWS_AS(ReadHostAck(run.reload_ack("h")), IoError);
}
