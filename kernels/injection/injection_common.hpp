// Shared pieces of the source injection schedulers (PAPERS-SPEC M13, M22, M30, M31; item 10):
// how one source's send queues are addressed in the trial-minor columns, the packet-start
// schedule on whole cycles, rates as Q16 gaps, and the two picks (argmin D/r, round robin).
#pragma once
#include <cstdint>

#include "kernels/common/bits.hpp"
#include "kernels/common/index.hpp"
#include "kernels/common/macros.hpp"

namespace saturn {

constexpr int kNoQueue = -1;
constexpr int kMaxSourceQueues = 64;  // sets of queues are uint64_t masks

// The send queues (flows) of one source in one trial: per-source columns at at(source, trial,
// trials), queue a's at at(source * queues + a, trial, trials), the endpoint engine's act_* layout.
struct SourceQueues {
  int64_t source = 0;
  int queues = 0;  // <= kMaxSourceQueues
  int trial = 0, trials = 1;
  SATURN_INLINE int64_t src_ix() const { return at(source, trial, trials); }
  SATURN_INLINE int64_t q_ix(int a) const { return at(source * queues + a, trial, trials); }
};

// Time per packet at rate r (fraction of line rate) for packets of packet_cycles cycles, in
// 1/65536 cycles: d_p / r(f), the spacing M30 and M31 use. Integer gaps make every key and
// comparison exact, and the same on every backend.
SATURN_INLINE uint32_t gap_q16_for_rate(double packet_cycles, double r) {
  const double g = 65536.0 * packet_cycles / r + 0.5;
  return g >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(g);
}
// SAA's rate r(f) = w_f / W_f (M29; the 004 slide's "W_f / W_f" is a typo, PAPERS-SPEC §P1.9 item 5),
// so d_p / r(f) = d_p * W_f / w_f.
SATURN_INLINE uint32_t saa_gap_q16(double packet_cycles, double w_f, double W_f) {
  return gap_q16_for_rate(packet_cycles, w_f / W_f);
}

// Starts happen on whole cycles. A start due at next_q16 that happens in the first whole cycle at
// or after it is on time: the schedule keeps its fraction (next + step), so a period of 2.5 cycles
// gives starts 0, 3, 5, 8, 10 (exactly 2.5 on average, never ahead of the fluid schedule). A start
// held back later than that restarts the schedule from itself: no catch-up burst (M31).
SATURN_INLINE uint64_t schedule_after(uint64_t next_q16, uint32_t start, uint64_t step_q16) {
  const uint64_t due_cycle = (next_q16 + 0xFFFFu) >> 16;
  const uint64_t s = start;
  return (s <= due_cycle ? next_q16 : s << 16) + step_q16;
}
SATURN_INLINE bool schedule_due(uint64_t next_q16, uint32_t now) { return (static_cast<uint64_t>(now) << 16) >= next_q16; }

// M30 / M31's key D(f,t) / r(f) with fixed-size packets: packets sent times d_p / r(f).
SATURN_INLINE uint64_t virtual_time_q16(uint32_t sent, uint32_t gap_q16) { return static_cast<uint64_t>(sent) * gap_q16; }

// The queue of `mask` with the least D/r; ties to the lowest queue (item 10(e)). kNoQueue if none.
SATURN_INLINE int argmin_virtual_time(const uint32_t* sent, const uint32_t* gap_q16, const SourceQueues& q, uint64_t mask) {
  int best = kNoQueue;
  uint64_t best_key = 0;
  for (uint64_t m = mask; m != 0; m &= m - 1) {
    const int a = lowest_bit(m);
    const int64_t i = q.q_ix(a);
    const uint64_t key = virtual_time_q16(sent[i], gap_q16[i]);
    if (best == kNoQueue || key < best_key) {
      best = a;
      best_key = key;
    }
  }
  return best;
}

// Round robin: the first queue of `mask` after `last` (cyclically). last = 63 starts at queue 0.
SATURN_INLINE int round_robin_pick(uint64_t mask, int last) {
  if (mask == 0) return kNoQueue;
  const uint64_t after = last >= 63 ? 0 : mask & ~((2ull << last) - 1);
  return lowest_bit(after != 0 ? after : mask);
}

}  // namespace saturn
