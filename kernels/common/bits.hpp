// Bit tricks on 32/64-bit masks, one spelling for nvcc device code and for g++.
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"

namespace saturn {

SATURN_INLINE int popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

// Index of the lowest set bit; x must be non-zero.
SATURN_INLINE int lowest_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// floor(log2(x)) for x > 0.
SATURN_INLINE int log2_floor(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(x);
#else
  return 31 - __builtin_clz(x);
#endif
}

// Index of the n-th (0-based) set bit of x; n < popcount(x).
SATURN_INLINE int nth_set_bit(uint64_t x, int n) {
  for (int i = 0; i < n; ++i) x &= x - 1;
  return lowest_bit(x);
}

}  // namespace saturn
