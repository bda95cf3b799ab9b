// make_export_test_net OUT.pt HEADS SIZE RULE CHANNELS BLOCKS SEED: a random
// checkpoint for the export round trip (test_net_export_python.sh) whose
// BatchNorm layers are NOT at their initial values: CreateRandomCheckpoint
// leaves every BN at weight 1, bias 0, mean 0, var 1, which would let a
// rebuilt net that mixes up or ignores them pass.  Here every BN weight, bias,
// running mean and running variance is drawn (seeded) and num_batches_tracked
// is set, so the Python side has to use each one in its place.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "common/game/board.h"
#include "common/net/checkpoint.h"
#include "common/net/model.h"

int main(int argc, char** argv) {
  using namespace gz;
  if (argc != 8) {
    std::fprintf(stderr, "usage: make_export_test_net OUT.pt fc|conv SIZE RULE CHANNELS BLOCKS SEED\n");
    return 2;
  }
  try {
    const std::string out = argv[1];
    const NetHeads heads = ParseNetHeads(argv[2]);
    const int size = std::atoi(argv[3]);
    const Rule rule = ParseRule(argv[4]);
    const int channels = std::atoi(argv[5]), blocks = std::atoi(argv[6]);
    const uint64_t seed = std::strtoull(argv[7], nullptr, 10);
    PolicyValueNet net(size, channels, blocks, heads);
    net->InitSeeded(seed);
    {
      torch::NoGradGuard no_grad;
      at::Generator gen = at::detail::createCPUGenerator(seed ^ 0x5eedULL);
      auto draw = [&gen](torch::Tensor& t, double lo, double hi) {
        torch::Tensor r = torch::empty(t.sizes(), torch::kFloat32);
        r.uniform_(lo, hi, gen);
        t.copy_(r);
      };
      int64_t k = 0;
      for (const auto& m : net->modules(/*include_self=*/false))
        if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
          draw(bn->weight, 0.5, 1.5);
          draw(bn->bias, -0.3, 0.3);
          draw(bn->running_mean, -0.5, 0.5);
          draw(bn->running_var, 0.3, 2.0);
          bn->num_batches_tracked.fill_(100 + k++);
        }
    }
    CheckpointInfo info;
    info.rule = RuleName(rule);
    info.iteration = 7;
    info.model_generation = 6;
    info.seed = seed;
    info.heads = heads;
    SaveCheckpoint(out, net, info);
    std::printf("make_export_test_net: %s (%s heads, %dx%d, %dx%d %s, seed %llu)\n", out.c_str(), argv[2],
                channels, blocks, size, size, argv[4], static_cast<unsigned long long>(seed));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_export_test_net: error: %s\n", e.what());
    return 1;
  }
}
