#include "common/net/checkpoint_format.h"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/game/renju.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"

namespace gz {

static_assert(std::endian::native == std::endian::little,
              "the checkpoint format stores little-endian data; add byte swapping for this host");

namespace {

using nlohmann::json;

constexpr int64_t kMaxDim = int64_t{1} << 24;
constexpr int kMaxTensors = 4096;

uint32_t ReadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void AppendU32(uint32_t v, std::string* out) { out->append(reinterpret_cast<const char*>(&v), sizeof v); }

const json& Field(const json& j, const char* key, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header lacks field '" << key << "'");
  return *it;
}

int64_t IntField(const json& j, const char* key, int64_t lo, int64_t hi, const std::string& path) {
  const json& v = Field(j, key, path);
  if (!v.is_number_integer())
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field '" << key << "' is not an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field '" << key << "' is out of range");
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field '" << key << "' = " << x << " outside [" << lo
                                            << ", " << hi << "]");
  return x;
}

}  // namespace

uint64_t CheckpointTensorEntry::Bytes() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);  // dims bounded by kMaxDim at parse time
  return n * (dtype == "int64" ? 8 : 4);
}

uint64_t CheckpointHeader::ExpectedFileSize() const {
  return kCheckpointFixedHeaderBytes + json_len + data_bytes + kCheckpointTrailerBytes;
}

uint32_t CheckpointFormatVersionFor(const CheckpointInfo& info) {
  if (!info.play.empty()) return 3;
  return info.heads == NetHeads::kFc ? kCheckpointOldestFormatVersion : 2;
}

size_t DtypeBytes(const std::string& dtype, const std::string& path) {
  if (dtype == "float32") return 4;
  if (dtype == "int64") return 8;
  GOMOKU_THROW(ModelError, "checkpoint '" << path << "': unknown tensor dtype '" << dtype << "'");
}

uint32_t CheckFixedHeader(std::string_view prefix, uint64_t file_size, const std::string& path,
                          uint32_t* format_version) {
  if (file_size < kCheckpointFixedHeaderBytes + kCheckpointTrailerBytes || prefix.size() < kCheckpointFixedHeaderBytes)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is truncated: " << file_size << " bytes");
  if (std::memcmp(prefix.data(), kCheckpointMagic, 4) != 0)
    GOMOKU_THROW(ModelError, "'" << path << "' is not a gomoku-zero checkpoint (bad magic)");
  const uint32_t version = ReadU32(prefix.data() + 4);
  if (version < kCheckpointOldestFormatVersion || version > kCheckpointFormatVersion)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' has format version " << version << "; this build reads versions "
                                            << kCheckpointOldestFormatVersion << " to " << kCheckpointFormatVersion);
  if (format_version) *format_version = version;
  const uint32_t json_len = ReadU32(prefix.data() + 8);
  if (json_len == 0 || json_len > kCheckpointMaxJsonBytes ||
      json_len > file_size - kCheckpointFixedHeaderBytes - kCheckpointTrailerBytes)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is truncated or corrupt: header length " << json_len
                                            << " does not fit in " << file_size << " bytes");
  return json_len;
}

void CheckCrc(std::string_view file, const std::string& path) {
  if (file.size() < kCheckpointTrailerBytes)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is truncated: " << file.size() << " bytes");
  const size_t body = file.size() - kCheckpointTrailerBytes;
  const uint32_t stored = ReadU32(file.data() + body);
  const uint32_t actual = Crc32(file.data(), body);
  if (stored != actual)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is corrupt or truncated: CRC-32 mismatch (stored " << std::hex
                                            << stored << ", computed " << actual << ")");
}

namespace {

// The network heads: fc for format version 1 (which has no such field).
void ReadHeads(const json& j, uint32_t format_version, const std::string& path, CheckpointInfo* info) {
  if (format_version == 1) {
    if (j.contains("heads"))
      GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'heads' needs format version 2, but the "
                                              << "file says version 1");
    info->heads = NetHeads::kFc;
    return;
  }
  const json& heads = Field(j, "heads", path);
  if (!heads.is_string()) GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'heads' is not a string");
  const std::string name = heads.get<std::string>();
  if (name != NetHeadsName(NetHeads::kFc) && name != NetHeadsName(NetHeads::kConv))
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' has network heads '" << name
                                            << "', which this build does not know (it knows fc and conv)");
  info->heads = ParseNetHeads(name);
}

