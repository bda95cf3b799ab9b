#include "common/harness/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/base/errors.h"

namespace gz::testing {

std::string FreshTestDir(const std::string& name) {
  const std::string dir = std::string(GZ_TEST_TMP) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string TestTmpPath(const std::string& name) {
  std::filesystem::create_directories(GZ_TEST_TMP);
  return std::string(GZ_TEST_TMP) + "/" + name;
}

ShortTempDir::ShortTempDir() {
  char tmpl[] = "/tmp/gzs-XXXXXX";
  if (!::mkdtemp(tmpl)) GOMOKU_THROW(IoError, "mkdtemp: " << std::strerror(errno));
  path_ = tmpl;
}

ShortTempDir::~ShortTempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace gz::testing
