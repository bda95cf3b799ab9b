#include "trainer/game_files.h"

#include <algorithm>
#include <filesystem>

#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {

namespace fs = std::filesystem;

const char* GameVerdictName(GameVerdict v) {
  switch (v) {
    case GameVerdict::kUsable: return "usable";
    case GameVerdict::kCorrupt: return "corrupt";
    case GameVerdict::kStale: return "stale";
    case GameVerdict::kIncompatible: return "incompatible";
  }
  return "?";
}

std::string BoardSizesText(const std::set<int>& sizes) {
  std::string out;
  size_t i = 0;
  for (int s : sizes) {
    if (i > 0) out += i + 1 == sizes.size() ? " or " : ", ";
    out += std::to_string(s) + "x" + std::to_string(s);
    ++i;
  }
  return out;
}

GameVerdict LoadAndCheckGame(const std::string& path, const GameExpect& expect, GameRecord* out,
                             std::string* reason) {
  try {
    *out = LoadGameRecord(path);
  } catch (const GomokuError& e) {
    *reason = e.what();
    return GameVerdict::kCorrupt;
  }
  if (!expect.board_sizes.count(out->board_size) || out->rule != expect.rule) {
    *reason = "game is " + std::to_string(out->board_size) + "x" + std::to_string(out->board_size) + " " +
              RuleName(out->rule) + ", the run is " + BoardSizesText(expect.board_sizes) + " " + RuleName(expect.rule);
    return GameVerdict::kIncompatible;
  }
  if (out->iteration != expect.iteration) {
    *reason = "game is tagged iteration " + std::to_string(out->iteration) + ", expected " +
              std::to_string(expect.iteration);
    return GameVerdict::kStale;
  }
  if (out->num_moves() == 0) {
    *reason = "game has no searched moves";
    return GameVerdict::kCorrupt;
  }
  return GameVerdict::kUsable;
}

std::vector<std::string> ListGameFiles(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (IsTempName(name)) continue;
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".npz") != 0) continue;
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

int RemoveAbandonedTempFiles(const std::string& dir, double min_age_s) {
  int removed = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!IsTempName(it->path().filename().string())) continue;
    std::error_code ec2;
    auto t = fs::last_write_time(it->path(), ec2);
    if (ec2) continue;
    double age = std::chrono::duration<double>(now - t).count();
    if (age >= min_age_s && fs::remove(it->path(), ec2)) ++removed;
  }
  return removed;
}

}  // namespace gz