// The play settings the net ships with (format version 3 on): strings, kept as
// written; booleans and numbers, kept as their JSON text.
// A renju net saw the forbidden points of one reading of the rules (renju.h
// kRenjuRulesVersion) in its input plane and its legal moves; a net of a
// reading with other forbidden points (before kRenjuOldestNetVersion) or of a
// newer build is refused.  Absent: made before the field existed (version 1).
void ReadRenjuVersion(const json& j, const std::string& path, const CheckpointInfo& info) {
  if (info.rule != RuleName(Rule::kRenju)) return;
  const int64_t v = j.contains("renju_version") ? IntField(j, "renju_version", 0, 1 << 30, path) : 1;
  if (v < kRenjuOldestNetVersion || v > kRenjuRulesVersion)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is a renju net of renju rules version " << v
                                            << "; this build plays version " << kRenjuRulesVersion << " and loads nets of "
                                            << kRenjuOldestNetVersion << " to " << kRenjuRulesVersion
                                            << " (its forbidden points differ, see common/game/renju.h): "
                                            << "train a new checkpoint");
}

// A caro net of the reading before the edge closed an end (board.h
// kCaroRulesVersion 1; absent: made before the field) still loads; a newer
// one than this build is refused.
void ReadCaroVersion(const json& j, const std::string& path, const CheckpointInfo& info) {
  if (info.rule != RuleName(Rule::kCaro) && info.rule != RuleName(Rule::kCaroOverline)) return;
  const int64_t v = j.contains("caro_version") ? IntField(j, "caro_version", 0, 1 << 30, path) : 1;
  if (v < kCaroOldestNetVersion || v > kCaroRulesVersion)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is a caro net of caro rules version " << v
                                            << "; this build plays version " << kCaroRulesVersion << " and loads nets of "
                                            << kCaroOldestNetVersion << " to " << kCaroRulesVersion
                                            << " (see common/game/board.h): train a new checkpoint");
}

void ReadPlaySettings(const json& j, uint32_t format_version, const std::string& path, CheckpointInfo* info) {
  if (format_version < 3 && j.contains("play"))
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'play' needs format version 3, but the file "
                                            << "says version " << format_version);
  if (j.contains("play")) {
    const json& play = j["play"];
    if (!play.is_object() || play.size() > 256)
      GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'play' is not an object of at most 256 "
                                              << "settings");
    for (const auto& [key, value] : play.items()) {
      if (key.empty() || key.size() > 128)
        GOMOKU_THROW(ModelError, "checkpoint '" << path << "': a play setting has an empty or overlong name");
      if (value.is_string()) info->play[key] = value.get<std::string>();
      else if (value.is_boolean() || value.is_number()) info->play[key] = value.dump();
      else
        GOMOKU_THROW(ModelError, "checkpoint '" << path << "': play setting '" << key
                                                << "' is not a boolean, number or string");
    }
  }
}

// One entry of the header's tensor list: its name, a known dtype, at most 8
// dimensions, each and their product in range.
CheckpointTensorEntry ReadTensorEntry(const json& t, size_t index, const std::string& path) {
  CheckpointTensorEntry e;
  if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || !t.contains("shape") ||
      !t["shape"].is_array() || !t.contains("dtype") || !t["dtype"].is_string())
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor entry #" << index
                                            << " lacks a string name, a shape list or a string dtype");
  e.name = t["name"].get<std::string>();
  e.dtype = t["dtype"].get<std::string>();
  DtypeBytes(e.dtype, path);
  if (t["shape"].size() > 8)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor '" << e.name << "' has too many dimensions");
  for (const json& d : t["shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > kMaxDim)
      GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor '" << e.name << "' has a bad dimension " << d.dump());
    e.shape.push_back(d.get<int64_t>());
  }
  // Eight dims of up to 2^24 could overflow uint64: cap each tensor at 2^34 elements.
  uint64_t n = 1;
  for (int64_t d : e.shape) {
    n *= static_cast<uint64_t>(d);
    if (n > (uint64_t{1} << 34))
      GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor '" << e.name << "' is implausibly large");
  }
  return e;
}

}  // namespace

