// Per-flow inter-packet delay injection: each flow paced on its own at d_p / r(f) between packet
// starts (the single-flow case of SVC, M30; the CCA's "packet length + IPD" of M22 with the IPD
// folded into the gap), the paced flows of a source sharing its link round robin per packet
// (M13, 001). The per-flow baseline the shared schedulers (SVC, PS) are compared with.
#pragma once
#include <cstdint>

#include "kernels/injection/injection_common.hpp"

namespace saturn {

struct InterPacketDelayColumns {
  const uint32_t* gap_q16 = nullptr;  // [queue] d_p / r(f)
  uint64_t* next_q16 = nullptr;       // [queue] earliest start of the flow's next packet
  uint8_t* rr_last = nullptr;         // [source] queue served last (63 = none yet)
};

SATURN_INLINE int ipd_pick(const InterPacketDelayColumns& c, const SourceQueues& q, uint64_t ready, uint32_t now) {
  uint64_t e = 0;
  for (uint64_t m = ready; m != 0; m &= m - 1) {
    const int a = lowest_bit(m);
    if (schedule_due(c.next_q16[q.q_ix(a)], now)) e |= 1ull << a;
  }
  return round_robin_pick(e, c.rr_last[q.src_ix()]);
}

SATURN_INLINE void ipd_sent(const InterPacketDelayColumns& c, const SourceQueues& q, int a, uint32_t start) {
  const int64_t i = q.q_ix(a);
  c.next_q16[i] = schedule_after(c.next_q16[i], start, c.gap_q16[i]);
  c.rr_last[q.src_ix()] = static_cast<uint8_t>(a);
}

}  // namespace saturn
