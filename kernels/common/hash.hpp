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

// FCFS tie-break key of a header arriving at global port gp in cycle c.
SATURN_INLINE uint32_t tie_hash(uint64_t seed, int gp, uint32_t c) {
  return mix32(static_cast<uint32_t>(seed) ^ (static_cast<uint32_t>(gp) * 0x9E3779B1u) ^ (c * 0x85EBCA77u));
}

}  // namespace saturn
