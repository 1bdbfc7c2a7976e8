// The one index helper: all batched state is trial-minor, element * T + trial.
// Change this file alone to benchmark the other layout.
#pragma once
#include <cstdint>
#include "kernels/common/macros.hpp"

namespace saturn {

SATURN_INLINE int64_t at(int64_t element, int trial, int trials) {
  return element * static_cast<int64_t>(trials) + trial;
}

}  // namespace saturn
