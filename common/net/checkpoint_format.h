// The checkpoint byte layout, without LibTorch (docs/network.md has the table).
//
//   offset 0           4 bytes   magic "GZCK"
//   offset 4           uint32    format version (1 or 2, see below), little-endian
//   offset 8           uint32    json_len, little-endian
//   offset 12          json_len  JSON header (UTF-8): board_size, rule, encoder_version,
//                                channels, blocks, iteration, model_generation, seed,
//                                tensors: [{name, shape, dtype}] in file order
//   offset 12+json_len           raw little-endian tensor data, concatenated in the
//                                order of `tensors` (float32 or int64 as `dtype` says)
//   last 4 bytes       uint32    CRC-32 (fileio.h Crc32) of every byte before it
//
// Versions: 1 has no "heads" field (the net has fc heads); 2 adds the required
// string field "heads" (NetHeadsName: "fc" | "conv"); 3 adds the optional
// object "play" (the run's search settings, CheckpointInfo::play: string keys,
// boolean / number / string values).  The writer uses the oldest version that
// can express the net: fc nets without play settings are written as version 1,
// byte for byte what builds before version 2 wrote (and can read), conv nets
// as version 2, any net with play settings as version 3.  All three are read;
// any other version, a "heads" field before version 2 (or none from 2 on), a
// "play" field before version 3, a malformed "play", or heads this build does
// not know are refused naming the problem.
//
// Every function here throws ModelError naming `path` and the problem; none
// reads past the bytes it is given.  Pure functions, thread-safe.
//
// Built in the Torch-free library gomoku_net_format (with play_settings.cc; this
// file's .cc also defines checkpoint_info.h's ReadCheckpointInfo and
// CheckpointPlaysSize), which gomoku_net links:
// a build without LibTorch (the native forward, common/net/native/) links it alone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/net/checkpoint_info.h"

namespace gz {

constexpr char kCheckpointMagic[4] = {'G', 'Z', 'C', 'K'};
constexpr uint32_t kCheckpointFormatVersion = 3;      // the newest this build reads and writes
constexpr uint32_t kCheckpointOldestFormatVersion = 1;  // the oldest it reads (fc heads, no "heads" field)
constexpr size_t kCheckpointFixedHeaderBytes = 12;  // magic + version + json_len
constexpr size_t kCheckpointTrailerBytes = 4;       // CRC-32
constexpr uint32_t kCheckpointMaxJsonBytes = 16u << 20;

struct CheckpointTensorEntry {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;  // "float32" | "int64"
  uint64_t Bytes() const;
};

struct CheckpointHeader {
  CheckpointInfo info;
  std::vector<CheckpointTensorEntry> tensors;
  uint32_t json_len = 0;
  uint64_t data_bytes = 0;  // sum of tensors' Bytes()
  // The file size this header implies (fixed header + JSON + data + CRC).
  uint64_t ExpectedFileSize() const;
};

// The format version a checkpoint of `info` is written with: 3 with play
// settings, else 1 for fc heads and 2 for conv.
uint32_t CheckpointFormatVersionFor(const CheckpointInfo& info);

// Bytes per element of a dtype name; ModelError for an unknown name.
size_t DtypeBytes(const std::string& dtype, const std::string& path);

// Checks magic, format version and that json_len fits in `file_size`.
// `prefix` holds at least the first kCheckpointFixedHeaderBytes of the file
// (fewer means the file is truncated).  Returns json_len; the format version
// goes to *format_version when non-null.
uint32_t CheckFixedHeader(std::string_view prefix, uint64_t file_size, const std::string& path,
                          uint32_t* format_version = nullptr);

// Checks the CRC-32 trailer of a whole file.
void CheckCrc(std::string_view file, const std::string& path);

// Parses and validates the JSON header: required fields and types, ranges,
// rule name, encoder version == kEncoderVersion, the "heads" field as
// `format_version` (the fixed header's) requires it, tensor list well-formed.
CheckpointHeader ParseHeaderJson(std::string_view json, uint32_t json_len, const std::string& path,
                                 uint32_t format_version);

// ModelError when file_size is not the size the header implies (truncated
// file, or trailing bytes).
void CheckImpliedSize(const CheckpointHeader& h, uint64_t file_size, const std::string& path);

// Every check of a whole checkpoint held in memory that needs no LibTorch, in
// the loader's order: fixed header, CRC-32, JSON header, implied size.
CheckpointHeader ValidateCheckpointBytes(std::string_view file, const std::string& path);

// ModelError naming both values when the checkpoint does not match `expect`.
void CheckExpectations(const CheckpointInfo& info, const CheckpointExpect& expect, const std::string& path);

// ModelError unless the header's tensor list is `want` in order (names,
// shapes, dtypes): the first difference is named, with the architecture
// (channels x blocks, heads, size) that expects it.  The loaders (LibTorch's
// and the native forward's) pass their architecture's list.
void CheckTensorList(const CheckpointHeader& h, const std::vector<CheckpointTensorEntry>& want, const std::string& path);

// Builds the JSON header text (deterministic: keys sorted, no whitespace);
// "heads" is written when CheckpointFormatVersionFor(info) >= 2.
std::string BuildHeaderJson(const CheckpointInfo& info, const std::vector<CheckpointTensorEntry>& tensors);

// Appends the fixed header for `json` (format version `format_version`) to `out`.
void AppendFixedHeader(const std::string& json, uint32_t format_version, std::string* out);

// Reads the fixed header and JSON of a file without reading the tensor data;
// checks the file size matches what the header implies.  IoError if the file
// cannot be opened.
CheckpointHeader ReadCheckpointHeader(const std::string& path);

}  // namespace gz
