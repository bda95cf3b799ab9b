#include "common/net/checkpoint_info.h"

#include <ostream>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/game/board.h"

namespace gz {

const char* NetHeadsName(NetHeads heads) { return heads == NetHeads::kConv ? "conv" : "fc"; }

NetHeads ParseNetHeads(const std::string& name) {
  if (name == "fc") return NetHeads::kFc;
  if (name == "conv") return NetHeads::kConv;
  GOMOKU_THROW(ModelError, "unknown network heads '" << name << "' (this build knows fc and conv)");
}

std::ostream& operator<<(std::ostream& os, NetHeads heads) { return os << NetHeadsName(heads); }

void to_json(nlohmann::json& j, NetHeads heads) { j = NetHeadsName(heads); }

bool CheckpointPlaysSize(const CheckpointInfo& info, int size) {
  if (info.heads == NetHeads::kConv) return size >= kMinBoardSize && size <= kMaxBoardSize;
  return size == info.board_size;
}

}  // namespace gz
