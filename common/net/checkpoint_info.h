// What every forward and every loader knows of a checkpoint: its header
// (CheckpointInfo), the kind of its heads (NetHeads), what a loader expects of
// it (CheckpointExpect), which sizes it plays, and the header read alone.
// Torch-free; the bottom of common/net (library gomoku_net_format, which
// defines these functions in checkpoint_info.cc and ReadCheckpointInfo in
// checkpoint_format.cc): the native forward, LibTorch's, the checkpoint format
// and the factory (net_api.h, forward_choice.h) all build on it.
//
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace gz {

// The network's heads (docs/network.md "Heads"): kFc, fully connected, plays
// only the board size it was made for; kConv, 1x1 convolutions, plays any size.
// Text ("fc" | "conv") only where it meets a file, a flag or a log.
enum class NetHeads : uint8_t { kFc = 0, kConv = 1 };
// "fc" | "conv".
const char* NetHeadsName(NetHeads heads);
// Throws ModelError naming `name` when it is neither "fc" nor "conv".
NetHeads ParseNetHeads(const std::string& name);
// Writes NetHeadsName: logs and messages print the name, never the number.
std::ostream& operator<<(std::ostream& os, NetHeads heads);
// The same in JSON (nlohmann's to_json): a header or record holds the name.
void to_json(nlohmann::json& j, NetHeads heads);

struct CheckpointInfo {
  int format_version = 0;
  int board_size = 0;
  std::string rule;
  int encoder_version = 0;
  int channels = 0;
  int blocks = 0;
  int64_t iteration = 0;
  int64_t model_generation = 0;
  uint64_t seed = 0;
  // kFc for format version 1 files (which have no "heads" field), and the default.
  // A conv checkpoint's board_size is the size it was made for; it plays any size.
  NetHeads heads = NetHeads::kFc;
  // The search settings of the run that trained the net (format version 3,
  // "play" in the header): config key -> value as `--set key=value` takes it,
  // e.g. {"mcts.solver": "true"}.  Players adopt them for every key nobody set
  // explicitly (Config::AdoptPlaySettings), so the net plays as it was rated.
  // Empty: none recorded (versions 1 and 2).
  std::map<std::string, std::string> play;
};

// Whether a checkpoint can play boards of `size`: fc heads only at
// info.board_size, conv heads at any size in [kMinBoardSize, kMaxBoardSize].
bool CheckpointPlaysSize(const CheckpointInfo& info, int size);

// What a loader expects; -1/empty = don't care.
struct CheckpointExpect {
  // The size the loaded forward will play: fc checkpoints must have it, conv
  // checkpoints accept any size in range and the forward then runs at it.
  int board_size = -1;
  int channels = -1;
  int blocks = -1;
};

// Reads and validates the header only (cheap; checkpoint_format.h
// ReadCheckpointHeader).  Throws ModelError naming the problem, IoError when
// the file cannot be opened.
CheckpointInfo ReadCheckpointInfo(const std::string& path);

}  // namespace gz
