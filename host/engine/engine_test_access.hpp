// Test access to a live engine's state (CPU backend: the view's state pointers are host memory).
// The invariant tests corrupt one field through Engine::view_for_tests() and run the check again.
// The check is compiled here, in the library at the build type's optimization: a test source
// (-O0, tests/CMakeLists.txt) that instantiated kernels/phases/invariants.hpp itself would emit an
// unoptimized copy of every inline kernel function it uses, and the linker may keep that copy for
// the engine too (measured: a checked dragonfly test ran 2x slower).
#pragma once
#include <cstdint>

#include "host/engine/engine.hpp"

namespace saturn {

// The invariant check of the cycle last run, once more, on trial t: the violations it adds to the
// trial's count. Throws std::logic_error on the cuda backend (the state is device memory).
uint64_t recheck_invariants_for_tests(const Engine& engine, int t);

// Cycles between the check's walks of every VOQ (kInvariantFullScan, kernels/phases/invariants.hpp).
uint32_t invariant_full_scan_cycles();

}  // namespace saturn
