#include "common/net/checkpoint.h"

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "common/game/encoder.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/checkpoint_format.h"

namespace gz {
namespace {

// Every parameter then every buffer, in the module's registration order.
std::vector<std::pair<std::string, torch::Tensor>> StateTensors(PolicyValueNetImpl& net) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : net.named_parameters(/*recurse=*/true)) out.emplace_back(p.key(), p.value());
  for (const auto& b : net.named_buffers(/*recurse=*/true)) out.emplace_back(b.key(), b.value());
  return out;
}

std::string DtypeName(const torch::Tensor& t, const std::string& name) {
  if (t.scalar_type() == torch::kFloat) return "float32";
  if (t.scalar_type() == torch::kLong) return "int64";
  GOMOKU_THROW(ModelError, "tensor '" << name << "' has dtype " << t.scalar_type()
                                      << "; checkpoints hold float32 and int64 only");
}

// Index of the first non-finite float in [p, p + n), or -1.
int64_t FirstNonFinite(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return i;
  return -1;
}

PolicyValueNet ParseValidated(std::string_view file, const std::string& path, const CheckpointExpect& expect,
                              CheckpointInfo* info_out) {
  const CheckpointHeader h = ValidateCheckpointBytes(file, path);
  CheckExpectations(h.info, expect, path);
  if (h.info.channels > PolicyValueNetImpl::kMaxChannels || h.info.blocks > PolicyValueNetImpl::kMaxBlocks)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': " << h.info.channels << " channels x " << h.info.blocks
                                            << " blocks exceeds this build's limits");

  PolicyValueNet net(h.info.board_size, h.info.channels, h.info.blocks, h.info.heads);
  auto state = StateTensors(*net);
  std::vector<CheckpointTensorEntry> want;
  for (const auto& [name, t] : state) want.push_back({name, t.sizes().vec(), DtypeName(t, name)});
  CheckTensorList(h, want, path);

  torch::NoGradGuard no_grad;
  const char* p = file.data() + kCheckpointFixedHeaderBytes + h.json_len;
  for (size_t i = 0; i < state.size(); ++i) {
    torch::Tensor& dst = state[i].second;
    torch::Tensor src = torch::empty(dst.sizes(), torch::TensorOptions().dtype(dst.scalar_type()));
    const size_t bytes = static_cast<size_t>(h.tensors[i].Bytes());
    std::memcpy(src.data_ptr(), p, bytes);
    p += bytes;
    if (src.scalar_type() == torch::kFloat) {
      const int64_t bad = FirstNonFinite(src.data_ptr<float>(), src.numel());
      if (bad >= 0)
        GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor '" << state[i].first << "' element " << bad
                                                << " is " << src.data_ptr<float>()[bad] << " (NaN/Inf weights)");
    }
    dst.copy_(src);
  }
  if (info_out) *info_out = h.info;
  return net;
}

}  // namespace

std::string SerializeCheckpoint(PolicyValueNet& net, const CheckpointInfo& info_in) {
  auto check = [](const char* what, int given, int have) {
    if (given != 0 && given != have)
      GOMOKU_THROW(ModelError, "SaveCheckpoint: info says " << what << " " << given << " but the net has " << have);
  };
  check("board size", info_in.board_size, net->board_size);
  check("channels", info_in.channels, net->channels);
  check("blocks", info_in.blocks, net->blocks);
  CheckpointInfo info = info_in;
  info.heads = net->heads;  // from the net, like the shape fields
  info.format_version = static_cast<int>(CheckpointFormatVersionFor(info));
  info.encoder_version = kEncoderVersion;
  info.board_size = net->board_size;
  info.channels = net->channels;
  info.blocks = net->blocks;
  if (info.rule.empty()) info.rule = RuleName(Rule::kFreestyle);
  info.rule = RuleName(ParseRule(info.rule));  // validates; throws ConfigError
  if (info.iteration < 0 || info.model_generation < 0)
    GOMOKU_THROW(ModelError, "SaveCheckpoint: negative iteration or model_generation");

  std::vector<CheckpointTensorEntry> entries;
  std::vector<torch::Tensor> cpu;
  try {
    torch::NoGradGuard no_grad;
    for (auto& [name, t] : StateTensors(*net)) {
      torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
      if (c.scalar_type() == torch::kFloat && FirstNonFinite(c.data_ptr<float>(), c.numel()) >= 0)
        GOMOKU_THROW(ModelError, "refusing to save a checkpoint: tensor '" << name << "' has NaN/Inf values");
      entries.push_back({name, c.sizes().vec(), DtypeName(c, name)});
      cpu.push_back(std::move(c));
    }
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ModelError, "SaveCheckpoint: cannot read the network's tensors: " << e.what_without_backtrace());
  }
  const std::string json_text = BuildHeaderJson(info, entries);
  std::string out;
  uint64_t data_bytes = 0;
  for (const auto& e : entries) data_bytes += e.Bytes();
  out.reserve(kCheckpointFixedHeaderBytes + json_text.size() + data_bytes + kCheckpointTrailerBytes);
  AppendFixedHeader(json_text, static_cast<uint32_t>(info.format_version), &out);
  out += json_text;
  for (const auto& c : cpu) out.append(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
  const uint32_t crc = Crc32(out.data(), out.size());
  out.append(reinterpret_cast<const char*>(&crc), sizeof crc);
  return out;
}

void SaveCheckpoint(const std::string& path, PolicyValueNet& net, const CheckpointInfo& info) {
  WriteFileAtomic(path, SerializeCheckpoint(net, info));
}

PolicyValueNet ParseCheckpoint(std::string_view file, const std::string& path, const CheckpointExpect& expect,
                               CheckpointInfo* info) {
  try {
    return ParseValidated(file, path, expect, info);
  } catch (const c10::Error& e) {
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "' could not be loaded: " << e.what_without_backtrace());
  }
}

PolicyValueNet LoadCheckpoint(const std::string& path, const CheckpointExpect& expect, CheckpointInfo* info) {
  const std::string file = ReadFileOrThrow(path);
  return ParseCheckpoint(file, path, expect, info);
}

}  // namespace gz
