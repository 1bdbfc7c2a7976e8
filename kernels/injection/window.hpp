// Fixed-window injection, the baseline: a flow may have at most `window` packets sent and not yet
// acknowledged (M13's 002 source with window = 1 packet, without its rate limit); flows with room
// share the link round robin per packet. Nothing else limits a flow: it is greedy inside its window.
#pragma once
#include <cstdint>

#include "kernels/injection/injection_common.hpp"

namespace saturn {

struct WindowColumns {
  uint16_t* outstanding = nullptr;  // [queue] packets sent and not acknowledged
  uint8_t* rr_last = nullptr;       // [source] queue served last (63 = none yet)
  int window = 1;                   // packets per flow (>= 1)
};

SATURN_INLINE uint64_t window_open(const WindowColumns& c, const SourceQueues& q, uint64_t ready) {
  uint64_t open = 0;
  for (uint64_t m = ready; m != 0; m &= m - 1) {
    const int a = lowest_bit(m);
    if (c.outstanding[q.q_ix(a)] < c.window) open |= 1ull << a;
  }
  return open;
}

SATURN_INLINE int window_pick(const WindowColumns& c, const SourceQueues& q, uint64_t ready) {
  return round_robin_pick(window_open(c, q, ready), c.rr_last[q.src_ix()]);
}

SATURN_INLINE void window_sent(const WindowColumns& c, const SourceQueues& q, int a) {
  c.outstanding[q.q_ix(a)] += 1;
  c.rr_last[q.src_ix()] = static_cast<uint8_t>(a);
}

// An acknowledgement for queue a arrived (a stray one, with nothing outstanding, is ignored).
SATURN_INLINE void window_acked(const WindowColumns& c, const SourceQueues& q, int a) {
  uint16_t& o = c.outstanding[q.q_ix(a)];
  if (o > 0) o = static_cast<uint16_t>(o - 1);
}

}  // namespace saturn
