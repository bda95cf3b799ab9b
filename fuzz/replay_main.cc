// Corpus replay for a fuzz target (fuzz_target.h), built with the normal
// compiler and run by ctest in every CI run; the libFuzzer builds
// (dev/fuzz.sh) search for new inputs, this re-checks the known ones.
//
//   replay_<target> [--mutants N] [--seed S] [--truncations-rejected] PATH...
//
// Feeds every file given (directories: their regular files, sorted) to
// LLVMFuzzerTestOneInput, then N mutants of each (default 1000): half
// truncations at random offsets, half random bit flips (1-8 bits), from a
// fixed seed.  --truncations-rejected also requires every truncation to be
// rejected by the target's probe (ReplayProbe, when the target defines one).
// Prints what it ran; a target failure aborts the process (non-zero exit).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "fuzz/fuzz_target.h"

namespace fs = std::filesystem;

// Optional, defined by a target whose decoder can say whether it accepted an
// input (true = accepted).  Weak: targets without it leave it null.
extern "C" bool ReplayProbe(const uint8_t* data, size_t size) __attribute__((weak));

int main(int argc, char** argv) {
  const char* usage = "usage: replay_<target> [--mutants N] [--seed S] [--truncations-rejected] PATH...\n";
  gz::CliArgs args;
  long mutants = 1000;
  unsigned long seed = 20261129;
  try {
    args = gz::ParseCli(argc, argv, gz::CliSpec{usage, {"--mutants", "--seed"}, {"--truncations-rejected"}, true});
    mutants = static_cast<long>(args.get_int("--mutants", mutants));
    seed = static_cast<unsigned long>(args.get_int("--seed", static_cast<long long>(seed)));
  } catch (const gz::ConfigError& e) {
    std::fprintf(stderr, "replay: %s\n%s", e.what(), usage);
    return 2;
  }
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  const bool truncations_rejected = args.has("--truncations-rejected");
  std::vector<fs::path> files;
  for (const std::string& a : args.positional) {
    if (fs::is_directory(a)) {
      std::vector<fs::path> in;
      for (const auto& e : fs::directory_iterator(a))
        if (e.is_regular_file()) in.push_back(e.path());
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else if (fs::is_regular_file(a)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", a.c_str());
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs (give corpus files or directories)\n");
    return 2;
  }
  if (truncations_rejected && !ReplayProbe) {
    std::fprintf(stderr, "replay: --truncations-rejected needs a target with ReplayProbe\n");
    return 2;
  }
  std::mt19937_64 rng(seed);
  long runs = 0, truncations = 0, flips = 0, accepted_truncations = 0;
  for (const auto& f : files) {
    const std::string bytes = gz::ReadFileOrThrow(f.string());
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    LLVMFuzzerTestOneInput(data, bytes.size());
    ++runs;
    for (long m = 0; m < mutants && !bytes.empty(); ++m) {
      std::string mutant = bytes;
      if (m % 2 == 0) {
        mutant.resize(rng() % bytes.size());  // strictly shorter
        ++truncations;
        if (ReplayProbe && ReplayProbe(reinterpret_cast<const uint8_t*>(mutant.data()), mutant.size())) {
          ++accepted_truncations;
          if (truncations_rejected)
            std::fprintf(stderr, "replay: %s truncated to %zu bytes was accepted\n", f.c_str(), mutant.size());
        }
      } else {
        const int bits = 1 + static_cast<int>(rng() % 8);
        for (int b = 0; b < bits; ++b) mutant[rng() % mutant.size()] ^= static_cast<char>(1u << (rng() % 8));
        ++flips;
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(mutant.data()), mutant.size());
      ++runs;
    }
  }
  std::printf("replay: %zu corpus files, %ld runs (%ld truncations, %ld bit-flip mutants), no target failure",
              files.size(), runs, truncations, flips);
  if (ReplayProbe) std::printf("; %ld truncations accepted", accepted_truncations);
  std::printf("\n");
  return truncations_rejected && accepted_truncations > 0 ? 1 : 0;
}
