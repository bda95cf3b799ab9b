#include "common/net/forward_choice.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/net/checkpoint_format.h"
#include "common/net/native/native_forward.h"
#include "common/net/native/native_net.h"

namespace gz {

std::string ForwardChoice::Describe() const {
  std::ostringstream os;
  if (!native)
    os << "LibTorch forward, threads " << threads;
  else if (threads == 1)
    os << "native forward, one thread";
  else
    os << "native forward, " << threads << " threads";
  return os.str();
}

ForwardChoice ChooseForward(const InferenceSettings& settings) {
  ForwardChoice c;
  c.device = ResolveDevice(settings.device);  // ConfigError naming inference.device
  // UsesNativeForward checks the backend's name and refuses native off the CPU.
  c.native = UsesNativeForward(settings.backend, c.device) || !TorchForwardAvailable();
  c.threads = std::max(1, settings.threads);
  return c;
}

NetForwards::NetForwards(std::string path, const InferenceSettings& settings, const CheckpointExpect& expect,
                         const ForwardOptions& cuda)
    : path_(std::move(path)), choice_(ChooseForward(settings)), cuda_(cuda) {
  cuda_.backend = choice_.native ? "native" : "torch";
  std::string file = ReadFileOrThrow(path_);  // IoError naming the path
  if (choice_.native) {
    native_ = std::make_shared<const native::NativeNet>(native::ParseNativeNet(file, path_, expect));
    info_ = native_->info;
  } else {
    info_ = ValidateCheckpointBytes(file, path_).info;
    CheckExpectations(info_, expect, path_);
    file_ = std::move(file);
  }
  default_size_ = expect.board_size > 0 ? expect.board_size : info_.board_size;
}

NetForwards::~NetForwards() = default;
NetForwards::NetForwards(NetForwards&&) noexcept = default;
NetForwards& NetForwards::operator=(NetForwards&&) noexcept = default;

std::unique_ptr<BatchForward> NetForwards::Make(int size) const {
  if (size <= 0) size = default_size_;
  CheckpointExpect at;
  at.board_size = size;
  CheckExpectations(info_, at, path_);  // ModelError when the net does not play `size`
  if (choice_.native) return MakeNativeForward(native_, size, choice_.threads, path_);
  return MakeTorchForward(file_, path_, choice_, cuda_, size);
}

std::unique_ptr<BatchForward> LoadInferenceForward(const std::string& path, const InferenceSettings& settings,
                                                   const CheckpointExpect& expect, CheckpointInfo* info) {
  NetForwards net(path, settings, expect);
  if (info) *info = net.info();
  return net.Make();
}

}  // namespace gz
