#include "common/net/net_export.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include <torch/torch.h>

#include "common/base/fileio.h"
#include "common/game/encoder.h"
#include "common/net/checkpoint.h"
#include "common/net/checkpoint_format.h"

namespace gz {
namespace {

using nlohmann::json;

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// numpy descr and header dtype name of a tensor.
std::pair<const char*, const char*> DtypeNames(const torch::Tensor& t, const std::string& name) {
  if (t.scalar_type() == torch::kFloat32) return {"<f4", "float32"};
  if (t.scalar_type() == torch::kInt64) return {"<i8", "int64"};
  GOMOKU_THROW(ModelError, "tensor '" << name << "' has dtype " << t.dtype() << ", which the export does not know");
}

NpyArray TensorNpy(const torch::Tensor& tensor, const std::string& name) {
  const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
  NpyArray a;
  a.dtype = DtypeNames(t, name).first;
  a.shape.assign(t.sizes().begin(), t.sizes().end());
  a.data.assign(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
  return a;
}

// (name, tensor, kind) in checkpoint order: parameters, then buffers.
struct NamedTensor {
  std::string name;
  torch::Tensor tensor;
  const char* kind;
};
std::vector<NamedTensor> NetTensors(PolicyValueNet& net) {
  std::vector<NamedTensor> out;
  for (const auto& p : net->named_parameters()) out.push_back({p.key(), p.value(), "parameter"});
  for (const auto& b : net->named_buffers()) out.push_back({b.key(), b.value(), "buffer"});
  return out;
}

json Shape(std::initializer_list<json> dims) { return json(dims); }

// The layers, read from the module, so the header says what the C++ forward does.
json ArchitectureJson(PolicyValueNet& net) {
  const bool conv = net->heads == NetHeads::kConv;
  const auto& bn = net->input_bn->options;
  json arch;
  arch["input_planes"] = kNumPlanes;
  arch["activation"] = "relu";
  arch["batchnorm"] = {{"eps", bn.eps()},
                       {"momentum", bn.momentum().has_value() ? json(*bn.momentum()) : json(nullptr)},
                       {"affine", bn.affine()},
                       {"track_running_stats", bn.track_running_stats()}};
  arch["conv_bias"] = false;
  arch["value_hidden"] = kValueHidden;
  if (conv) arch["conv_head_channels"] = kConvHeadChannels;
  arch["tower"] =
      "input_conv (3x3, pad 1, no bias) - input_bn - relu; blocks x tower.i: conv1 (3x3) - bn1 - relu - conv2 (3x3) "
      "- bn2, + skip, relu";
  if (conv) {
    arch["policy_head"] =
        "policy_conv (1x1, C->32, no bias) - policy_bn - relu - policy_out (1x1, 32->1, no bias) - flatten - "
        "log_softmax over the S*S points";
    arch["value_head"] =
        "value_conv (1x1, C->32, no bias) - value_bn - relu - concat(mean over H,W; max over H,W) [N,64] - "
        "value_fc1 (64->64) - relu - value_fc2 (64->1) - tanh";
  } else {
    arch["policy_head"] =
        "policy_conv (1x1, C->2, no bias) - policy_bn - relu - flatten [N,2*S*S] (channel-major) - policy_fc "
        "(2*S*S->S*S) - log_softmax";
    arch["value_head"] =
        "value_conv (1x1, C->1, no bias) - value_bn - relu - flatten [N,S*S] - value_fc1 (S*S->64) - relu - "
        "value_fc2 (64->1) - tanh";
  }
  arch["mode"] = "eval: BatchNorm uses running_mean / running_var";
  return arch;
}

// The input planes' tensor: shape, layout and each plane's meaning.
json InputJson(PolicyValueNet& net) {
  const int s = net->board_size;
  const bool conv = net->heads == NetHeads::kConv;
  json planes = json::array({"stones of the side to move (1/0)", "stones of the opponent (1/0)",
                             "the last move (one-hot; all zero before the first move)",
                             "colour to move (all ones when black is to move, all zeros when white is)",
                             "renju only: empty points forbidden for black, whichever side is to move (all "
                             "zero under freestyle and standard)"});
  return {{"name", "planes"},
          {"dtype", "float32"},
          {"shape", Shape({"N", kNumPlanes, conv ? json("S") : json(s), conv ? json("S") : json(s)})},
          {"layout", "NCHW; point index = row * S + col"},
          {"planes", planes}};
}

// The two outputs' tensors and their meaning.
json OutputsJson(PolicyValueNet& net) {
  const int s = net->board_size;
  const bool conv = net->heads == NetHeads::kConv;
  return json::array(
      {{{"name", "log_policy"},
        {"dtype", "float32"},
        {"shape", Shape({"N", conv ? json("S*S") : json(s * s)})},
        {"meaning",
         "log-softmax over all S*S points (index row * S + col); exp() sums to 1; occupied or forbidden points "
         "are NOT masked (the search masks them)"}},
       {{"name", "value"},
        {"dtype", "float32"},
        {"shape", Shape({"N"})},
        {"range", json::array({-1, 1})},
        {"meaning", "tanh: expected outcome for the side to move (+1 win, -1 loss)"}}});
}

// Every exported tensor's name, shape, dtype and kind, in checkpoint order.
json TensorsJson(PolicyValueNet& net) {
  json tensors = json::array();
  for (const auto& t : NetTensors(net))
    tensors.push_back({{"name", t.name},
                       {"shape", json(std::vector<int64_t>(t.tensor.sizes().begin(), t.tensor.sizes().end()))},
                       {"dtype", DtypeNames(t.tensor, t.name).second},
                       {"kind", t.kind}});
  return tensors;
}

}  // namespace

NpyArray TextNpy(const std::string& text) {
  NpyArray a;
  a.dtype = "|u1";
  a.shape = {static_cast<int64_t>(text.size())};
  a.data = text;
  return a;
}

json NetExportHeader(PolicyValueNet& net, const CheckpointInfo& info, const std::string& source) {
  const int s = net->board_size;
  const bool conv = net->heads == NetHeads::kConv;
  json h;
  h["format"] = kNetExportFormat;
  h["format_version"] = kNetExportFormatVersion;
  h["encoder_version"] = kEncoderVersion;
  h["rule"] = info.rule;
  h["board_size"] = s;
  h["board_sizes"] = conv ? json::array({kMinBoardSize, kMaxBoardSize}) : json::array({s, s});
  h["channels"] = net->channels;
  h["blocks"] = net->blocks;
  h["heads"] = NetHeadsName(net->heads);
  h["iteration"] = info.iteration;
  h["model_generation"] = info.model_generation;
  h["seed"] = info.seed;
  h["checkpoint_format_version"] = info.format_version;
  h["source"] = source;
  // The run's search settings (docs/engine.md "Search settings"), as --set text; {} when none.
  h["play"] = info.play;
  h["architecture"] = ArchitectureJson(net);
  h["input"] = InputJson(net);
  h["outputs"] = OutputsJson(net);
  h["tensors"] = TensorsJson(net);
  return h;
}

std::map<std::string, NpyArray> NetExportArrays(PolicyValueNet& net, const CheckpointInfo& info,
                                                const std::string& source) {
  std::map<std::string, NpyArray> arrays;
  arrays[kNetExportHeaderKey] = TextNpy(NetExportHeader(net, info, source).dump(2));
  for (const auto& t : NetTensors(net)) {
    GOMOKU_CHECK(t.name != kNetExportHeaderKey && !arrays.count(t.name), "duplicate export name " << t.name);
    arrays[t.name] = TensorNpy(t.tensor, t.name);
  }
  return arrays;
}

std::vector<Position> RandomCheckPositions(int board_size, Rule rule, int count, uint64_t seed) {
  std::vector<Position> out;
  out.reserve(count);
  const int points = board_size * board_size;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    Board board(board_size, rule);
    // Lengths from 0 (the empty board) to three quarters of the board.
    const int length = static_cast<int>(rng() % static_cast<uint64_t>(points * 3 / 4 + 1));
    for (int k = 0; k < length; ++k) {
      const std::vector<int> legal = board.LegalMoves();
      if (legal.empty()) break;
      Board next = board;
      next.Play(legal[rng() % legal.size()]);
      if (next.terminal()) break;  // keep the last unfinished position
      board = std::move(next);
    }
    out.push_back(board.ToPosition());
  }
  return out;
}

std::map<std::string, NpyArray> CheckExportArrays(PolicyValueNet& net, const CheckpointInfo& info,
                                                  const std::vector<Position>& positions, uint64_t seed,
                                                  const std::string& source) {
  GOMOKU_CHECK(!positions.empty(), "no check positions");
  const int s = positions.front().size;
  const int n = static_cast<int>(positions.size());
  const int plane_floats = PlaneFloats(s);
  std::vector<float> planes(static_cast<size_t>(n) * plane_floats);
  std::vector<int32_t> move_count(n);
  for (int i = 0; i < n; ++i) {
    GOMOKU_CHECK(positions[i].size == s, "check positions of different sizes");
    EncodePosition(positions[i], 0, planes.data() + static_cast<size_t>(i) * plane_floats);
    move_count[i] = static_cast<int32_t>(
        std::count_if(positions[i].cells.begin(), positions[i].cells.end(), [](int8_t c) { return c != kEmpty; }));
  }
  std::vector<float> log_policy(static_cast<size_t>(n) * s * s), value(n);
  net->eval();
  {
    c10::InferenceMode guard;
    constexpr int kBatch = 256;
    for (int start = 0; start < n; start += kBatch) {
      const int b = std::min(kBatch, n - start);
      torch::Tensor x = torch::from_blob(planes.data() + static_cast<size_t>(start) * plane_floats,
                                         {b, kNumPlanes, s, s}, torch::kFloat32);
      auto [lp, v] = net->forward(x);
      lp = lp.contiguous();
      v = v.contiguous();
      std::copy_n(lp.data_ptr<float>(), static_cast<size_t>(b) * s * s,
                  log_policy.data() + static_cast<size_t>(start) * s * s);
      std::copy_n(v.data_ptr<float>(), b, value.data() + start);
    }
  }
  json h;
  h["format"] = kNetCheckFormat;
  h["format_version"] = kNetExportFormatVersion;
  h["encoder_version"] = kEncoderVersion;
  h["source"] = source;
  h["rule"] = info.rule;
  h["board_size"] = s;
  h["heads"] = info.heads;
  h["model_generation"] = info.model_generation;
  h["positions"] = n;
  h["seed"] = seed;
  h["games"] = "uniform random legal moves from the empty board, 0 .. 3/4 of the points, never a finished game";
  h["torch_version"] = TORCH_VERSION;
  h["threads"] = at::get_num_threads();

  std::map<std::string, NpyArray> arrays;
  arrays[kNetExportHeaderKey] = TextNpy(h.dump(2));
  arrays["planes"] = MakeNpy(planes, {n, kNumPlanes, s, s});
  arrays["log_policy"] = MakeNpy(log_policy, {n, s * s});
  arrays["value"] = MakeNpy(value, {n});
  arrays["move_count"] = MakeNpy(move_count, {n});
  return arrays;
}

ExportSummary ExportNet(const ExportOptions& o) {
  if (o.weights.empty()) throw ExportInputError("--weights is required (see --help)");
  if (o.out.empty()) throw ExportInputError("--out is required (see --help)");
  if (o.check_positions < 0 || o.check_positions > kMaxCheckPositions)
    GOMOKU_THROW(ExportInputError, "--check-positions " << o.check_positions << " outside [0, " << kMaxCheckPositions << "]");
  if (o.check_positions > 0 && o.check_out.empty())
    throw ExportInputError("--check-positions needs --check-out (the check file)");
  if (o.check_positions == 0 && !o.check_out.empty())
    throw ExportInputError("--check-out needs --check-positions N (N >= 1)");
  if (!o.check_out.empty() && o.check_out == o.out)
    throw ExportInputError("--out and --check-out name the same file");
  if (o.threads < 1 || o.threads > 256) GOMOKU_THROW(ExportInputError, "--threads " << o.threads << " outside [1, 256]");

  ExportSummary summary;
  PolicyValueNet net{nullptr};
  try {
    net = LoadCheckpoint(o.weights, {}, &summary.info);
  } catch (const GomokuError& e) {
    GOMOKU_THROW(ExportInputError, "cannot export '" << o.weights << "': " << e.what());
  }
  const int check_size = o.check_board_size > 0 ? o.check_board_size : summary.info.board_size;
  if (o.check_positions > 0 && !CheckpointPlaysSize(summary.info, check_size))
    GOMOKU_THROW(ExportInputError, "--check-board-size " << check_size << ": the checkpoint has "
                                                         << summary.info.heads << " heads of board size "
                                                         << summary.info.board_size << " and cannot play it");
  const std::string source = BaseName(o.weights);
  auto net_arrays = NetExportArrays(net, summary.info, source);
  summary.tensors = static_cast<int>(net_arrays.size()) - 1;
  const std::string net_bytes = WriteNpz(net_arrays);
  std::string check_bytes;
  if (o.check_positions > 0) {
    at::set_num_threads(o.threads);
    const auto positions =
        RandomCheckPositions(check_size, ParseRule(summary.info.rule), o.check_positions, o.check_seed);
    check_bytes = WriteNpz(CheckExportArrays(net, summary.info, positions, o.check_seed, source));
  }
  // Both files are complete in memory; publish them.
  WriteFileAtomic(o.out, net_bytes);
  if (!check_bytes.empty()) {
    try {
      WriteFileAtomic(o.check_out, check_bytes);
    } catch (...) {
      std::remove(o.out.c_str());
      throw;
    }
  }
  summary.net_bytes = net_bytes.size();
  summary.check_bytes = check_bytes.size();
  return summary;
}

}  // namespace gz
