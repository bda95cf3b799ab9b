// The kernels of kernels.h, written once and included by one .cc per
// instruction set: that file defines GZ_KERNEL_NS (the namespace, e.g. avx2)
// and is compiled with the set's flags.  Not a public header.
//
// Vectors are GCC vector extensions of 8 floats: with AVX2 one ymm register,
// without it the compiler splits them (two SSE registers on x86-64).  Loads and
// stores go through memcpy (unaligned); see kernels.h for the Win64 stack.
#ifndef GZ_KERNEL_NS
#error "define GZ_KERNEL_NS before including kernels_impl.h"
#endif

#include <algorithm>
#include <cstring>

#include "common/net/native/kernels.h"

namespace gz::native::GZ_KERNEL_NS {
namespace {

typedef float v8 __attribute__((vector_size(32)));

inline __attribute__((always_inline)) v8 Load(const float* p) {
  v8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline __attribute__((always_inline)) void Store(float* p, v8 v) { std::memcpy(p, &v, sizeof v); }
// An initializer list, not v8{} + s: the addition of 0 is not folded away (-0.0)
// and cost an extra instruction per broadcast in the product's inner loop.
inline __attribute__((always_inline)) v8 Splat(float s) { return v8{s, s, s, s, s, s, s, s}; }
inline __attribute__((always_inline)) v8 Relu(v8 x) {
  const v8 zero{};
  return x > zero ? x : zero;
}

// C block of MR rows x NV vectors; accumulators stay in registers (the loops
// have constant bounds and are unrolled).
template <int MR, int NV>
inline __attribute__((always_inline)) void Micro(int k, const float* a, int lda, const float* b, int ldb, float* c,
                                                 int ldc, const float* bias, bool relu) {
  v8 acc0[MR], acc1[NV > 1 ? MR : 1];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    acc0[i] = v8{};
    if constexpr (NV > 1) acc1[i] = v8{};
  }
  for (int kk = 0; kk < k; ++kk) {
    const v8 b0 = Load(b + static_cast<size_t>(kk) * ldb);
    v8 b1{};
    if constexpr (NV > 1) b1 = Load(b + static_cast<size_t>(kk) * ldb + kVec);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const v8 av = Splat(a[static_cast<size_t>(i) * lda + kk]);
      acc0[i] += av * b0;
      if constexpr (NV > 1) acc1[i] += av * b1;
    }
  }
  v8 bias0{}, bias1{};
  if (bias) {
    bias0 = Load(bias);
    if constexpr (NV > 1) bias1 = Load(bias + kVec);
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    v8 r0 = acc0[i] + bias0;
    if (relu) r0 = Relu(r0);
    Store(c + static_cast<size_t>(i) * ldc, r0);
    if constexpr (NV > 1) {
      v8 r1 = acc1[i] + bias1;
      if (relu) r1 = Relu(r1);
      Store(c + static_cast<size_t>(i) * ldc + kVec, r1);
    }
  }
}

constexpr int kMr = 6;

template <int NV>
void RowBlocks(int m, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc, const float* bias,
               bool relu) {
  int i = 0;
  for (; i + kMr <= m; i += kMr)
    Micro<kMr, NV>(k, a + static_cast<size_t>(i) * lda, lda, b, ldb, c + static_cast<size_t>(i) * ldc, ldc, bias, relu);
  const float* ai = a + static_cast<size_t>(i) * lda;
  float* ci = c + static_cast<size_t>(i) * ldc;
  switch (m - i) {
    case 1: Micro<1, NV>(k, ai, lda, b, ldb, ci, ldc, bias, relu); break;
    case 2: Micro<2, NV>(k, ai, lda, b, ldb, ci, ldc, bias, relu); break;
    case 3: Micro<3, NV>(k, ai, lda, b, ldb, ci, ldc, bias, relu); break;
    case 4: Micro<4, NV>(k, ai, lda, b, ldb, ci, ldc, bias, relu); break;
    case 5: Micro<5, NV>(k, ai, lda, b, ldb, ci, ldc, bias, relu); break;
    default: break;
  }
}

void Gemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc, const float* bias,
          bool relu) {
  int j = 0;
  for (; j + 2 * kVec <= n; j += 2 * kVec)
    RowBlocks<2>(m, k, a, lda, b + j, ldb, c + j, ldc, bias ? bias + j : nullptr, relu);
  if (j < n) RowBlocks<1>(m, k, a, lda, b + j, ldb, c + j, ldc, bias ? bias + j : nullptr, relu);
}

