// Message destination and size choice for open-loop sources (PAPERS-SPEC M41): uniform random
// (never self, or with traffic.include_self over all N endpoints, the source included, as in the
// textbook and BookSim2's uniform pattern), one of the trial's superposed permutations, one of the
// trial's hot spots, all-to-one.
#pragma once
#include <cstdint>

#include "kernels/common/index.hpp"
#include "kernels/common/rng.hpp"
#include "kernels/state/engine_view.hpp"

namespace saturn {

enum : uint8_t { kRoleIdle = 0, kRoleMain = 1, kRoleBackground = 2 };

SATURN_INLINE uint32_t uniform_destination(uint32_t word, int e, int num_endpoints, bool include_self = false) {
  if (include_self) return uniform_below(word, static_cast<uint32_t>(num_endpoints));
  uint32_t d = uniform_below(word, static_cast<uint32_t>(num_endpoints - 1));
  return d >= static_cast<uint32_t>(e) ? d + 1 : d;
}

SATURN_INLINE uint32_t choose_destination(const EngineView& v, uint8_t role, uint32_t word, int e, int t) {
  const ModelParams& m = v.model;
  if (role == kRoleBackground) return uniform_destination(word, e, v.net.num_endpoints, m.include_self);
  switch (m.pattern) {
    case TrafficPattern::kPermutation: {
      const uint32_t j = uniform_below(word, static_cast<uint32_t>(m.permutations));
      return v.trial.dest_table[at(static_cast<int64_t>(e) * v.trial.dest_width + j, t, m.trials)];
    }
    case TrafficPattern::kHotspot: {
      const uint32_t j = uniform_below(word, static_cast<uint32_t>(m.hot_destinations));
      return v.trial.dest_table[at(j, t, m.trials)];
    }
    case TrafficPattern::kAllToOne:
      return static_cast<uint32_t>(m.root);
    default:
      return uniform_destination(word, e, v.net.num_endpoints, m.include_self);
  }
}

SATURN_INLINE uint32_t choose_size_flits(const ModelParams& m, uint32_t word) {
  for (int i = 0; i + 1 < m.num_sizes; ++i)
    if (word < m.size_threshold[i]) return m.size_flits[i];
  return m.size_flits[m.num_sizes - 1];
}

}  // namespace saturn
