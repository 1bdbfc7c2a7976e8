// The packet step for models with any number of VCs, without congestion control: one trial at a time on the CPU
// (scalar phases or fused step), the block program and phase kernels on CUDA. One variant per
// unit: kernels/launch/engine_variants.hpp says why.
#include "kernels/launch/engine_variant_program.hpp"

namespace saturn::variant {
SATURN_ENGINE_VARIANT_ONE_BY_ONE(0, false)
}  // namespace saturn::variant