// B^T x of F(4x4, 3x3) (Lavin & Gray), in place over x[0..5].
inline __attribute__((always_inline)) void InputRow(v8& x0, v8& x1, v8& x2, v8& x3, v8& x4, v8& x5) {
  const v8 four = Splat(4.0f), five = Splat(5.0f), two = Splat(2.0f);
  const v8 r0 = four * x0 - five * x2 + x4;
  const v8 r1 = (x3 + x4) - four * (x1 + x2);
  const v8 r2 = (x4 - x3) + four * (x1 - x2);
  const v8 r3 = (x4 - x2) + two * (x3 - x1);
  const v8 r4 = (x4 - x2) - two * (x3 - x1);
  const v8 r5 = four * x1 - five * x3 + x5;
  x0 = r0, x1 = r1, x2 = r2, x3 = r3, x4 = r4, x5 = r5;
}

// A^T x of F(4x4, 3x3): six values in, four out (y0..y3).
inline __attribute__((always_inline)) void OutputRow(v8 x0, v8 x1, v8 x2, v8 x3, v8 x4, v8 x5, v8& y0, v8& y1, v8& y2,
                                                     v8& y3) {
  const v8 a = x1 + x2, b = x1 - x2, c = x3 + x4, d = x3 - x4;
  y0 = x0 + a + c;
  y1 = b + Splat(2.0f) * d;
  y2 = a + Splat(4.0f) * c;
  y3 = b + Splat(8.0f) * d + x5;
}

void WinogradInput(const float* act, int positions, int tiles_side, int cp, float* v) {
  const int side = 4 * tiles_side + 2;
  const size_t plane = static_cast<size_t>(side) * side * cp;
  const size_t tiles = static_cast<size_t>(positions) * tiles_side * tiles_side;
  const size_t xi_stride = WinoStride(static_cast<int>(tiles), cp);
  float tmp[kWinoPoints * kVec];
  for (int pos = 0; pos < positions; ++pos) {
    for (int ty = 0; ty < tiles_side; ++ty) {
      for (int tx = 0; tx < tiles_side; ++tx) {
        const size_t t = (static_cast<size_t>(pos) * tiles_side + ty) * tiles_side + tx;
        const float* base = act + pos * plane + (static_cast<size_t>(4 * ty) * side + 4 * tx) * cp;
        for (int c0 = 0; c0 < cp; c0 += kVec) {
          for (int j = 0; j < 6; ++j) {
            const float* col = base + static_cast<size_t>(j) * cp + c0;
            const size_t row = static_cast<size_t>(side) * cp;
            v8 x0 = Load(col), x1 = Load(col + row), x2 = Load(col + 2 * row), x3 = Load(col + 3 * row),
               x4 = Load(col + 4 * row), x5 = Load(col + 5 * row);
            InputRow(x0, x1, x2, x3, x4, x5);
            Store(tmp + (0 * 6 + j) * kVec, x0);
            Store(tmp + (1 * 6 + j) * kVec, x1);
            Store(tmp + (2 * 6 + j) * kVec, x2);
            Store(tmp + (3 * 6 + j) * kVec, x3);
            Store(tmp + (4 * 6 + j) * kVec, x4);
            Store(tmp + (5 * 6 + j) * kVec, x5);
          }
          float* dst = v + t * cp + c0;
          for (int i = 0; i < 6; ++i) {
            const float* r = tmp + i * 6 * kVec;
            v8 x0 = Load(r), x1 = Load(r + kVec), x2 = Load(r + 2 * kVec), x3 = Load(r + 3 * kVec),
               x4 = Load(r + 4 * kVec), x5 = Load(r + 5 * kVec);
            InputRow(x0, x1, x2, x3, x4, x5);
            float* d = dst + static_cast<size_t>(i * 6) * xi_stride;
            Store(d, x0);
            Store(d + xi_stride, x1);
            Store(d + 2 * xi_stride, x2);
            Store(d + 3 * xi_stride, x3);
            Store(d + 4 * xi_stride, x4);
            Store(d + 5 * xi_stride, x5);
          }
        }
      }
    }
  }
}

