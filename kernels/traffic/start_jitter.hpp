// Per-trial start offset of a flow (traffic.start_jitter_ns): the trials of a scenario made of
// explicit flows differ by when each flow starts, drawn from the trial seed and the flow id.
#pragma once
#include <cstdint>

#include "kernels/common/macros.hpp"
#include "kernels/common/rng.hpp"

namespace saturn {

// Philox stream of this draw: the next number after rng.hpp's Stream values (9 is unused there;
// it belongs in that enum as kStartJitter once kernels/common is open for edits).
constexpr uint32_t kStartJitterStream = 9;

// Cycles flow f of the trial with this seed starts after its start_ns: uniform in [0, jitter).
// Counter-based, so the same on every backend, thread count and step mode.
SATURN_INLINE uint32_t flow_start_offset(uint64_t trial_seed, int f, uint32_t jitter) {
  if (jitter == 0) return 0;
  const Draw4 d = philox(trial_seed, 0u, static_cast<uint32_t>(f), 0u, static_cast<Stream>(kStartJitterStream));
  return uniform_below(d.v[0], jitter);
}

}  // namespace saturn
