// The packet step for models with one VC, with congestion control: the CPU's 16-trial packs
// (nothing on the CUDA backend). One variant per unit: kernels/launch/engine_variants.hpp says why.
#include "kernels/launch/engine_variant_program.hpp"

namespace saturn::variant {
SATURN_ENGINE_VARIANT_PACK16(1, true)
}  // namespace saturn::variant