void WinogradOutput(const float* m, int positions, int tiles_side, int size, int cp, const float* bias,
                    const float* residual, bool relu, float* out) {
  const int side = 4 * tiles_side + 2;
  const size_t plane = static_cast<size_t>(side) * side * cp;
  const size_t tiles = static_cast<size_t>(positions) * tiles_side * tiles_side;
  const size_t xi_stride = WinoStride(static_cast<int>(tiles), cp);
  float tmp[4 * 6 * kVec];
  for (int pos = 0; pos < positions; ++pos) {
    for (int ty = 0; ty < tiles_side; ++ty) {
      const int rows = std::min(4, size - 4 * ty);
      for (int tx = 0; tx < tiles_side; ++tx) {
        const int cols = std::min(4, size - 4 * tx);
        const size_t t = (static_cast<size_t>(pos) * tiles_side + ty) * tiles_side + tx;
        const size_t out_base = pos * plane + (static_cast<size_t>(4 * ty + 1) * side + 4 * tx + 1) * cp;
        for (int c0 = 0; c0 < cp; c0 += kVec) {
          const float* src = m + t * cp + c0;
          for (int j = 0; j < 6; ++j) {
            const float* s = src + static_cast<size_t>(j) * xi_stride;
            const size_t r = 6 * xi_stride;
            v8 y0, y1, y2, y3;
            OutputRow(Load(s), Load(s + r), Load(s + 2 * r), Load(s + 3 * r), Load(s + 4 * r), Load(s + 5 * r), y0, y1,
                      y2, y3);
            Store(tmp + (0 * 6 + j) * kVec, y0);
            Store(tmp + (1 * 6 + j) * kVec, y1);
            Store(tmp + (2 * 6 + j) * kVec, y2);
            Store(tmp + (3 * 6 + j) * kVec, y3);
          }
          const v8 b = Load(bias + c0);
          for (int i = 0; i < rows; ++i) {
            const float* r = tmp + i * 6 * kVec;
            v8 y0, y1, y2, y3;
            OutputRow(Load(r), Load(r + kVec), Load(r + 2 * kVec), Load(r + 3 * kVec), Load(r + 4 * kVec),
                      Load(r + 5 * kVec), y0, y1, y2, y3);
            // Points past the board's edge (the last tile's) are not written.
            auto emit = [&](int q, v8 val) {
              if (q >= cols) return;
              const size_t at = out_base + (static_cast<size_t>(i) * side + q) * cp + c0;
              val += b;
              if (residual) val += Load(residual + at);
              if (relu) val = Relu(val);
              Store(out + at, val);
            };
            emit(0, y0);
            emit(1, y1);
            emit(2, y2);
            emit(3, y3);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gz::native::GZ_KERNEL_NS

namespace gz::native {
// The table of this instruction set (named after it).
#define GZ_STR2(x) #x
#define GZ_STR(x) GZ_STR2(x)
const Kernels& GZ_KERNEL_TABLE() {
  static const Kernels table{GZ_STR(GZ_KERNEL_NS), &GZ_KERNEL_NS::Gemm, &GZ_KERNEL_NS::WinogradInput,
                             &GZ_KERNEL_NS::WinogradOutput};
  return table;
}
#undef GZ_STR
#undef GZ_STR2
}  // namespace gz::native
