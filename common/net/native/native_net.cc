#include "common/net/native/native_net.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/checkpoint_format.h"
#include "common/net/native/float_mode.h"
#include "common/net/native/kernels.h"
#include "common/game/encoder.h"

namespace gz::native {
namespace {

constexpr double kBnEps = 1e-5;  // LibTorch's BatchNorm2d default (model.cc uses it)

// model.h's architecture as its checkpoint lists it: named_parameters() then
// named_buffers(), each in registration order (what checkpoint.cc writes).
std::vector<CheckpointTensorEntry> ExpectedTensors(const CheckpointInfo& info) {
  const int64_t c = info.channels;
  const int64_t points = static_cast<int64_t>(info.board_size) * info.board_size;
  const bool conv = info.heads == NetHeads::kConv;
  std::vector<CheckpointTensorEntry> params, buffers;
  auto bn = [&](const std::string& name, int64_t n) {
    params.push_back({name + ".weight", {n}});
    params.push_back({name + ".bias", {n}});
    buffers.push_back({name + ".running_mean", {n}});
    buffers.push_back({name + ".running_var", {n}});
    buffers.push_back({name + ".num_batches_tracked", {}, "int64"});
  };
  params.push_back({"input_conv.weight", {c, kNumPlanes, 3, 3}});
  bn("input_bn", c);
  for (int b = 0; b < info.blocks; ++b) {
    const std::string p = "tower." + std::to_string(b) + ".";
    params.push_back({p + "conv1.weight", {c, c, 3, 3}});
    bn(p + "bn1", c);
    params.push_back({p + "conv2.weight", {c, c, 3, 3}});
    bn(p + "bn2", c);
  }
  const int64_t hc = kConvHeadChannelsNative;
  params.push_back({"policy_conv.weight", {conv ? hc : 2, c, 1, 1}});
  bn("policy_bn", conv ? hc : 2);
  if (conv) {
    params.push_back({"policy_out.weight", {1, hc, 1, 1}});
  } else {
    params.push_back({"policy_fc.weight", {points, 2 * points}});
    params.push_back({"policy_fc.bias", {points}});
  }
  params.push_back({"value_conv.weight", {conv ? hc : 1, c, 1, 1}});
  bn("value_bn", conv ? hc : 1);
  params.push_back({"value_fc1.weight", {kValueHiddenNative, conv ? 2 * hc : points}});
  params.push_back({"value_fc1.bias", {kValueHiddenNative}});
  params.push_back({"value_fc2.weight", {1, kValueHiddenNative}});
  params.push_back({"value_fc2.bias", {1}});
  params.insert(params.end(), buffers.begin(), buffers.end());
  for (auto& e : params)
    if (e.dtype.empty()) e.dtype = "float32";  // all but num_batches_tracked
  return params;
}

// The float tensors of a validated file by name.
class Tensors {
 public:
  const float* operator()(const std::string& name) const { return by_name_.at(name); }
  void Add(const std::string& name, const float* p) { by_name_[name] = p; }

 private:
  std::map<std::string, const float*> by_name_;
};

Tensors CheckTensors(std::string_view file, const CheckpointHeader& h, const std::string& path,
                     std::vector<std::vector<float>>* storage) {
  CheckTensorList(h, ExpectedTensors(h.info), path);
  Tensors out;
  const char* p = file.data() + kCheckpointFixedHeaderBytes + h.json_len;
  for (const CheckpointTensorEntry& e : h.tensors) {
    const size_t bytes = static_cast<size_t>(e.Bytes());
    if (e.dtype == "float32") {
      std::vector<float>& t = storage->emplace_back(bytes / sizeof(float));
      std::memcpy(t.data(), p, bytes);  // the file's bytes are little-endian, like every target we build for
      for (size_t j = 0; j < t.size(); ++j)
        if (!std::isfinite(t[j]))
          GOMOKU_THROW(ModelError, "checkpoint '" << path << "': tensor '" << e.name << "' element " << j << " is "
                                                  << t[j] << " (NaN/Inf weights)");
      out.Add(e.name, t.data());
    }
    p += bytes;
  }
  return out;
}

// Scale and shift of an eval-mode BatchNorm: y = x * scale + shift.
void BnAffine(const Tensors& t, const std::string& bn, int n, std::vector<double>* scale, std::vector<double>* shift) {
  const float* w = t(bn + ".weight");
  const float* b = t(bn + ".bias");
  const float* mean = t(bn + ".running_mean");
  const float* var = t(bn + ".running_var");
  scale->resize(n);
  shift->resize(n);
  for (int i = 0; i < n; ++i) {
    (*scale)[i] = w[i] / std::sqrt(static_cast<double>(var[i]) + kBnEps);
    (*shift)[i] = b[i] - mean[i] * (*scale)[i];
  }
}

// U = G g G^T of F(4x4, 3x3) for every (cout, cin), BN scale folded in.
Conv3x3 MakeConv3x3(const Tensors& t, const std::string& conv, const std::string& bn, int cin, int cout) {
  static const double kG[6][3] = {{1.0 / 4, 0, 0},          {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  std::vector<double> scale, shift;
  BnAffine(t, bn, cout, &scale, &shift);
  const float* w = t(conv + ".weight");  // [cout][cin][3][3]
  Conv3x3 out;
  out.cin = cin;
  out.cout = cout;
  out.cin_p = PadChannels(cin);
  out.cout_p = PadChannels(cout);
  out.u.assign(static_cast<size_t>(kWinoPoints) * out.cin_p * out.cout_p, 0.0f);
  out.bias.assign(out.cout_p, 0.0f);
  for (int co = 0; co < cout; ++co) {
    out.bias[co] = static_cast<float>(shift[co]);
    for (int ci = 0; ci < cin; ++ci) {
      const float* g = w + (static_cast<size_t>(co) * cin + ci) * 9;
      double gg[6][3];  // G g
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 3; ++j) gg[i][j] = kG[i][0] * g[j] + kG[i][1] * g[3 + j] + kG[i][2] * g[6 + j];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
          const double u = (gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2]) * scale[co];
          out.u[(static_cast<size_t>(i * 6 + j) * out.cin_p + ci) * out.cout_p + co] = static_cast<float>(u);
        }
    }
  }
  return out;
}

// Weight [out][in] transposed into a Dense of k >= in rows, output o scaled
// by scale[o] and shifted by shift[o] (a folded BN, or 1 and the bias).
Dense PackDense(const float* w, int in, int k, int out, const std::vector<double>& scale,
                const std::vector<double>& shift) {
  Dense d;
  d.k = k;
  d.n = out;
  d.n_p = PadChannels(out);
  d.w.assign(static_cast<size_t>(k) * d.n_p, 0.0f);
  d.bias.assign(d.n_p, 0.0f);
  for (int o = 0; o < out; ++o) {
    d.bias[o] = static_cast<float>(shift[o]);
    for (int i = 0; i < in; ++i)
      d.w[static_cast<size_t>(i) * d.n_p + o] = static_cast<float>(w[static_cast<size_t>(o) * in + i] * scale[o]);
  }
  return d;
}

// A 1x1 convolution (+ BN when `bn` is named) over `cin` channels whose input
// rows hold `k` (>= cin) floats.
Dense MakePointwise(const Tensors& t, const std::string& conv, const std::string& bn, int cin, int cout, int k) {
  std::vector<double> scale(cout, 1.0), shift(cout, 0.0);
  if (!bn.empty()) BnAffine(t, bn, cout, &scale, &shift);
  return PackDense(t(conv + ".weight"), cin, k, cout, scale, shift);  // weight [cout][cin][1][1]
}

// A linear layer weight [out][in] (+ bias [out]).
Dense MakeLinear(const Tensors& t, const std::string& name, int in, int out) {
  const float* b = t(name + ".bias");
  return PackDense(t(name + ".weight"), in, in, out, std::vector<double>(out, 1.0), std::vector<double>(b, b + out));
}

}  // namespace

