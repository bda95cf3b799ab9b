// Run-time choice of the kernel table (kernels.h).
#include "common/net/native/kernels.h"

namespace gz::native {
namespace {

bool CpuHasAvx2() {
#if defined(GZ_NATIVE_HAVE_AVX2)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace

const Kernels* KernelsNamed(const std::string& name) {
  if (name == "generic") return &GenericKernels();
#if defined(GZ_NATIVE_HAVE_AVX2)
  if (name == "avx2") return CpuHasAvx2() ? &Avx2Kernels() : nullptr;
#endif
  return nullptr;
}

const Kernels& BestKernels() {
  static const Kernels& best = *KernelsNamed(CpuHasAvx2() ? "avx2" : "generic");
  return best;
}

}  // namespace gz::native
