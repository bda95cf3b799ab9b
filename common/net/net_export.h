// The net exporter (the program: tools/export_net.cc): a GZCK checkpoint -> a numpy-readable .npz
// of every tensor of the net, plus optionally a check file of encoded
// positions with the C++ forward's outputs, so that the net can be rebuilt
// and verified outside our code (tools/net_to_torch.py: PyTorch, TorchScript,
// ONNX).  Format: docs/file-formats.md, "Exported nets".
//
// The net file (format "gomoku-zero-net", version kNetExportFormatVersion):
//   header          uint8 [B]  UTF-8 JSON (see NetExportHeader)
//   <tensor name>   one array per parameter and buffer, named as in the model
//                   (model.h: "input_conv.weight", "tower.0.bn1.running_mean",
//                   ...): float32 ("<f4"), num_batches_tracked int64 ("<i8")
// The check file (format "gomoku-zero-net-check", same version):
//   header          uint8 [B]  UTF-8 JSON (seed, positions, board_size, rule, ...)
//   planes          float32 [N, kNumPlanes, S, S]  EncodePosition(pos, sym 0)
//   log_policy      float32 [N, S*S]  the C++ forward's outputs (eval mode)
//   value           float32 [N]
//   move_count      int32 [N]         stones on the board of each position
//
// Thread-safety: plain functions; a net must not be shared between threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/data/npz.h"
#include "common/game/board.h"
#include "common/net/checkpoint_info.h"
#include "common/net/model.h"

namespace gz {

constexpr const char* kNetExportFormat = "gomoku-zero-net";
constexpr const char* kNetCheckFormat = "gomoku-zero-net-check";
constexpr int kNetExportFormatVersion = 1;
// The name of the header entry in both files (no tensor of the model has it).
constexpr const char* kNetExportHeaderKey = "header";
// --check-positions at most this many (the npz writer has no zip64).
constexpr int kMaxCheckPositions = 100000;

// The JSON header of an exported net: format, format_version, encoder_version,
// rule, board_size, board_sizes, channels, blocks, heads, iteration,
// model_generation, seed, checkpoint_format_version, source, architecture,
// input, outputs, tensors.  `source` names the checkpoint (its file name).
nlohmann::json NetExportHeader(PolicyValueNet& net, const CheckpointInfo& info, const std::string& source);

// Every array of the net file: the header and every parameter and buffer.
std::map<std::string, NpyArray> NetExportArrays(PolicyValueNet& net, const CheckpointInfo& info,
                                                const std::string& source);

// `count` positions of random legal games (uniform random moves) of varied
// lengths on a board of `board_size` under `rule`, never a finished game;
// deterministic in `seed`.
std::vector<Position> RandomCheckPositions(int board_size, Rule rule, int count, uint64_t seed);

// The check file's arrays: the positions' planes and the net's outputs (eval
// mode, no grad, batches of at most 256).
std::map<std::string, NpyArray> CheckExportArrays(PolicyValueNet& net, const CheckpointInfo& info,
                                                  const std::vector<Position>& positions, uint64_t seed,
                                                  const std::string& source);

// A uint8 npy array holding `text` (the header entries).
NpyArray TextNpy(const std::string& text);

struct ExportOptions {
  std::string weights;     // the GZCK checkpoint
  std::string out;         // the net .npz
  int check_positions = 0;  // 0 = no check file
  std::string check_out;   // required when check_positions > 0
  uint64_t check_seed = 1;
  int check_board_size = 0;  // 0 = the checkpoint's; another size only for conv heads
  int threads = 1;         // intra-op threads of the check forward
};

struct ExportSummary {
  CheckpointInfo info;
  int tensors = 0;
  uint64_t net_bytes = 0;
  uint64_t check_bytes = 0;
};

// Bad input: the checkpoint cannot be read or is not a valid checkpoint, or
// the options are malformed.  export_net exits 2 on it.
class ExportInputError : public GomokuError {
 public:
  using GomokuError::GomokuError;
};

// Loads and validates the checkpoint (ExportInputError naming the file and the
// problem), builds both files in memory, then writes them with
// WriteFileAtomic (the net file first, the check file second; if the second
// write fails the first file is removed), so a failure leaves no partial
// output.  IoError when an output cannot be written.
ExportSummary ExportNet(const ExportOptions& options);

}  // namespace gz
