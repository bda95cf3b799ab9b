// The native forward's compute kernels (one table per instruction set).
//
// Every kernel is written once (kernels_impl.h, GCC vector extensions of 8
// floats) and compiled twice: kernels_avx2.cc with AVX2+FMA, kernels_generic.cc
// for the target's baseline (SSE2 on x86-64, NEON or scalar elsewhere).  The
// table is picked at run time from the CPU (__builtin_cpu_supports), so one
// binary runs everywhere and uses AVX2 where it exists.  Data is loaded and
// stored unaligned (memcpy); the CMake file adds -Wa,-muse-unaligned-vector-move
// for MinGW, so the compiler's own spills to Win64's 16-byte-aligned stack
// (which GCC does not realign for 32-byte vectors) are unaligned moves too.
//
// Layouts (all float32):
//   activations  [position][P*P][Cp]: the board padded by one zero ring and
//                grown to P = 4T+2 (T = ceil(S/4) Winograd tiles a side), channels
//                padded to Cp = a multiple of 8 with zeros.  Only the S x S
//                interior is ever written; the rest stays zero.
//   Winograd     F(4x4, 3x3): a 3x3 convolution is 36 products (one per point
//                xi of the 6x6 transformed tile) V_xi [tiles x Cin_p] x U_xi
//                [Cin_p x Cout_p].
// Thread-safety: pure functions over the caller's buffers.
#pragma once

#include <cstddef>
#include <string>

namespace gz::native {

constexpr int kVec = 8;          // floats per vector; channel counts are padded to it
constexpr int kWinoPoints = 36;  // 6 x 6 transformed tile
inline int PadChannels(int c) { return (c + kVec - 1) / kVec * kVec; }
// Floats between two transformed points' matrices (xi and xi+1) of a Winograd
// buffer of `tiles` rows of `cp` floats: one cache line more than the matrix,
// since a power-of-two stride put all 36 of a tile's stores in one cache set
// (a batch of 16 ran slower per position than a batch of 1).
inline size_t WinoStride(int tiles, int cp) { return static_cast<size_t>(tiles) * cp + 2 * kVec; }

struct Kernels {
  const char* name;
  // C[m x n] = A[m x k] (row stride lda) * B[k x n] (row stride ldb) (+ bias[n])
  // (then max(0, .) when relu).  n is a multiple of kVec; bias may be null.
  void (*gemm)(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
               const float* bias, bool relu);
  // Winograd input transform of `positions` activations (side P, Cp channels)
  // into v: 36 matrices [positions*T*T][Cp], WinoStride apart.
  void (*winograd_input)(const float* act, int positions, int tiles_side, int cp, float* v);
  // Output transform of m (36 matrices [positions*T*T][Cp], WinoStride apart) into out (activation
  // layout, S x S interior only): + bias[Cp], + residual (same layout as out;
  // may be out itself, or null), then max(0, .) when relu.
  void (*winograd_output)(const float* m, int positions, int tiles_side, int size, int cp, const float* bias,
                          const float* residual, bool relu, float* out);
};

// The fastest table this CPU runs: "avx2" (AVX2 and FMA) or "generic".
const Kernels& BestKernels();
// The table named `name` ("avx2" | "generic"), or null when this CPU or build
// lacks it.  For tests and benchmarks comparing the two.
const Kernels* KernelsNamed(const std::string& name);

// Per instruction set (kernels_avx2.cc, kernels_generic.cc).
const Kernels& GenericKernels();
#if defined(GZ_NATIVE_HAVE_AVX2)
const Kernels& Avx2Kernels();
#endif

}  // namespace gz::native
