// Fuzz target: the checkpoint header checks (common/net/checkpoint_format.h),
// the torch-free part of loading a model: fixed header, JSON header, CRC.
// A header that parses must rebuild to JSON that parses to the same info.
#include <string>
#include <string_view>

#include "common/net/checkpoint_format.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  gz::fuzz::ExpectOnlyGomokuErrors([&] { gz::CheckCrc(file, "fuzz input"); });
  gz::fuzz::ExpectOnlyGomokuErrors([&] {
    uint32_t version = 0;
    const uint32_t json_len = gz::CheckFixedHeader(file, size, "fuzz input", &version);
    const gz::CheckpointHeader h = gz::ParseHeaderJson(file.substr(gz::kCheckpointFixedHeaderBytes, json_len),
                                                       json_len, "fuzz input", version);
    const std::string json = gz::BuildHeaderJson(h.info, h.tensors);
    const gz::CheckpointHeader again = gz::ParseHeaderJson(json, static_cast<uint32_t>(json.size()),
                                                           "rebuilt fuzz input", gz::CheckpointFormatVersionFor(h.info));
    if (again.info.board_size != h.info.board_size || again.info.channels != h.info.channels ||
        again.info.model_generation != h.info.model_generation || again.info.heads != h.info.heads || again.tensors.size() != h.tensors.size())
      gz::fuzz::FuzzFail("a checkpoint header does not round-trip");
  });
  return 0;
}

// For replay_main's --truncations-rejected: do the loader's torch-free checks
// accept the bytes?
extern "C" bool ReplayProbe(const uint8_t* data, size_t size) {
  try {
    gz::ValidateCheckpointBytes(std::string_view(reinterpret_cast<const char*>(data), size), "probe");
    return true;
  } catch (const gz::GomokuError&) {
    return false;
  }
}
