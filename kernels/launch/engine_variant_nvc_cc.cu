// The packet step for models with any number of VCs, with congestion control: one trial at a time on the CPU
// (scalar phases or fused step), the block program and phase kernels on CUDA. One variant per
// unit: kernels/launch/engine_variants.hpp says why.
#include "kernels/launch/engine_variant_program.hpp"

namespace saturn::variant {
SATURN_ENGINE_VARIANT_ONE_BY_ONE(0, true)
}  // namespace saturn::variant

#if !defined(SATURN_BACKEND_CUDA)
#include <omp.h>

namespace saturn::variant {

// Here because it runs this unit's variant: any VC count, congestion control compiled in. One
// (element, trial) at a time: the phases over the scalar lane, with the fused step's endpoint where
// asked for (A/B).
void run_element_split(const EngineView& v, uint32_t first, uint32_t last, const LaunchOptions& options, bool fused) {
  const int T = v.model.trials;
  const int threads = std::max(1, options.threads);
  const int64_t sw = static_cast<int64_t>(v.net.num_switches) * T;
  const int64_t ep = static_cast<int64_t>(v.net.num_endpoints) * T;
#pragma omp parallel num_threads(threads)
  for (uint32_t c = first; c < last; ++c) {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < sw; ++i)  // (the fused step differs at the endpoints only)
      step_switch<ScalarLanes, 0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < ep; ++i) {
      if (fused) endpoint_step<0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
      else endpoint_lanes<ScalarLanes, 0, true>(v, static_cast<int>(i / T), static_cast<int>(i % T), c);
    }
    if (options.check_invariants) {
#pragma omp for schedule(static)
      for (int t = 0; t < T; ++t) check_invariants(v, t, c);
    }
  }
}

}  // namespace saturn::variant
#endif
