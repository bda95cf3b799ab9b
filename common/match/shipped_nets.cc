#include "common/match/shipped_nets.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <unistd.h>
#endif

#include <algorithm>
#include <climits>
#include <filesystem>

#include "common/base/errors.h"
#include "common/net/net_api.h"

namespace gz {

namespace fs = std::filesystem;

namespace {

// The .pt files of `dir`, newest first (names end in their date); none when
// it is no directory.
std::vector<std::string> NetNamesNewestFirst(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return names;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".pt") names.push_back(entry.path().filename().string());
  std::sort(names.rbegin(), names.rend());
  return names;
}

}  // namespace

std::vector<std::string> ShippedNetDirs(const std::string& executable_dir) {
  // build/bin/<binary> in a checkout; <folder>/<binary> in an engine folder;
  // then the checkout the binary was built from (a build folder elsewhere),
  // unless that is the first place already.
  std::vector<std::string> dirs = {(fs::path(executable_dir) / ".." / ".." / "nets").lexically_normal().string(),
                                   (fs::path(executable_dir) / "nets").lexically_normal().string()};
  const std::string source_nets = fs::path(GOMOKU_SOURCE_NETS_DIR).lexically_normal().string();
  if (source_nets != dirs[0]) dirs.push_back(source_nets);
  return dirs;
}

std::string NewestShippedNet(const std::vector<std::string>& dirs, int size, const std::string& rule) {
  for (const std::string& dir : dirs) {
    const std::vector<std::string> names = NetNamesNewestFirst(dir);
    std::string any_size;  // the newest conv net of the rule made for another size
    for (const std::string& name : names) {
      const std::string path = (fs::path(dir) / name).string();
      try {
        const CheckpointInfo info = ReadCheckpointInfo(path);
        if (info.rule != rule) continue;
        if (size == 0 || info.board_size == size) return path;
        if (any_size.empty() && CheckpointPlaysSize(info, size)) any_size = path;
      } catch (const GomokuError&) {
        // A damaged file in nets/ is skipped; the next one may do.
      }
    }
    if (!any_size.empty()) return any_size;
  }
  return "";
}

std::vector<std::string> ShippedLeagueNets(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    const std::vector<std::string> names = NetNamesNewestFirst(dir);
    std::vector<std::string> nets;
    std::vector<std::pair<std::string, int>> seen;  // (rule, size) already taken
    for (const std::string& name : names) {
      const std::string path = (fs::path(dir) / name).string();
      try {
        const CheckpointInfo info = ReadCheckpointInfo(path);
        const std::pair<std::string, int> key{info.rule, info.board_size};
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        if (info.rule == "freestyle" && info.board_size == 15) nets.insert(nets.begin(), path);
        else nets.push_back(path);
      } catch (const GomokuError&) {
        // A damaged file in nets/ is skipped.
      }
    }
    if (!nets.empty()) return nets;
  }
  return {};
}

std::string ExecutableDir() {
#if defined(_WIN32)
  // The engine-only Windows build (cmake/engine_only.cmake): the .exe's own path.
  std::wstring buf(32768, L'\0');
  const DWORD n = ::GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
  if (n == 0 || n >= buf.size()) return ".";
  buf.resize(n);
  return fs::path(buf).parent_path().string();
#else
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return fs::path(buf).parent_path().string();
#endif
}

}  // namespace gz
