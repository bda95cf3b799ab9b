// common/base/fileio: atomic publication, appends, temp names, and what a full
// or failing disk does to them.  Failures are real failed system calls: this
// binary links libgz_faultfs.so (tests/support/fault_fs.cc), whose write,
// fsync, close, rename and open come before libc's and fail on the paths
// GZ_FAULT_PATH_SUBSTR names.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/harness/temp_dir.h"

extern "C" long long gz_fault_injected(void);
extern "C" void gz_fault_reset_bytes(void);

namespace gz {
namespace {

namespace fs = std::filesystem;
using testing::FreshTestDir;

// Faults on paths containing `substr` for this scope (the shim reads its
// settings at every call).
class FaultScope {
 public:
  FaultScope(const std::string& substr, const std::string& ops, const std::string& err, long long after_bytes = 0) {
    setenv("GZ_FAULT_PATH_SUBSTR", substr.c_str(), 1);
    setenv("GZ_FAULT_OPS", ops.c_str(), 1);
    setenv("GZ_FAULT_ERRNO", err.c_str(), 1);
    setenv("GZ_FAULT_AFTER_BYTES", std::to_string(after_bytes).c_str(), 1);
    gz_fault_reset_bytes();
  }
  ~FaultScope() {
    for (const char* k : {"GZ_FAULT_PATH_SUBSTR", "GZ_FAULT_OPS", "GZ_FAULT_ERRNO", "GZ_FAULT_AFTER_BYTES"})
      unsetenv(k);
  }
};

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("WriteFileAtomic replaces the whole file and leaves no temp file") {
  const std::string dir = FreshTestDir("fileio_atomic");
  const std::string path = dir + "/a.json";
  WriteFileAtomic(path, "first\n");
  CHECK(ReadFileOrThrow(path) == "first\n");
  const std::string big(300000, 'x');
  WriteFileAtomic(path, big);
  CHECK(ReadFileOrThrow(path) == big);
  WriteFileAtomic(path, "");
  CHECK(ReadFileOrThrow(path).empty());
  CHECK(Names(dir) == std::vector<std::string>{"a.json"});
  // A directory that does not exist: the error names the file.
  const std::string e = ErrorOf([&] { WriteFileAtomic(dir + "/no/such/b.json", "x"); });
  CHECK(Contains(e, dir + "/no/such/b.json"));
  CHECK(Contains(e, std::strerror(ENOENT)));
}

TEST_CASE("AppendLine creates, appends whole lines, and fails naming the file") {
  const std::string dir = FreshTestDir("fileio_append");
  const std::string path = dir + "/log.jsonl";
  AppendLine(path, "{\"a\":1}");
  AppendLine(path, "{\"a\":2}");
  AppendLine(path, "");
  CHECK(ReadFileOrThrow(path) == "{\"a\":1}\n{\"a\":2}\n\n");
  const std::string e = ErrorOf([&] { AppendLine(dir + "/missing/x.jsonl", "x"); });
  CHECK(Contains(e, dir + "/missing/x.jsonl"));
}

TEST_CASE("temp names: TempFileTarget parses X.tmp.<pid>.<n>; RemoveTempFilesOf removes only the owned ones") {
  CHECK(TempFileTarget("metadata.json.tmp.123.0") == std::optional<std::string>("metadata.json"));
  CHECK(TempFileTarget("w0_g5.npz.tmp.99999.17") == std::optional<std::string>("w0_g5.npz"));
  CHECK(TempFileTarget("a.tmp.1.2.tmp.3.4") == std::optional<std::string>("a.tmp.1.2"));
  for (const char* not_temp : {"metadata.json", "x.tmp", "x.tmp.1", "x.tmp.a.1", "x.tmp.1.b", ".tmp.1.2", "x.tmp..1",
                               "x.tmpz.1.2", "x.tmp.1."})
    CHECK_FALSE(TempFileTarget(not_temp).has_value());
  CHECK(IsTempName("metadata.json.tmp.123.0"));

  const std::string dir = FreshTestDir("fileio_tempclean");
  for (const char* name : {"metadata.json", "metadata.json.tmp.11.0", "metadata.json.tmp.12.3", "w0_g1.npz.tmp.5.0",
                           "w1_g1.npz.tmp.5.0", "notes.tmp"})
    WriteFileAtomic(dir + "/" + name, "x");
  const int removed = RemoveTempFilesOf(dir, [](const std::string& target) {
    return target == "metadata.json" || target.rfind("w0_", 0) == 0;
  });
  CHECK(removed == 3);
  CHECK(Names(dir) == std::vector<std::string>{"metadata.json", "notes.tmp", "w1_g1.npz.tmp.5.0"});
  CHECK(RemoveTempFilesOf(dir + "/missing", [](const std::string&) { return true; }) == 0);
}

TEST_CASE("a full or failing disk: WriteFileAtomic keeps the old file, removes its temp file, names file and errno") {
  const std::string dir = FreshTestDir("fileio_atomic_fault");
  const std::string path = dir + "/metadata.json";
  WriteFileAtomic(path, "old contents\n");
  const std::string fresh(100000, 'n');
  struct Case {
    const char* ops;
    const char* err;
    long long after;
    const char* step;
  };
  // ENOSPC mid-file (the first 4096 bytes land), at the first byte, at fsync,
  // at close, at rename; EIO the same; and no inode for the temp file.
  const std::vector<Case> cases = {{"write", "ENOSPC", 4096, "write"}, {"write", "ENOSPC", 0, "write"},
                                   {"fsync", "ENOSPC", 0, "fsync"},    {"close", "EIO", 0, "close"},
                                   {"rename", "EIO", 0, "rename"},     {"write", "EIO", 100, "write"},
                                   {"fsync", "EIO", 0, "fsync"},       {"open", "ENOSPC", 0, "creating"}};
  for (const Case& c : cases) {
    INFO(c.ops << " " << c.err << " after " << c.after);
    const long long injected_before = gz_fault_injected();
    std::string e;
    {
      FaultScope fault(dir, c.ops, c.err, c.after);
      e = ErrorOf([&] { WriteFileAtomic(path, fresh); });
    }
    CHECK(gz_fault_injected() == injected_before + 1);  // the fault really happened
    CHECK(Contains(e, "'" + path + "'"));
    CHECK(Contains(e, c.step));
    CHECK(Contains(e, std::strerror(std::string(c.err) == "EIO" ? EIO : ENOSPC)));
    CHECK(ReadFileOrThrow(path) == "old contents\n");
    CHECK(Names(dir) == std::vector<std::string>{"metadata.json"});
  }
  // Space is back: the next write publishes.
  WriteFileAtomic(path, fresh);
  CHECK(ReadFileOrThrow(path) == fresh);
}

TEST_CASE("a full or failing disk: AppendLine leaves the file as it was, never a torn line") {
  const std::string dir = FreshTestDir("fileio_append_fault");
  const std::string path = dir + "/generations.jsonl";
  AppendLine(path, "{\"iteration\":1}");
  const std::string before = ReadFileOrThrow(path);
  const std::string line = "{\"iteration\":2,\"pad\":\"" + std::string(20000, 'p') + "\"}";
  for (const auto& [ops, err, after] : std::vector<std::tuple<const char*, const char*, long long>>{
           {"write", "ENOSPC", 10}, {"write", "ENOSPC", 0}, {"fsync", "EIO", 0}, {"write", "EIO", 8192}}) {
    INFO(ops << " " << err << " after " << after);
    const long long injected_before = gz_fault_injected();
    std::string e;
    {
      FaultScope fault(dir, ops, err, after);
      e = ErrorOf([&] { AppendLine(path, line); });
    }
    CHECK(gz_fault_injected() == injected_before + 1);
    CHECK(Contains(e, "'" + path + "'"));
    CHECK(Contains(e, std::strerror(std::string(err) == "EIO" ? EIO : ENOSPC)));
    CHECK(ReadFileOrThrow(path) == before);  // cut back: no partial line
  }
  AppendLine(path, line);
  CHECK(ReadFileOrThrow(path) == before + line + "\n");
}

}  // namespace gz
