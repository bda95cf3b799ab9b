// net_api.h for the engine-only build (GOMOKU_WITH_TORCH=OFF,
// cmake/engine_only.cmake): the part of the facade the engine programs use,
// over the native forward (common/net/native/native_forward.h), with no
// LibTorch.  The build with LibTorch compiles net_api.cc instead; the two are
// never linked together.  What this file leaves out (CreateRandomCheckpoint,
// MeasurePeak, the ForwardOptions overload, ...) is not declared missing
// anywhere: a program that needs it is not part of the engine-only build and
// fails to link there.
#include <memory>
#include <string>

#include "common/base/errors.h"
#include "common/net/forward_choice.h"
#include "common/net/native/native_forward.h"
#include "common/net/net_api.h"
#include "common/search/symmetric_batch.h"

namespace gz {

bool CudaAvailable() { return false; }

std::string ResolveDevice(const std::string& setting) {
  if (setting == "auto" || setting == "cpu") return "cpu";
  if (setting == "cuda" || setting.rfind("cuda:", 0) == 0)
    GOMOKU_THROW(ConfigError, "inference.device: '" << setting
                                                    << "' requested, but this is the engine-only build (no LibTorch, "
                                                       "CPU forward only); use auto or cpu");
  GOMOKU_THROW(ConfigError, "inference.device: unknown device '" << setting << "' (expected auto, cpu, cuda or cuda:N)");
}

std::unique_ptr<BatchForward> LoadForward(const std::string& path, const std::string& device, int threads,
                                          const CheckpointExpect& expect, CheckpointInfo* info) {
  InferenceSettings settings;
  settings.backend = "native";
  settings.device = device;
  settings.threads = threads;
  return LoadInferenceForward(path, settings, expect, info);
}

bool TorchForwardAvailable() { return false; }

std::unique_ptr<BatchForward> MakeTorchForward(std::string_view, const std::string& path, const ForwardChoice&,
                                               const ForwardOptions&, int, CheckpointInfo*) {
  GOMOKU_THROW(ConfigError, "LibTorch's forward of " << path
                                                      << " requested, but this is the engine-only build (no LibTorch, "
                                                         "the native forward only)");
}

std::unique_ptr<Evaluator> LoadLocalEvaluator(const std::string& path, const std::string& device, int threads,
                                              SymmetryMode mode, const CheckpointExpect& expect,
                                              CheckpointInfo* info) {
  return std::make_unique<SymmetricEvaluator>(LoadForward(path, device, threads, expect, info), mode);
}

}  // namespace gz
