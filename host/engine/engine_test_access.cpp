#include "host/engine/engine_test_access.hpp"

#include <stdexcept>

#include "kernels/phases/invariants.hpp"

namespace saturn {

uint64_t recheck_invariants_for_tests(const Engine& engine, int t) {
#if defined(SATURN_BACKEND_CUDA)
  (void)engine;
  (void)t;
  throw std::logic_error("recheck_invariants_for_tests: the cuda backend's state is device memory");
#else
  const EngineView& v = engine.view_for_tests();
  const uint64_t before = v.state.st_violations[t];
  check_invariants(v, t, engine.cycle() - 1);
  return v.state.st_violations[t] - before;
#endif
}

uint32_t invariant_full_scan_cycles() { return kInvariantFullScan; }

}  // namespace saturn
