// A cheap 32-bit integer mixer for tie-breaks that need no statistical quality, only determinism
// and no bias towards a port number (Philox is kept for every draw that shapes traffic).
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"

namespace saturn {

SATURN_INLINE uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

SATURN_INLINE uint32_t hash3(uint64_t seed, uint32_t a, uint32_t b) {
  return mix32(static_cast<uint32_t>(seed) ^ mix32(a ^ mix32(b ^ static_cast<uint32_t>(seed >> 32))));
}

}  // namespace saturn
