// Saving and loading PolicyValueNet checkpoints in our own format (layout in
// checkpoint_format.h and docs/network.md; not torch::save pickles).
//
// A checkpoint holds every parameter AND buffer (BatchNorm running stats) of
// the network, in named_parameters() then named_buffers() order, so a loaded
// network computes exactly what the saved one did, in train or eval mode.
//
// Thread-safety: the functions are thread-safe for distinct nets; the net
// passed to SaveCheckpoint must not be modified concurrently.
#pragma once

#include <string>
#include <string_view>

#include "common/net/checkpoint_info.h"
#include "common/net/model.h"

namespace gz {

// Serialises `net` (any device; copied to the CPU) with the provenance fields
// of `info` (rule, iteration, model_generation, seed).  board_size, channels
// and blocks are taken from the net; a non-zero value in `info` that differs
// throws ModelError.  Throws ModelError if any weight is NaN/Inf (a diverged
// net is never published).
std::string SerializeCheckpoint(PolicyValueNet& net, const CheckpointInfo& info);

// SerializeCheckpoint + WriteFileAtomic(path).  Throws ModelError / IoError.
void SaveCheckpoint(const std::string& path, PolicyValueNet& net, const CheckpointInfo& info);

// Loads a checkpoint onto the CPU (caller moves it to a device and picks
// train()/eval(); the module is returned in train mode as constructed).
// Validates magic, format version, lengths, CRC-32, encoder version, the
// tensor list against the architecture, `expect`, and that every float is
// finite.  Throws IoError (cannot read) or ModelError naming the problem;
// never returns a partly loaded net.  Fills *info when non-null.
PolicyValueNet LoadCheckpoint(const std::string& path, const CheckpointExpect& expect = {},
                              CheckpointInfo* info = nullptr);

// LoadCheckpoint from bytes already in memory; `path` only names the source in
// error messages.
PolicyValueNet ParseCheckpoint(std::string_view file, const std::string& path, const CheckpointExpect& expect = {},
                               CheckpointInfo* info = nullptr);

}  // namespace gz