void ForEachPacked(NativeNet& net, const std::function<void(std::vector<float>&)>& f) {
  auto conv = [&](Conv3x3& c) {
    f(c.u);
    f(c.bias);
  };
  auto dense = [&](Dense& d) {
    f(d.w);
    f(d.bias);
  };
  conv(net.input);
  for (Conv3x3& c : net.tower) conv(c);
  for (Dense* d : {&net.policy_conv, &net.policy_fc, &net.policy_out, &net.value_conv, &net.value_fc1, &net.value_fc2})
    dense(*d);
}

NativeNet ParseNativeNet(std::string_view file, const std::string& path, const CheckpointExpect& expect) {
  const CheckpointHeader h = ValidateCheckpointBytes(file, path);
  CheckExpectations(h.info, expect, path);
  if (h.info.channels > kMaxChannelsNative || h.info.blocks > kMaxBlocksNative)
    GOMOKU_THROW(ModelError, "checkpoint '" << path << "': " << h.info.channels << " channels x " << h.info.blocks
                                            << " blocks exceeds this build's limits");
  std::vector<std::vector<float>> storage;
  storage.reserve(h.tensors.size());
  const Tensors t = CheckTensors(file, h, path, &storage);

  NativeNet net;
  net.info = h.info;
  net.conv_heads = h.info.heads == NetHeads::kConv;
  const int c = h.info.channels;
  const int cp = PadChannels(c);
  const int points = h.info.board_size * h.info.board_size;
  net.input = MakeConv3x3(t, "input_conv", "input_bn", kNumPlanes, c);
  for (int b = 0; b < h.info.blocks; ++b) {
    const std::string p = "tower." + std::to_string(b) + ".";
    net.tower.push_back(MakeConv3x3(t, p + "conv1", p + "bn1", c, c));
    net.tower.push_back(MakeConv3x3(t, p + "conv2", p + "bn2", c, c));
  }
  if (net.conv_heads) {
    const int hc = kConvHeadChannelsNative;
    net.policy_conv = MakePointwise(t, "policy_conv", "policy_bn", c, hc, cp);
    net.policy_out = MakePointwise(t, "policy_out", "", hc, 1, PadChannels(hc));
    net.value_conv = MakePointwise(t, "value_conv", "value_bn", c, hc, cp);
    net.value_fc1 = MakeLinear(t, "value_fc1", 2 * hc, kValueHiddenNative);
  } else {
    net.policy_conv = MakePointwise(t, "policy_conv", "policy_bn", c, 2, cp);
    net.policy_fc = MakeLinear(t, "policy_fc", 2 * points, points);
    net.value_conv = MakePointwise(t, "value_conv", "value_bn", c, 1, cp);
    net.value_fc1 = MakeLinear(t, "value_fc1", points, kValueHiddenNative);
  }
  net.value_fc2 = MakeLinear(t, "value_fc2", kValueHiddenNative, 1);
  // What the kernels multiply holds no subnormal (float_mode.h says why);
  // flushed after folding, since the BN scale moves values across 2^-126.
  ForEachPacked(net, [&](std::vector<float>& v) { net.subnormals_flushed += FlushSubnormals(v); });
  return net;
}

NativeNet LoadNativeNet(const std::string& path, const CheckpointExpect& expect) {
  const std::string file = ReadFileOrThrow(path);
  return ParseNativeNet(file, path, expect);
}

}  // namespace gz::native