CheckpointHeader ParseHeaderJson(std::string_view text, uint32_t json_len, const std::string& path,
                                 uint32_t format_version) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header is not valid JSON: " << e.what());
  }
  if (!j.is_object()) GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header is not a JSON object");
  CheckpointHeader h;
  h.json_len = json_len;
  CheckpointInfo& info = h.info;
  if (format_version < kCheckpointOldestFormatVersion || format_version > kCheckpointFormatVersion)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' has format version " << format_version
                                            << "; this build reads versions " << kCheckpointOldestFormatVersion
                                            << " to " << kCheckpointFormatVersion);
  info.format_version = static_cast<int>(format_version);
  ReadHeads(j, format_version, path, &info);
  ReadPlaySettings(j, format_version, path, &info);
  info.encoder_version = static_cast<int>(IntField(j, "encoder_version", 0, 1 << 30, path));
  if (info.encoder_version != kEncoderVersion)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' was made for encoder version " << info.encoder_version
                                            << " but this build encodes with version " << kEncoderVersion
                                            << " (" << kNumPlanes << " input planes; version 2 added the renju "
                                            << "forbidden-points plane): the network's input layer does not fit, "
                                            << "train a new checkpoint");
  info.board_size = static_cast<int>(IntField(j, "board_size", kMinBoardSize, kMaxBoardSize, path));
  info.channels = static_cast<int>(IntField(j, "channels", 1, 1 << 16, path));
  info.blocks = static_cast<int>(IntField(j, "blocks", 0, 1 << 16, path));
  info.iteration = IntField(j, "iteration", 0, std::numeric_limits<int64_t>::max(), path);
  info.model_generation = IntField(j, "model_generation", 0, std::numeric_limits<int64_t>::max(), path);
  const json& seed = Field(j, "seed", path);
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0))
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'seed' is not an unsigned integer");
  info.seed = seed.get<uint64_t>();
  const json& rule = Field(j, "rule", path);
  if (!rule.is_string()) GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'rule' is not a string");
  try {
    info.rule = RuleName(ParseRule(rule.get<std::string>()));
  } catch (const GomokuError& e) {
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': " << e.what());
  }
  ReadRenjuVersion(j, path, info);
  ReadCaroVersion(j, path, info);

  const json& tensors = Field(j, "tensors", path);
  if (!tensors.is_array() || tensors.size() > static_cast<size_t>(kMaxTensors))
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': header field 'tensors' is not a list of at most "
                                            << kMaxTensors << " entries");
  for (const json& t : tensors) {
    CheckpointTensorEntry e = ReadTensorEntry(t, h.tensors.size(), path);
    h.data_bytes += e.Bytes();
    h.tensors.push_back(std::move(e));
  }
  return h;
}

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

}  // namespace

void CheckTensorList(const CheckpointHeader& h, const std::vector<CheckpointTensorEntry>& want, const std::string& path) {
  const std::string arch = std::to_string(h.info.channels) + "x" + std::to_string(h.info.blocks) + " " +
                           NetHeadsName(h.info.heads) + "-heads on " + std::to_string(h.info.board_size) + "x" +
                           std::to_string(h.info.board_size);
  if (want.size() != h.tensors.size())
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' holds " << h.tensors.size() << " tensors but the " << arch
                                            << " architecture has " << want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& e = h.tensors[i];
    if (e.name != want[i].name || e.shape != want[i].shape || e.dtype != want[i].dtype)
      GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor #" << i << " is '" << e.name << "' "
                                              << ShapeString(e.shape) << " " << e.dtype << " but the " << arch
                                              << " architecture expects '" << want[i].name << "' "
                                              << ShapeString(want[i].shape) << " " << want[i].dtype);
  }
}

void CheckExpectations(const CheckpointInfo& info, const CheckpointExpect& expect, const std::string& path) {
  auto check = [&](const char* what, int want, int have) {
    if (want >= 0 && want != have)
      GOMOKU_THROW(ModelError, "checkpoint '" << path << "' has " << what << " " << have << " but " << want
                                              << " was expected");
  };
  // Conv heads play every size in range (CheckpointPlaysSize); fc heads only their own.
  if (expect.board_size >= 0 && !CheckpointPlaysSize(info, expect.board_size))
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' has board size " << info.board_size << " but "
                                            << expect.board_size << " was expected"
                                            << (info.heads == NetHeads::kFc
                                                    ? " (fc heads play only the size they were made for)"
                                                    : ""));
  check("channels", expect.channels, info.channels);
  check("blocks", expect.blocks, info.blocks);
}

