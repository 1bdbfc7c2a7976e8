// The one index helper: all batched state is trial-minor, element * T + trial.
// Change this file alone to benchmark the other layout.
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"

namespace saturn {

SATURN_INLINE int64_t at(int64_t element, int trial, int trials) {
  return element * static_cast<int64_t>(trials) + trial;
}

// Per-trial scratch that one thread walks sequentially (the flow engine): trials are grouped in
// tiles of `tile` trials, and inside tile `tile_index` a column of `elements` is indexed
// element * tile + lane with at(). tile = T (one tile) is exactly at(element, trial, T); a small
// tile keeps one trial's working set compact in a CPU cache.
SATURN_INLINE int64_t at_tile(int64_t element, int64_t elements, int64_t tile_index, int lane, int tile) {
  return tile_index * elements * tile + at(element, lane, tile);
}

}  // namespace saturn
