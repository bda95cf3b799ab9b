// The kernels compiled for the target's baseline instruction set.
#define GZ_KERNEL_NS generic
#define GZ_KERNEL_TABLE GenericKernels
#include "common/net/native/kernels_impl.h"
