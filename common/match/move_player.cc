#include "common/match/move_player.h"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gz {

const char* MoveReasonName(MoveReason reason) {
  switch (reason) {
    case MoveReason::kWin: return "win";
    case MoveReason::kBlock: return "block";
    case MoveReason::kProven: return "proven";
    case MoveReason::kSearch: break;
  }
  return "search";
}

void to_json(nlohmann::json& j, MoveReason reason) { j = MoveReasonName(reason); }

std::string BoardSizeOutOfRange(int size) {
  if (size >= kMinBoardSize && size <= kMaxBoardSize) return "";
  std::ostringstream why;
  why << "board size " << size << " is not supported (this engine plays " << kMinBoardSize << ".." << kMaxBoardSize
      << ")";
  return why.str();
}

std::string FormatValue(float v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%+.2f", static_cast<double>(v));
  return buf;
}

}  // namespace gz