std::string BuildHeaderJson(const CheckpointInfo& info, const std::vector<CheckpointTensorEntry>& tensors) {
  json list = json::array();
  for (const auto& t : tensors) list.push_back({{"name", t.name}, {"shape", t.shape}, {"dtype", t.dtype}});
  json j = {{"board_size", info.board_size},
            {"rule", info.rule},
            {"encoder_version", info.encoder_version},
            {"channels", info.channels},
            {"blocks", info.blocks},
            {"iteration", info.iteration},
            {"model_generation", info.model_generation},
            {"seed", info.seed},
            {"tensors", list}};
  if (CheckpointFormatVersionFor(info) >= 2) j["heads"] = NetHeadsName(info.heads);
  if (info.rule == RuleName(Rule::kRenju)) j["renju_version"] = kRenjuRulesVersion;
  if (info.rule == RuleName(Rule::kCaro) || info.rule == RuleName(Rule::kCaroOverline))
    j["caro_version"] = kCaroRulesVersion;
  if (!info.play.empty()) {
    // Values go in as JSON scalars where they read as one ("true", "0.2"),
    // else as strings; the reader turns both back into --set text.
    json play = json::object();
    for (const auto& [key, text] : info.play) {
      json v;
      try {
        v = json::parse(text);
      } catch (const json::exception&) {
        v = text;
      }
      play[key] = v.is_boolean() || v.is_number() ? v : json(text);
    }
    j["play"] = play;
  }
  return j.dump();
}

void AppendFixedHeader(const std::string& json_text, uint32_t format_version, std::string* out) {
  GOMOKU_CHECK(json_text.size() <= kCheckpointMaxJsonBytes, "checkpoint header too large: " << json_text.size());
  GOMOKU_CHECK(format_version >= kCheckpointOldestFormatVersion && format_version <= kCheckpointFormatVersion,
               "checkpoint format version " << format_version);
  out->append(kCheckpointMagic, 4);
  AppendU32(format_version, out);
  AppendU32(static_cast<uint32_t>(json_text.size()), out);
}

CheckpointHeader ReadCheckpointHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) GOMOKU_THROW(IoError, "cannot open checkpoint '" << path << "'");
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) GOMOKU_THROW(IoError, "cannot stat checkpoint '" << path << "': " << ec.message());
  std::string prefix(kCheckpointFixedHeaderBytes, '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  prefix.resize(static_cast<size_t>(in.gcount()));
  uint32_t version = 0;
  const uint32_t json_len = CheckFixedHeader(prefix, file_size, path, &version);
  std::string text(json_len, '\0');
  in.read(text.data(), json_len);
  if (static_cast<uint32_t>(in.gcount()) != json_len)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is truncated inside its header");
  CheckpointHeader h = ParseHeaderJson(text, json_len, path, version);
  CheckImpliedSize(h, file_size, path);
  return h;
}

// net_api.h's, here so that it needs no LibTorch (gomoku_net_format).
CheckpointInfo ReadCheckpointInfo(const std::string& path) { return ReadCheckpointHeader(path).info; }

void CheckImpliedSize(const CheckpointHeader& h, uint64_t file_size, const std::string& path) {
  if (h.ExpectedFileSize() != file_size)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' is truncated or has trailing bytes: " << file_size
                                            << " bytes but its header implies " << h.ExpectedFileSize());
}

CheckpointHeader ValidateCheckpointBytes(std::string_view file, const std::string& path) {
  uint32_t version = 0;
  const uint32_t json_len = CheckFixedHeader(file, file.size(), path, &version);
  CheckCrc(file, path);
  CheckpointHeader h = ParseHeaderJson(file.substr(kCheckpointFixedHeaderBytes, json_len), json_len, path, version);
  CheckImpliedSize(h, file.size(), path);
  return h;
}

}  // namespace gz
