// Shaped Virtual Clock injection (Zdornov & Birk 000 §6.2; PAPERS-SPEC M30, item 10): whenever the
// source can send, it picks among the eligible flows (at least d_p / r(f) since the flow's last
// packet, read on the flow's own schedule: its k-th packet never starts before k * d_p / r(f)
// after the first) the one with the least D(f,t) / r(f), ties to the lowest queue. If none is
// eligible the source waits. No flow bursts, but the aggregate can send back to back.
#pragma once
#include <cstdint>

#include "kernels/injection/injection_common.hpp"

namespace saturn {

struct ShapedVirtualClockColumns {
  uint32_t* sent = nullptr;           // [queue] D(f,t) in packets
  const uint32_t* gap_q16 = nullptr;  // [queue] d_p / r(f)
  uint64_t* eligible_q16 = nullptr;   // [queue] earliest start of the flow's next packet (0 = now)
};

SATURN_INLINE uint64_t svc_eligible(const ShapedVirtualClockColumns& c, const SourceQueues& q, uint64_t ready, uint32_t now) {
  uint64_t e = 0;
  for (uint64_t m = ready; m != 0; m &= m - 1) {
    const int a = lowest_bit(m);
    if (schedule_due(c.eligible_q16[q.q_ix(a)], now)) e |= 1ull << a;
  }
  return e;
}

// The queue to send now (the source has finished its previous packet), or kNoQueue.
SATURN_INLINE int svc_pick(const ShapedVirtualClockColumns& c, const SourceQueues& q, uint64_t ready, uint32_t now) {
  return argmin_virtual_time(c.sent, c.gap_q16, q, svc_eligible(c, q, ready, now));
}

// When the next ready queue becomes eligible (Q16 cycles; UINT64_MAX if none is ready): the
// source can sleep until then.
SATURN_INLINE uint64_t svc_wake_q16(const ShapedVirtualClockColumns& c, const SourceQueues& q, uint64_t ready) {
  uint64_t w = ~0ull;
  for (uint64_t m = ready; m != 0; m &= m - 1) {
    const uint64_t e = c.eligible_q16[q.q_ix(lowest_bit(m))];
    if (e < w) w = e;
  }
  return w;
}

SATURN_INLINE void svc_sent(const ShapedVirtualClockColumns& c, const SourceQueues& q, int a, uint32_t start) {
  const int64_t i = q.q_ix(a);
  c.sent[i] += 1;
  c.eligible_q16[i] = schedule_after(c.eligible_q16[i], start, c.gap_q16[i]);
}

}  // namespace saturn
