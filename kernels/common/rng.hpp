// Counter-based randomness: every draw is Philox4x32-10(seed, trial | element, cycle, purpose).
// No generator state exists anywhere, so draws are identical on any backend and thread count.
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"
#include <Random123/philox.h>

namespace saturn {

// Named streams: a draw for one purpose never correlates with another purpose's draw.
// (The numbers are part of every result: changing one changes all draws of that purpose.)
enum class Stream : uint32_t {
  kGenerate = 1,  // an open-loop message: gap to the next one, destination, size (words 0, 1, 2)
  kRoute = 4,     // oblivious route choice
  kSetup = 6,     // per-trial set-up (permutations, hot-spot roles, phase destinations)
  kFlow = 7,      // flow engine: flow order, oblivious per-flow up-ports, random flow sizes (FlowLane)
  kOnOff = 8,     // a dynamic flow's next ON or OFF period (word 0)
  kIsolation = 9, // congestion isolation: oblivious port, Adaptive-Th / ARN tie draws (kernels/isolation/wiring.hpp)
  kDragonfly = 11,  // a packet's Valiant intermediate group (kernels/routing/dragonfly_engine.hpp; word 0)
};

// Lanes of Stream::kSetup (the counter's trial word): one sequence of draws per use. The flow
// engine draws its permutations from kSetupLanePermutation exactly as the packet engine's host
// set-up does, so both engines see the same permutations for the same trial seed.
enum SetupLane : uint32_t { kSetupLanePermutation = 1, kSetupLaneHotspot = 2, kSetupLanePhase = 3 };

// Lanes of Stream::kFlow.
enum FlowLane : uint32_t { kFlowLaneOrder = 1, kFlowLaneRoute = 2, kFlowLaneSize = 3 };

struct Draw4 {
  uint32_t v[4];
};

SATURN_INLINE Draw4 philox(uint64_t seed, uint32_t trial, uint32_t element, uint32_t cycle, Stream purpose) {
  r123::Philox4x32 gen;
  r123::Philox4x32::ctr_type ctr = {{element, cycle, static_cast<uint32_t>(purpose), trial}};
  r123::Philox4x32::key_type key = {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
  r123::Philox4x32::ctr_type r = gen(ctr, key);
  return Draw4{{r[0], r[1], r[2], r[3]}};
}

// Uniform integer in [0, n) by multiply-shift (bias below 2^-32 * n, irrelevant here).
SATURN_INLINE uint32_t uniform_below(uint32_t word, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(word) * n) >> 32);
}


}  // namespace saturn
