// Output arbitration as a single 64-bit priority key per candidate packet (smaller wins):
// [VC rank : 4][input rank : 7][ready cycle : 32][tie : 21].
// FCFS (PAPERS-SPEC M7): oldest header arrival first, same-cycle ties broken by a hash.
// Round-robin among input ports (M6): the first input at or after the output's pointer wins,
// its oldest packet first. VC classes: strict priority (higher VC first) or round-robin.
#pragma once
#include <cstdint>

#include "kernels/state/engine_view.hpp"

namespace saturn {

SATURN_INLINE uint64_t output_key(const ModelParams& m, int vc, int vc_pointer, int input, int input_pointer,
                                  int radix, uint32_t ready_cycle, uint32_t tie) {
  const uint32_t vc_rank = m.vc_arbitration == VcArbitration::kPriority
                               ? static_cast<uint32_t>(m.vcs - 1 - vc)
                               : static_cast<uint32_t>((vc - vc_pointer + m.vcs) % m.vcs);
  const uint32_t input_rank = m.arbitration == Arbitration::kRoundRobin
                                  ? static_cast<uint32_t>((input - input_pointer + radix) % radix)
                                  : 0u;
  return (static_cast<uint64_t>(vc_rank) << 60) | (static_cast<uint64_t>(input_rank) << 53) |
         (static_cast<uint64_t>(ready_cycle) << 21) | (tie & 0x1FFFFFu);
}

}  // namespace saturn
