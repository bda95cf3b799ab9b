// Fuzz target: the self-play game file parser (common/data/game_record.h,
// common/data/npz.h), as the trainer reads files that workers wrote.  A file
// that parses must re-serialise to bytes that parse to the same record.
#include <string>

#include "common/data/game_record.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  gz::fuzz::ExpectOnlyGomokuErrors([&] {
    const gz::GameRecord rec = gz::GameRecord::FromNpzBytes(bytes, "fuzz input");
    const gz::GameRecord again = gz::GameRecord::FromNpzBytes(rec.ToNpzBytes(), "re-serialised fuzz input");
    if (again.num_moves() != rec.num_moves() || again.moves != rec.moves)
      gz::fuzz::FuzzFail("a game record does not round-trip");
  });
  return 0;
}

// For replay_main's --truncations-rejected: did the parser accept the bytes?
extern "C" bool ReplayProbe(const uint8_t* data, size_t size) {
  try {
    gz::GameRecord::FromNpzBytes(std::string(reinterpret_cast<const char*>(data), size), "probe");
    return true;
  } catch (const gz::GomokuError&) {
    return false;
  }
}
