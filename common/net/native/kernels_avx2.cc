// The kernels compiled for AVX2 + FMA (this file's compile flags: CMakeLists.txt).
#define GZ_KERNEL_NS avx2
#define GZ_KERNEL_TABLE Avx2Kernels
#include "common/net/native/kernels_impl.h"
