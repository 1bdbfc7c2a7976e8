// CPU cache prefetches the optimizer keeps. g++ 12 at -O1 and above dropped every
// __builtin_prefetch of the engine's step from the object code (objdump of the engine variants
// found none, 2026-12-06: the switch-input prefetches of the packs had never run), while the same
// call in a small file stays; an asm statement cannot be dropped. A no-op in device code.
#pragma once
#include "kernels/common/macros.hpp"

namespace saturn {

// Start loading the line at p for reading.
SATURN_INLINE void prefetch_read(const void* p) {
#if defined(__CUDA_ARCH__)
  (void)p;
#elif defined(__GNUC__) && defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 0);
#endif
}

// Start loading the line at p to write it (prefetchw where the CPU has it).
SATURN_INLINE void prefetch_write(const void* p) {
#if defined(__CUDA_ARCH__)
  (void)p;
#elif defined(__GNUC__) && defined(__x86_64__) && defined(__PRFCHW__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#elif defined(__GNUC__) && defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1);
#endif
}

}  // namespace saturn
