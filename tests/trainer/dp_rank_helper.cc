// Child program of the data-parallel tests: one rank of a data-parallel
// training over the fixed buffer and network of dp_test_util.h.
//
//   dp_rank_helper --config FILE --rank R --out FILE [--steps S] [--forever]
//
// Rank 0 trains S steps (NetTrainer::Train with its DataParallel), or with
// --forever chunks of S steps until it fails, printing "chunk K" after each;
// ranks > 0 run the real RankFollower.  Every rank then writes its model
// state (parameters, buffers) to --out.  Exit 0, or 1 with "error: ..." on
// stderr.
#include <iostream>

#include "common/base/cli.h"
#include "common/base/logging.h"
#include "tests/trainer/dp_test_util.h"
#include "trainer/data_parallel.h"
#include "trainer/net_trainer.h"
#include "trainer/rank_follower.h"

int main(int argc, char** argv) {
  using namespace gz;
  using namespace gz::testing;
  try {
    CliSpec spec;
    spec.usage = "dp_rank_helper --config FILE --rank R --out FILE [--steps S] [--forever]\n";
    spec.value_flags = {"--rank", "--out", "--steps"};
    spec.switches = {"--forever"};
    CliArgs args = ParseCli(argc, argv, spec);
    Config c = Config::Load(args.config, args.sets);
    const int rank = static_cast<int>(args.get_int("--rank", 0));
    const int steps = static_cast<int>(args.get_int("--steps", 1));
    torch::set_num_threads(1);
    std::vector<torch::Tensor> state;
    if (rank == 0) {
      DataParallel dp(c.train, DataParallelFingerprint(c), 0, torch::kCPU);
      NetTrainer trainer(DpNet(c), c.train, torch::kCPU);
      trainer.SetDataParallel(&dp);
      ReplayBuffer buffer = DpBuffer(c);
      if (args.has("--forever")) {
        for (int k = 0;; ++k) {
          trainer.Train(buffer, 1, steps, c.train.batch_size, kDpSampleSeed + k);
          std::cout << "chunk " << k << std::endl;
        }
      }
      trainer.Train(buffer, 1, steps, c.train.batch_size, kDpSampleSeed);
      state = ModelState(trainer.net());
    } else {
      RankFollower follower(c, rank);
      std::atomic<bool> stop{false};
      follower.Run(stop);
      state = ModelState(follower.trainer().net());
    }
    torch::save(state, args.get("--out"));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
}
