// Which forward runs a net for inference, decided in one place
// (ChooseForward), and the forwards of one net at every board size it plays,
// made from one read of its file (NetForwards).  docs/network.md "Which
// forward runs".
//
// Every program that loads a net to play or to serve comes through here: the
// inference server (infer_server/serving_model.cc), a worker's local
// inference (worker/local_model.cc), the EvaluatorSource of the engine, the
// analysis engine and the dashboard (common/match/evaluator_source.cc), and
// the net players of the evaluator and arena (common/match/game.cc
// MakeNetPlayer).  LoadForward / LoadNativeForward (net_api.h,
// native/native_forward.h) stay for tests and benches that want one forward
// by name.
//
// Thread-safety: ChooseForward is a pure function (it may ask LibTorch
// whether CUDA exists).  A NetForwards is immutable after construction:
// Make may be called from several threads; each forward it returns has one
// caller at a time (BatchForward contract).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/net/net_api.h"

namespace gz {

namespace native {
struct NativeNet;
}

// What a caller's settings ask for: the inference.* keys of the config.
struct InferenceSettings {
  std::string backend = "auto";  // inference.backend: auto | native | torch
  std::string device = "auto";   // inference.device: auto | cpu | cuda | cuda:N
  int threads = 1;               // inference.threads (the evaluator: eval.threads; the server: server.threads)
};

// The forward that runs.
struct ForwardChoice {
  bool native = true;         // the native CPU forward (native/native_forward.h), else LibTorch's
  std::string device = "cpu";  // resolved: cpu | cuda | cuda:N
  int threads = 1;            // native: threads a batch is cut over; LibTorch: its intra-op threads on the CPU
  // "native" | "torch": what match records and status files say.
  const char* name() const { return native ? "native" : "torch"; }
  // "native forward, one thread" | "native forward, N threads" | "LibTorch
  // forward, threads N" (the server's start line says it after the device).
  std::string Describe() const;
};

// The rule, the one place it is written:
//   backend native: the native forward (the device must resolve to the CPU);
//   backend torch:  LibTorch's (CudaForward on a CUDA device in a CUDA build);
//   backend auto:   native when the device resolves to the CPU, else LibTorch.
// Either runs with settings.threads threads (values below 1 read as 1).  In
// the engine-only build (no LibTorch) every net runs on the native forward.
// Throws ConfigError naming inference.backend or inference.device.
ForwardChoice ChooseForward(const InferenceSettings& settings);

// One checkpoint, read and checked once, and the forward ChooseForward picks
// for it at any size it plays (an fc net its own size, a conv net any size in
// [kMinBoardSize, kMaxBoardSize]): Make reads no file, so a caller that keeps
// the NetForwards (or the forwards it made) never reads the checkpoint again
// on a size change.
class NetForwards {
 public:
  // Reads `path` and validates it against `expect` as LoadForward does
  // (ModelError naming the mismatch, IoError when it cannot be read), then
  // keeps what the chosen forward is made from: the native forward's packed
  // weights, or the file's bytes for LibTorch's.  `cuda`: the server's
  // CUDA-only options (precision, graphs, ...; its backend field is not read,
  // settings.backend decides), validated (ConfigError) when LibTorch runs.
  NetForwards(std::string path, const InferenceSettings& settings, const CheckpointExpect& expect = {},
              const ForwardOptions& cuda = {});
  ~NetForwards();
  NetForwards(NetForwards&&) noexcept;
  NetForwards& operator=(NetForwards&&) noexcept;

  const std::string& path() const { return path_; }
  // The file's header (board_size: the size the checkpoint was made for).
  const CheckpointInfo& info() const { return info_; }
  const ForwardChoice& choice() const { return choice_; }
  // A new forward playing size x size (size <= 0: the expect's board size
  // when it was set, else the checkpoint's), from memory.  ModelError when the
  // net cannot play `size` (fc heads at another size), worded as the loaders
  // word it.
  std::unique_ptr<BatchForward> Make(int size = 0) const;

 private:
  std::string path_;
  ForwardChoice choice_;
  CheckpointInfo info_;
  int default_size_ = 0;
  ForwardOptions cuda_;
  std::shared_ptr<const native::NativeNet> native_;  // when choice_.native
  std::string file_;                                 // LibTorch's forward: the checkpoint's bytes
};

// NetForwards(path, settings, expect).Make(): one forward at one size.  *info:
// the file's header.
std::unique_ptr<BatchForward> LoadInferenceForward(const std::string& path, const InferenceSettings& settings,
                                                   const CheckpointExpect& expect = {}, CheckpointInfo* info = nullptr);

// The two halves the build supplies (net_api.cc with LibTorch,
// net_api_native.cc without): whether LibTorch's forward exists, and
// LibTorch's forward (TorchForward, or CudaForward on a CUDA device) of a
// checkpoint held in memory, playing `size`.  The engine-only build's throws
// ConfigError.  *info: the file's header.
bool TorchForwardAvailable();
std::unique_ptr<BatchForward> MakeTorchForward(std::string_view file, const std::string& path,
                                               const ForwardChoice& choice, const ForwardOptions& cuda, int size,
                                               CheckpointInfo* info = nullptr);

}  // namespace gz
