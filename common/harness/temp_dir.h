// Folders for tests.  Under GZ_TEST_TMP (build/test-tmp) a test's files
// outlive it, for a look after a failure; ShortTempDir is for Unix socket
// paths, which are limited to 108 bytes.
#pragma once

#include <string>

namespace gz::testing {

// GZ_TEST_TMP/name, empty: removed (with anything a previous run left there)
// and created again.  `name` may contain '/'.  Two tests must not share a name.
std::string FreshTestDir(const std::string& name);

// GZ_TEST_TMP/name for a file, with GZ_TEST_TMP created; the file is left as it is.
std::string TestTmpPath(const std::string& name);

// A fresh directory /tmp/gzs-XXXXXX, removed with its contents at scope exit.
// Throws IoError when it cannot be created.
class ShortTempDir {
 public:
  ShortTempDir();
  ~ShortTempDir();
  ShortTempDir(const ShortTempDir&) = delete;
  ShortTempDir& operator=(const ShortTempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace gz::testing
