// Subnormal floats in the native forward (docs/network.md "The native CPU
// forward", "Subnormals").
//
// On many Intel cores an arithmetic instruction that reads or produces a
// subnormal float (|x| < 2^-126, not 0) takes a microcode assist costing
// ~100 cycles instead of ~4.  Trained nets hold some (the shipped 2026-12-06
// net: 947 weights, most of them on the renju input plane that freestyle keeps
// at zero and in value_fc1), and activations can become subnormal too.  The
// native forward therefore
//   - flushes subnormal weights to zero when it packs them (native_net.cc,
//     FlushSubnormals), and
//   - runs every Forward under FlushDenormalsScope: FTZ (results that would be
//     subnormal become 0) and DAZ (subnormal inputs read as 0).
// Both change a result by less than 2^-126 per product, far under the forward's
// own float32 rounding (the parity tests of tests/net/test_native_forward.cc).
//
// FlushDenormalsScope sets the two MXCSR bits of the calling thread (x86 and
// x86-64, MinGW included; every x86-64 CPU has DAZ) and restores the caller's
// MXCSR when it ends, so a worker thread shared with other code keeps its
// floating-point mode.  On other architectures it does nothing (their cores
// mostly handle subnormals at full speed; the weights are still flushed).
// Thread-safety: MXCSR is per thread; a scope affects only its own thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 1)
#include <xmmintrin.h>
#define GZ_NATIVE_HAVE_MXCSR 1
#endif

namespace gz::native {

// MXCSR bits: flush-to-zero (bit 15) and denormals-are-zero (bit 6).
constexpr unsigned kMxcsrFtz = 0x8000u;
constexpr unsigned kMxcsrDaz = 0x0040u;

class FlushDenormalsScope {
 public:
#if defined(GZ_NATIVE_HAVE_MXCSR)
  FlushDenormalsScope() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kMxcsrFtz | kMxcsrDaz); }
  ~FlushDenormalsScope() { _mm_setcsr(saved_); }
#else
  FlushDenormalsScope() = default;
#endif
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

  // Whether this build can set FTZ/DAZ (x86); false: the scope does nothing.
  static constexpr bool kActive =
#if defined(GZ_NATIVE_HAVE_MXCSR)
      true;
#else
      false;
#endif

 private:
#if defined(GZ_NATIVE_HAVE_MXCSR)
  unsigned saved_;
#endif
};

// Whether `x` is subnormal, read from its bits (a comparison with FLT_MIN
// would read it as 0 on a thread that has DAZ set).
inline bool IsSubnormal(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7F800000u) == 0 && (bits & 0x007FFFFFu) != 0;
}

// Replaces every subnormal in `v` by zero of the same sign; returns how many.
inline size_t FlushSubnormals(std::vector<float>& v) {
  size_t flushed = 0;
  for (float& x : v)
    if (IsSubnormal(x)) {
      uint32_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      bits &= 0x80000000u;  // keep the sign
      std::memcpy(&x, &bits, sizeof bits);
      ++flushed;
    }
  return flushed;
}

}  // namespace gz::native
