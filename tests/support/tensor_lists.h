// Lists of tensors (a model's parameters or its whole state) compared bit for
// bit, for the tests that include LibTorch.  Header-only: tests/support's
// library does not link LibTorch.
#pragma once

#include <vector>

#include <torch/torch.h>

namespace gz::testing {

// The same number of tensors, each torch::equal to its partner (shape and
// every element).
inline bool SameTensors(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b[i])) return false;
  return true;
}

}  // namespace gz::testing
