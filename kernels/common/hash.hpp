// A cheap 32-bit integer mixer for tie-breaks that need no statistical quality, only determinism
// and no bias towards a port number (Philox is kept for every draw that shapes traffic).
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"

namespace saturn {

// U is uint32_t or a lane type's vector of 32-bit lanes (kernels/common/lanes.hpp): same bits per lane.
template <class U>
SATURN_INLINE U mix32(U x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// FCFS tie-break key of a header arriving at global port gp in cycle c; seed_low is the trial
// seed's low 32 bits (per lane in the phases over lanes).
// C: one cycle for every lane (uint32_t), or a cycle per lane (U: kernels/state/voq.hpp's fcfs_tie).
template <class U, class C = uint32_t>
SATURN_INLINE U tie_hash_of(U seed_low, int gp, C c) {
  return mix32<U>(seed_low ^ (static_cast<uint32_t>(gp) * 0x9E3779B1u) ^ (c * 0x85EBCA77u));
}

SATURN_INLINE uint32_t tie_hash(uint64_t seed, int gp, uint32_t c) {
  return tie_hash_of<uint32_t>(static_cast<uint32_t>(seed), gp, c);
}

}  // namespace saturn
